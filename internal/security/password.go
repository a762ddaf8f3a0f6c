package security

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// Password hashes in a configuration are bcrypt's modular crypt format
// ($2a$, $2b$, $2y$) or argon2id's PHC string
// ($argon2id$v=19$m=KiB,t=passes,p=lanes$salt$hash, unpadded base64).
// Tokens are high-entropy secrets, so a plain SHA-256 suffices for them:
// "sha256:" and the hex digest.

// Hash algorithms HashPassword writes.
const (
	Bcrypt   = "bcrypt"
	Argon2id = "argon2id"
)

// BcryptCost is the cost HashPassword uses (bcrypt's default is 10).
const BcryptCost = 12

// bcryptCost is the cost HashPassword uses: BcryptCost, lowered by tests
// that hash many passwords under the race detector.
var bcryptCost = BcryptCost

// Argon2id parameters HashPassword uses: OWASP's recommendation of
// 19 MiB, 2 passes and one lane.
const (
	argonMemoryKiB = 19 * 1024
	argonPasses    = 2
	argonLanes     = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// Bounds on the argon2id parameters a configured hash may ask for, so that
// a configuration cannot make each check take gigabytes or minutes.
const (
	maxArgonMemoryKiB = 1 << 20 // 1 GiB
	maxArgonPasses    = 64
	maxArgonKeyLen    = 128
)

// MaxPasswordLength bounds a password (bcrypt reads at most 72 bytes and
// refuses more).
const MaxPasswordLength = 72

var errMismatch = errors.New("security: password does not match")

// HashPassword hashes a password with algorithm (Bcrypt or Argon2id) for
// a user's password-hash.
func HashPassword(password []byte, algorithm string) (string, error) {
	if len(password) == 0 {
		return "", errors.New("security: the password is empty")
	}
	if len(password) > MaxPasswordLength {
		return "", fmt.Errorf("security: the password has %d bytes, at most %d", len(password), MaxPasswordLength)
	}
	switch algorithm {
	case Bcrypt, "":
		h, err := bcrypt.GenerateFromPassword(password, bcryptCost)
		return string(h), err
	case Argon2id:
		salt := make([]byte, argonSaltLen)
		_, _ = rand.Read(salt)
		key := argon2.IDKey(password, salt, argonPasses, argonMemoryKiB, argonLanes, argonKeyLen)
		enc := base64.RawStdEncoding
		return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonPasses, argonLanes,
			enc.EncodeToString(salt), enc.EncodeToString(key)), nil
	}
	return "", fmt.Errorf("security: unknown hash algorithm %q: want bcrypt or argon2id", algorithm)
}

// passwordHash is a parsed password hash.
type passwordHash struct {
	bcrypt []byte // the whole bcrypt hash, or nil
	// argon2id
	salt, key      []byte
	memory, passes uint32
	lanes          uint8
}

// parsePasswordHash checks a configured hash.
func parsePasswordHash(s string) (*passwordHash, error) {
	switch {
	case strings.HasPrefix(s, "$2a$") || strings.HasPrefix(s, "$2b$") || strings.HasPrefix(s, "$2y$"):
		if _, err := bcrypt.Cost([]byte(s)); err != nil {
			return nil, fmt.Errorf("not a valid bcrypt hash: %v", err)
		}
		return &passwordHash{bcrypt: []byte(s)}, nil
	case strings.HasPrefix(s, "$argon2id$"):
		return parseArgon2id(s)
	}
	return nil, errors.New("not a bcrypt ($2a$, $2b$, $2y$) or argon2id ($argon2id$) hash; `atoll security hash-password` prints one")
}

func parseArgon2id(s string) (*passwordHash, error) {
	parts := strings.Split(s, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, key
	if len(parts) != 6 {
		return nil, errors.New("an argon2id hash has the form $argon2id$v=19$m=KiB,t=N,p=N$salt$hash")
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return nil, fmt.Errorf("argon2id version %q: want v=%d", parts[2], argon2.Version)
	}
	h := &passwordHash{}
	for _, kv := range strings.Split(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return nil, fmt.Errorf("argon2id parameter %q is not name=number", kv)
		}
		switch k {
		case "m":
			h.memory = uint32(n)
		case "t":
			h.passes = uint32(n)
		case "p":
			if n > 255 {
				return nil, fmt.Errorf("argon2id parallelism %d is above 255", n)
			}
			h.lanes = uint8(n)
		default:
			return nil, fmt.Errorf("unknown argon2id parameter %q", k)
		}
	}
	if h.memory == 0 || h.memory > maxArgonMemoryKiB || h.passes == 0 || h.passes > maxArgonPasses || h.lanes == 0 {
		return nil, fmt.Errorf("argon2id parameters m=%d,t=%d,p=%d: want m in 1..%d KiB, t in 1..%d, p at least 1",
			h.memory, h.passes, h.lanes, maxArgonMemoryKiB, maxArgonPasses)
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return nil, errors.New("the argon2id salt is not unpadded base64 of at least 8 bytes")
	}
	if h.key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.key) < 16 || len(h.key) > maxArgonKeyLen {
		return nil, fmt.Errorf("the argon2id hash is not unpadded base64 of 16 to %d bytes", maxArgonKeyLen)
	}
	return h, nil
}

// check compares a password with the hash (in constant time for argon2id;
// bcrypt compares its own way).
func (h *passwordHash) check(password []byte) error {
	if h.bcrypt != nil {
		if bcrypt.CompareHashAndPassword(h.bcrypt, password) != nil {
			return errMismatch
		}
		return nil
	}
	key := argon2.IDKey(password, h.salt, h.passes, h.memory, h.lanes, uint32(len(h.key)))
	if subtle.ConstantTimeCompare(key, h.key) != 1 {
		return errMismatch
	}
	return nil
}

// HashToken returns the token-hash of a bearer token: "sha256:" and the
// hex SHA-256 of the token.
func HashToken(token []byte) string {
	sum := sha256.Sum256(token)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// parseTokenHash reads a token-hash.
func parseTokenHash(s string) ([32]byte, error) {
	var out [32]byte
	hexDigest, ok := strings.CutPrefix(s, "sha256:")
	if !ok {
		return out, errors.New(`a token hash is "sha256:" and 64 hex digits (atoll security hash-token)`)
	}
	b, err := hex.DecodeString(hexDigest)
	if err != nil || len(b) != len(out) {
		return out, errors.New(`a token hash is "sha256:" and 64 hex digits (atoll security hash-token)`)
	}
	copy(out[:], b)
	return out, nil
}

// NewToken returns a random bearer token: 32 bytes, URL-safe base64.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
