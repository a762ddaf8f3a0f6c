package locks

import (
	"fmt"

	"github.com/atolldb/atoll/internal/serialization/wire"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Outcome is the decision of a transaction whose primary lock is gone.
type Outcome uint8

const (
	// OutcomeCommitted: the transaction committed; its locks were rolled
	// forward by someone other than its client.
	OutcomeCommitted Outcome = 1
	// OutcomeAborted: the transaction was aborted by someone other than
	// its client; its primary can no longer be locked or committed.
	OutcomeAborted Outcome = 2
)

func (o Outcome) String() string {
	switch o {
	case OutcomeCommitted:
		return "committed"
	case OutcomeAborted:
		return "aborted"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// OutcomeKey returns the key of transaction id's outcome record: a byte
// array Data whose partition hash places it in partition pid (of count),
// the partition of the transaction's primary key, so that the record
// lives, moves and fails over with the primary's lock.
func OutcomeKey(id UUID, pid, count int32) []byte {
	hash := pid
	if hash == 0 {
		hash = count // count maps to partition 0; a hash of 0 would mean "from the payload"
	}
	b := make([]byte, 0, serialization.HeaderSize+4+len(id))
	b = wire.AppendInt32(b, hash)
	b = wire.AppendInt32(b, serialization.TypeByteArray)
	b = appendBytes(b, id[:])
	return b
}

// EncodeOutcome returns an outcome record's value.
func EncodeOutcome(o Outcome) []byte {
	b := make([]byte, 0, payloadStart+2)
	b = wire.AppendInt32(b, 0)
	b = wire.AppendInt32(b, serialization.TypeByteArray)
	b = appendBytes(b, []byte{formatV1, byte(o)})
	return b
}

// DecodeOutcome reads an outcome record's value.
func DecodeOutcome(b []byte) (Outcome, error) {
	if serialization.Data(b).Type() != serialization.TypeByteArray || len(b) != payloadStart+2 || b[payloadStart] != formatV1 {
		return 0, fmt.Errorf("%w: not an outcome record", ErrCorrupt)
	}
	o := Outcome(b[payloadStart+1])
	if o != OutcomeCommitted && o != OutcomeAborted {
		return 0, fmt.Errorf("%w: outcome %d", ErrCorrupt, o)
	}
	return o, nil
}
