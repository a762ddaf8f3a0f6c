package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a Map returns is an *Error wrapping one of
// these; match them with errors.Is.
var (
	// ErrInvalidKey: the key is nil or empty.
	ErrInvalidKey = errors.New("store: invalid key")
	// ErrInvalidValue: the value (or an expected value) is nil or empty.
	ErrInvalidValue = errors.New("store: invalid value")
	// ErrTooLarge: a key or value is over MapConfig.MaxKeySize or
	// MapConfig.MaxValueSize.
	ErrTooLarge = errors.New("store: too large")
	// ErrPartitionRange: the partition id is negative or not below
	// MapConfig.PartitionCount.
	ErrPartitionRange = errors.New("store: partition id out of range")
	// ErrInvalidExpiry: a negative TTL or max-idle.
	ErrInvalidExpiry = errors.New("store: invalid expiry")
	// ErrPartitionFull: a partition ran out of record addresses (about
	// 4 GiB of records, or 131 071 records above 8 KiB, in one partition).
	// Raise MapConfig.PartitionCount to spread the data wider.
	ErrPartitionFull = errors.New("store: partition full")
	// ErrCorrupt: an export chunk given to Import is malformed.
	ErrCorrupt = errors.New("store: corrupt export chunk")
	// ErrInvalidConfig: NewMap was given an unusable MapConfig.
	ErrInvalidConfig = errors.New("store: invalid config")
)

// Error reports which operation failed and why. Err wraps one of the
// package's sentinel errors, possibly with detail.
type Error struct {
	Op  string // "get", "put", "import", ...
	Err error
}

func (e *Error) Error() string { return "store: " + e.Op + ": " + trimPrefix(e.Err.Error()) }

// Unwrap returns the underlying error, so errors.Is(err, ErrTooLarge) works.
func (e *Error) Unwrap() error { return e.Err }

func trimPrefix(s string) string {
	const p = "store: "
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

func opErr(op string, err error) error { return &Error{Op: op, Err: err} }

func tooLarge(op, what string, n, limit int, knob string) error {
	return &Error{Op: op, Err: fmt.Errorf("%w: %s is %d bytes, limit is %d (%s)", ErrTooLarge, what, n, limit, knob)}
}
