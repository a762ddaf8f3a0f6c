// Package locks holds the member's lock table format: the lock record kept
// for a locked key (a client's per-key lock, a transaction's lock, or
// both), the outcome records of transactions, and the in-memory helpers
// that serialize the operations on one key (striped latches) and wake the
// calls that wait for a lock (Waiters).
//
// Lock records are stored as entries of system maps (see maps.LockMapName):
// the lock of key k of map m is the entry k of m's lock map, so it lives in
// k's partition and is replicated to backups, copied by migrations and
// promoted on failover exactly like the data it guards. The package knows
// nothing of the network: the server runs the protocol on top of it.
package locks

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/atolldb/atoll/internal/serialization/wire"
	"github.com/atolldb/atoll/pkg/serialization"
)

// ErrCorrupt reports a lock or outcome record that does not decode.
var ErrCorrupt = errors.New("locks: corrupt record")

// UUID is a client's or a transaction's 16-byte identity.
type UUID [16]byte

// UUIDOf converts b, which must hold 16 bytes.
func UUIDOf(b []byte) (UUID, error) {
	var u UUID
	if len(b) != len(u) {
		return u, fmt.Errorf("an id has 16 bytes, got %d", len(b))
	}
	copy(u[:], b)
	return u, nil
}

// State is a transaction's state, kept in its primary lock.
type State uint8

const (
	// Prepared: locked, not committed. Every secondary lock is Prepared.
	Prepared State = 1
	// Committed: the transaction took effect; its writes are applied or
	// must be rolled forward by whoever finds them.
	Committed State = 2
)

// Intent is what a transaction does to a key it locked.
type Intent uint8

const (
	IntentNone   Intent = 0 // a read lock: no write
	IntentPut    Intent = 1
	IntentRemove Intent = 2
)

// Key names a key of a map.
type Key struct {
	Map string
	Key []byte
}

// Hold is a client's per-key lock (IMap.lock): reentrant, leased.
type Hold struct {
	Owner    UUID   // the client
	Count    uint32 // times taken, at least 1
	Deadline int64  // Unix ms at which the lease ends
	// Session: the lease is the client's session lease, renewed while the
	// client lives (a lock taken without a lease of its own).
	Session bool
}

// Txn is a transaction's lock of a key.
type Txn struct {
	ID       UUID
	Client   UUID  // the client that runs the transaction
	Deadline int64 // Unix ms at which the lease ends
	// Primary: this key is the transaction's primary; State is its state.
	// A secondary names its primary in PrimaryMap and PrimaryKey.
	Primary    bool
	State      State
	PrimaryMap string
	PrimaryKey []byte
	Intent     Intent
	Value      []byte // IntentPut
	// Secondaries: the primary's record of every other key the
	// transaction locked, set at commit for rolling forward.
	Secondaries []Key
}

// Record is the lock state of one key: a client's lock, a transaction's,
// or both (a transaction of the client that holds the key).
type Record struct {
	Hold *Hold
	Txn  *Txn
}

// Empty reports whether the record holds no lock.
func (r Record) Empty() bool { return r.Hold == nil && r.Txn == nil }

// Hides reports whether the record holds a transaction's write that a
// reader of the key's current value (found, value) must not read past:
// one that is not in the map yet, and may take effect (or has, at its
// primary). A write the map already shows (the same value, or the key
// absent for a remove) hides nothing, whatever the transaction's state:
// reading the value is right whether it commits or not. Replicated
// changes are applied in order but may be cut short by a member's death,
// so the map, not the record, says whether a write is in.
func (r Record) Hides(found bool, value []byte) bool {
	t := r.Txn
	if t == nil {
		return false
	}
	switch t.Intent {
	case IntentPut:
		return !found || !bytes.Equal(value, t.Value)
	case IntentRemove:
		return found
	}
	return false
}

// Expired reports whether every lock of the record has outlived its lease
// at nowMs; a record with one live lock is not expired.
func (h *Hold) Expired(nowMs int64) bool { return nowMs >= h.Deadline }

// Expired reports whether the transaction's lease is over at nowMs.
func (t *Txn) Expired(nowMs int64) bool { return nowMs >= t.Deadline }

const (
	formatV1 byte = 1

	hasHold byte = 1 << 0
	hasTxn  byte = 1 << 1

	txnPrimary byte = 1 << 0
	holdSess   byte = 1 << 0
)

// payloadStart is where a record's payload begins in its Data: the
// 8-byte header and the byte array's length.
const payloadStart = serialization.HeaderSize + 4

