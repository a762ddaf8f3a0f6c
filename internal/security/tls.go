package security

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// A member's TLS material is a certificate and key (served to clients and
// members, and presented to the members it dials), the CA of the
// cluster's members, and optionally another CA for clients' certificates.
// The files are read again when they change (checked at most every
// ReloadInterval, on the next handshake), so renewed certificates take
// effect without a restart; connections already open keep theirs. A
// change that does not load (a half-written file, a key that does not
// match) keeps the material in use and is logged.

// ClientAuth says what a member asks of clients' certificates.
type ClientAuth int

// Client certificate policies.
const (
	// ClientCertOptional: a client may present a certificate of the client
	// CA, which identifies it when it sends no other credentials.
	ClientCertOptional ClientAuth = iota
	// ClientCertRequired: a client connection without a valid certificate
	// is refused.
	ClientCertRequired
	// ClientCertNone: clients' certificates are ignored.
	ClientCertNone
)

// ParseClientAuth reads none, optional or required ("" is optional).
func ParseClientAuth(s string) (ClientAuth, error) {
	switch s {
	case "", "optional":
		return ClientCertOptional, nil
	case "required":
		return ClientCertRequired, nil
	case "none":
		return ClientCertNone, nil
	}
	return 0, fmt.Errorf("client-auth %q: want none, optional or required", s)
}

// DefaultReloadInterval is how often changed TLS files are looked for.
const DefaultReloadInterval = 10 * time.Second

// TLSOptions name a member's TLS files and policies.
type TLSOptions struct {
	CertFile, KeyFile string
	// CAFile is the CA of the cluster's members: a member proves it
	// belongs with a certificate it signed. It also verifies clients'
	// certificates unless ClientCAFile is set.
	CAFile       string
	ClientCAFile string
	ClientAuth   ClientAuth
	// MemberNames, when set, are patterns ("*" for any run of characters)
	// that a member certificate's common name or a DNS name must match.
	MemberNames []string
	// ReloadInterval bounds how often the files are looked at; default
	// DefaultReloadInterval.
	ReloadInterval time.Duration
	Logger         *slog.Logger
}

// TLS is a member's TLS material, reloaded as its files change. It is safe
// for concurrent use.
type TLS struct {
	opts    TLSOptions
	checked atomic.Int64 // Unix nanoseconds of the last look at the files
	mu      sync.Mutex   // one reload at a time
	raw     [][]byte     // the files' contents behind cur
	cur     atomic.Pointer[tlsMaterial]
}

type tlsMaterial struct {
	cert     *tls.Certificate
	leaf     *x509.Certificate
	ca       *x509.CertPool
	clientCA *x509.CertPool
}

// NewTLS loads the files; they must exist and agree (the key matches the
// certificate, the CA files hold certificates).
func NewTLS(opts TLSOptions) (*TLS, error) {
	if opts.CertFile == "" || opts.KeyFile == "" || opts.CAFile == "" {
		return nil, errors.New("security: TLS needs cert-file, key-file and ca-file")
	}
	if opts.ReloadInterval <= 0 {
		opts.ReloadInterval = DefaultReloadInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	t := &TLS{opts: opts}
	raw, err := t.read()
	if err != nil {
		return nil, err
	}
	m, err := t.parse(raw)
	if err != nil {
		return nil, err
	}
	t.raw = raw
	t.cur.Store(m)
	t.checked.Store(time.Now().UnixNano())
	return t, nil
}

func (t *TLS) files() []string {
	return []string{t.opts.CertFile, t.opts.KeyFile, t.opts.CAFile, t.opts.ClientCAFile}
}

func (t *TLS) read() ([][]byte, error) {
	out := make([][]byte, 4)
	for i, f := range t.files() {
		if f == "" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("security: %w", err)
		}
		out[i] = b
	}
	return out, nil
}

