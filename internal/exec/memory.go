package exec

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrMemoryLimit is the sentinel of *MemoryLimitError.
var ErrMemoryLimit = errors.New("exec: query memory limit exceeded")

// MemoryLimitError reports a query that needed more memory on a member
// than its limit allows.
type MemoryLimitError struct {
	// What needed the memory: "join hash table", "exchange buffer", ...
	What string
	// Requested is the reservation that failed; Used what the query held
	// then; Limit the query's limit, all in bytes.
	Requested, Used, Limit int64
}

func (e *MemoryLimitError) Error() string {
	return fmt.Sprintf("query memory limit of %d bytes exceeded: the %s needs %d bytes more and the query holds %d (raise query.memory-limit-per-query in the member configuration, or the MEMORY_LIMIT hint)",
		e.Limit, e.What, e.Requested, e.Used)
}

// Unwrap returns ErrMemoryLimit.
func (e *MemoryLimitError) Unwrap() error { return ErrMemoryLimit }

// MemoryAccount is the memory one query holds on one member, in bytes:
// what its operators keep beyond a batch in flight (join hash tables,
// exchange buffers). An operator reserves before it grows and releases
// when it frees or finishes; a reservation that would pass the limit
// fails with *MemoryLimitError and reserves nothing. Safe for concurrent
// use.
type MemoryAccount struct {
	limit int64 // 0: no limit
	used  atomic.Int64
	peak  atomic.Int64
}

// NewMemoryAccount returns an account with a limit in bytes (0: none).
func NewMemoryAccount(limit int64) *MemoryAccount {
	return &MemoryAccount{limit: max(limit, 0)}
}

// Reserve accounts n more bytes for what, or fails without reserving.
func (a *MemoryAccount) Reserve(what string, n int64) error {
	if n <= 0 {
		return nil
	}
	used := a.used.Add(n)
	if a.limit > 0 && used > a.limit {
		a.used.Add(-n)
		return &MemoryLimitError{What: what, Requested: n, Used: used - n, Limit: a.limit}
	}
	for {
		p := a.peak.Load()
		if used <= p || a.peak.CompareAndSwap(p, used) {
			return nil
		}
	}
}

// Release returns n bytes.
func (a *MemoryAccount) Release(n int64) {
	if n > 0 {
		a.used.Add(-n)
	}
}

// Used returns the bytes reserved now.
func (a *MemoryAccount) Used() int64 { return a.used.Load() }

// Peak returns the most bytes the account held at once.
func (a *MemoryAccount) Peak() int64 { return a.peak.Load() }