// Encode appends r as a byte-array Data (so that members check and carry
// it like any stored value).
func Encode(dst []byte, r Record) ([]byte, error) {
	start := len(dst)
	dst = wire.AppendInt32(dst, 0) // partition hash: from the payload
	dst = wire.AppendInt32(dst, serialization.TypeByteArray)
	dst = wire.AppendInt32(dst, 0) // length, set below
	body := len(dst)
	var flags byte
	if r.Hold != nil {
		flags |= hasHold
	}
	if r.Txn != nil {
		flags |= hasTxn
	}
	dst = append(dst, formatV1, flags)
	if h := r.Hold; h != nil {
		var f byte
		if h.Session {
			f |= holdSess
		}
		dst = append(dst, h.Owner[:]...)
		dst = wire.AppendInt32(dst, int32(h.Count))
		dst = wire.AppendInt64(dst, h.Deadline)
		dst = append(dst, f)
	}
	if t := r.Txn; t != nil {
		var f byte
		if t.Primary {
			f |= txnPrimary
		}
		dst = append(dst, t.ID[:]...)
		dst = append(dst, t.Client[:]...)
		dst = wire.AppendInt64(dst, t.Deadline)
		dst = append(dst, f, byte(t.State), byte(t.Intent))
		dst = appendBytes(dst, t.Value)
		var err error
		if dst, err = wire.AppendString(dst, t.PrimaryMap); err != nil {
			return dst[:start], fmt.Errorf("locks: primary map name: %w", err)
		}
		dst = appendBytes(dst, t.PrimaryKey)
		dst = wire.AppendInt32(dst, int32(len(t.Secondaries)))
		for _, k := range t.Secondaries {
			if dst, err = wire.AppendString(dst, k.Map); err != nil {
				return dst[:start], fmt.Errorf("locks: map name: %w", err)
			}
			dst = appendBytes(dst, k.Key)
		}
	}
	wire.PutInt32(dst[body-4:], int32(len(dst)-body))
	return dst, nil
}

func appendBytes(dst, b []byte) []byte {
	dst = wire.AppendInt32(dst, int32(len(b)))
	return append(dst, b...)
}

func readBytes(rd *wire.Reader) []byte {
	n := rd.Length(1, false)
	if rd.Err() != nil || n == 0 {
		return nil
	}
	return append([]byte(nil), rd.Bytes(n)...)
}

func readUUID(rd *wire.Reader) UUID {
	var u UUID
	copy(u[:], rd.Bytes(len(u)))
	return u
}

// Decode reads a record that Encode wrote. It copies what it keeps, so b
// may be a view of the store's memory.
func Decode(b []byte) (Record, error) {
	var r Record
	if serialization.Data(b).Type() != serialization.TypeByteArray {
		return r, fmt.Errorf("%w: not a byte array", ErrCorrupt)
	}
	rd := wire.NewReader(b, serialization.HeaderSize)
	if n := rd.Length(1, false); rd.Err() != nil || n != rd.Len() {
		return r, fmt.Errorf("%w: length does not match", ErrCorrupt)
	}
	if v := rd.Int8(); byte(v) != formatV1 {
		return r, fmt.Errorf("%w: format %d", ErrCorrupt, v)
	}
	flags := byte(rd.Int8())
	if flags&hasHold != 0 {
		h := &Hold{Owner: readUUID(&rd)}
		h.Count = uint32(rd.Int32())
		h.Deadline = rd.Int64()
		h.Session = byte(rd.Int8())&holdSess != 0
		r.Hold = h
	}
	if flags&hasTxn != 0 {
		t := &Txn{ID: readUUID(&rd), Client: readUUID(&rd)}
		t.Deadline = rd.Int64()
		f := byte(rd.Int8())
		t.Primary = f&txnPrimary != 0
		t.State, t.Intent = State(rd.Int8()), Intent(rd.Int8())
		t.Value = readBytes(&rd)
		t.PrimaryMap, _ = rd.Str()
		t.PrimaryKey = readBytes(&rd)
		n := rd.Length(8, false)
		for i := 0; i < n && rd.Err() == nil; i++ {
			var k Key
			k.Map, _ = rd.Str()
			k.Key = readBytes(&rd)
			t.Secondaries = append(t.Secondaries, k)
		}
		r.Txn = t
	}
	if err := rd.Err(); err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if rd.Len() != 0 {
		return Record{}, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, rd.Len())
	}
	if err := r.check(); err != nil {
		return Record{}, err
	}
	return r, nil
}

// check refuses records no member writes.
func (r Record) check() error {
	if r.Empty() {
		return fmt.Errorf("%w: no lock", ErrCorrupt)
	}
	if h := r.Hold; h != nil && h.Count == 0 {
		return fmt.Errorf("%w: a lock taken 0 times", ErrCorrupt)
	}
	if t := r.Txn; t != nil {
		if t.State != Prepared && t.State != Committed {
			return fmt.Errorf("%w: transaction state %d", ErrCorrupt, t.State)
		}
		if t.Intent > IntentRemove {
			return fmt.Errorf("%w: intent %d", ErrCorrupt, t.Intent)
		}
		if !t.Primary && (t.State != Prepared || len(t.Secondaries) > 0) {
			return fmt.Errorf("%w: a secondary lock with a primary's state", ErrCorrupt)
		}
		if (t.Intent == IntentPut) != (len(t.Value) > 0) {
			return fmt.Errorf("%w: a put without a value, or a value without a put", ErrCorrupt)
		}
	}
	return nil
}