func (t *TLS) parse(raw [][]byte) (*tlsMaterial, error) {
	cert, err := tls.X509KeyPair(raw[0], raw[1])
	if err != nil {
		return nil, fmt.Errorf("security: %s and %s: %w", t.opts.CertFile, t.opts.KeyFile, err)
	}
	m := &tlsMaterial{cert: &cert, leaf: cert.Leaf}
	if m.ca, err = certPool(raw[2], t.opts.CAFile); err != nil {
		return nil, err
	}
	m.clientCA = m.ca
	if raw[3] != nil {
		if m.clientCA, err = certPool(raw[3], t.opts.ClientCAFile); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func certPool(pemBytes []byte, file string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, fmt.Errorf("security: %s holds no PEM certificate", file)
	}
	return pool, nil
}

// material returns the current material, first reloading the files if
// they were last looked at more than ReloadInterval ago and changed.
func (t *TLS) material() *tlsMaterial {
	now := time.Now().UnixNano()
	last := t.checked.Load()
	if now-last < int64(t.opts.ReloadInterval) || !t.checked.CompareAndSwap(last, now) {
		return t.cur.Load()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, err := t.read()
	if err != nil {
		t.opts.Logger.Warn("TLS files could not be read again; keeping the certificates in use", "err", err)
		return t.cur.Load()
	}
	same := true
	for i := range raw {
		same = same && bytes.Equal(raw[i], t.raw[i])
	}
	if same {
		return t.cur.Load()
	}
	m, err := t.parse(raw)
	if err != nil {
		t.opts.Logger.Warn("changed TLS files do not load; keeping the certificates in use", "err", err)
		return t.cur.Load()
	}
	t.raw = raw
	t.cur.Store(m)
	t.opts.Logger.Info("TLS certificates reloaded", "cert-file", t.opts.CertFile, "subject", m.leaf.Subject.String(),
		"not-after", m.leaf.NotAfter.UTC().Format(time.RFC3339))
	return m
}

// Leaf returns the member's current certificate.
func (t *TLS) Leaf() *x509.Certificate { return t.material().leaf }

// ClientAuth returns the client certificate policy.
func (t *TLS) ClientAuth() ClientAuth { return t.opts.ClientAuth }

// ServerConfig is the TLS configuration of the member's listeners (its
// address and its admin address). It asks every peer for a certificate
// without verifying it in the handshake: members must present one, which
// VerifyMember checks, and clients may (VerifyClient), and a refusal
// after the handshake can say why in the protocol's own terms.
func (t *TLS) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2"},
		ClientAuth: tls.RequestClientCert,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return t.material().cert, nil
		},
	}
}

// AdminServerConfig is ServerConfig for the admin HTTP address
// (HTTP/1.1).
func (t *TLS) AdminServerConfig() *tls.Config {
	c := t.ServerConfig()
	c.NextProtos = []string{"http/1.1"}
	return c
}

// DialConfig is the TLS configuration of connections to other members: it
// presents this member's certificate and accepts a peer whose certificate
// the members' CA signed for serving (and that MemberNames allow), at
// whatever address the peer advertises.
func (t *TLS) DialConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"h2"},
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return t.material().cert, nil
		},
		// The chain is verified in VerifyConnection, against the members'
		// CA and without a host name: members are reached at advertised
		// addresses that certificates rarely list.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			return t.verifyMember(cs.PeerCertificates, x509.ExtKeyUsageServerAuth)
		},
	}
}

// VerifyMember checks the certificate a dialing member presented: signed
// by the members' CA for client authentication, and named as MemberNames
// ask.
func (t *TLS) VerifyMember(cs tls.ConnectionState) error {
	return t.verifyMember(cs.PeerCertificates, x509.ExtKeyUsageClientAuth)
}

// CertificateError is a peer's certificate that verification refused.
type CertificateError struct{ Err error }

func (e *CertificateError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *CertificateError) Unwrap() error { return e.Err }

func (t *TLS) verifyMember(chain []*x509.Certificate, usage x509.ExtKeyUsage) error {
	if len(chain) == 0 {
		return &CertificateError{errors.New("it presented no certificate")}
	}
	if err := verifyChain(chain, t.material().ca, usage); err != nil {
		return &CertificateError{fmt.Errorf("its certificate (%s) is not one of the cluster's members': %w", chain[0].Subject, err)}
	}
	if len(t.opts.MemberNames) == 0 {
		return nil
	}
	names := append([]string{chain[0].Subject.CommonName}, chain[0].DNSNames...)
	for _, p := range t.opts.MemberNames {
		for _, n := range names {
			if n != "" && Match(p, n) {
				return nil
			}
		}
	}
	return &CertificateError{fmt.Errorf("its certificate names %q, none of which member-names allows", names)}
}

// VerifyClient checks a client's certificate, if it presented one: it
// returns the certificate when the client CA signed it for client
// authentication, nil when there is none, and an error naming the
// problem otherwise.
func (t *TLS) VerifyClient(cs tls.ConnectionState) (*x509.Certificate, error) {
	if len(cs.PeerCertificates) == 0 {
		return nil, nil
	}
	if err := verifyChain(cs.PeerCertificates, t.material().clientCA, x509.ExtKeyUsageClientAuth); err != nil {
		return nil, fmt.Errorf("the client certificate (%s) is not accepted: %w", cs.PeerCertificates[0].Subject, err)
	}
	return cs.PeerCertificates[0], nil
}

func verifyChain(chain []*x509.Certificate, roots *x509.CertPool, usage x509.ExtKeyUsage) error {
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	_, err := chain[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{usage}})
	return err
}
