package cluster

import (
	"errors"
	"fmt"
)

// Errors of the cluster layer, matched with errors.Is.
var (
	// ErrWrongOwner: this member does not own the partition (or is handing
	// it over). Retryable after refreshing the partition table.
	ErrWrongOwner = errors.New("cluster: not the partition owner")
	// ErrClusterMismatch: a member of another cluster (name or partition
	// count) was contacted.
	ErrClusterMismatch = errors.New("cluster: cluster mismatch")
	// ErrUnavailable: the member cannot serve the call now (below the
	// minimum cluster size, or no member owns the partition). Retryable.
	ErrUnavailable = errors.New("cluster: unavailable")
	// ErrStreamRefused: the member refused a framed stream, one its
	// version does not serve (DialFramed).
	ErrStreamRefused = errors.New("cluster: framed stream refused")
	// errStopped: the node is shutting down.
	errStopped = errors.New("cluster: stopped")
)

// WrongOwnerError reports a call that reached a member that does not own
// the partition, with the member's table version for the client.
type WrongOwnerError struct {
	Partition    int32
	TableVersion int64
	Reason       string
}

func (e *WrongOwnerError) Error() string {
	return fmt.Sprintf("partition %d: %s (partition table version %d)", e.Partition, e.Reason, e.TableVersion)
}

// Unwrap makes the error match ErrWrongOwner.
func (e *WrongOwnerError) Unwrap() error { return ErrWrongOwner }
