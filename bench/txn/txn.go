// Package txn is the transaction workload of bench/WORKLOADS.md, after
// Haeinsa's performance page: two mixes of operations, each measured done
// raw (plain map calls) and done as one transaction, by the workloads'
// protocol (bench/harness), at one or more contention levels: a key space
// where conflicts are rare, and a few hot keys where they are frequent.
//
//	practical  (3 writes + 1 read) × 2 rows + 1 read × 1 row
//	worst      1 write × 2 rows + 1 read × 1 row
//
// A row is a key of the map (an int64 value): "3 writes + 1 read" of a row
// read it and write it three times. Raw, every read and write is a call;
// in a transaction the reads are calls, the writes are buffered (the last
// one of a row wins) and the commit locks, validates and applies them.
package txn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/pkg/client"
)

// MapName is the map the workload reads and writes.
const MapName = "txn-rows"

// Mixes are the workload's mixes, in order.
var Mixes = []string{"practical", "worst"}

// Modes are the two ways each mix runs: plain map calls, one transaction.
var Modes = []string{"raw", "transaction"}

// Config sets the workload.
type Config struct {
	// Keys is the key space the rows are drawn from (conflicts rare).
	Keys int
	// HotKeys, when > 0, draws every row from the first HotKeys keys
	// instead (conflicts frequent).
	HotKeys int
	// Retry is how transactions run again after a conflict.
	Retry client.Backoff
}

// Counters count what the transactions of a case met.
type Counters struct {
	// Transactions run (each counted once however many attempts it took).
	Transactions atomic.Int64
	// Conflicts met, one per attempt that lost (retried or not).
	Conflicts atomic.Int64
	// Failures: transactions that lost every attempt.
	Failures atomic.Int64
}

// Snapshot is the counters at one instant.
type Snapshot struct{ Transactions, Conflicts, Failures int64 }

// Snapshot reads the counters.
func (c *Counters) Snapshot() Snapshot {
	return Snapshot{c.Transactions.Load(), c.Conflicts.Load(), c.Failures.Load()}
}

// Sub returns the counts between an earlier snapshot and s.
func (s Snapshot) Sub(earlier Snapshot) Snapshot {
	return Snapshot{s.Transactions - earlier.Transactions, s.Conflicts - earlier.Conflicts, s.Failures - earlier.Failures}
}

// rows draws three distinct rows.
func (cfg Config) rows(rng *rand.Rand) (int32, int32, int32) {
	n := cfg.Keys
	if cfg.HotKeys > 0 {
		n = cfg.HotKeys
	}
	a := int32(rng.IntN(n))
	b := int32(rng.IntN(n - 1))
	if b >= a {
		b++
	}
	c := int32(rng.IntN(n - 2))
	for _, x := range []int32{min(a, b), max(a, b)} {
		if c >= x {
			c++
		}
	}
	return a, b, c
}

// Validate checks the configuration.
func (cfg Config) Validate() error {
	if cfg.Keys < 3 {
		return &harness.ConfigError{Flag: "keys", Value: fmt.Sprint(cfg.Keys), Why: "want at least 3 (a transaction touches 3 rows)"}
	}
	if cfg.HotKeys != 0 && (cfg.HotKeys < 3 || cfg.HotKeys > cfg.Keys) {
		return &harness.ConfigError{Flag: "hot-keys", Value: fmt.Sprint(cfg.HotKeys), Why: fmt.Sprintf("want 0 (none) or 3..%d", cfg.Keys)}
	}
	return nil
}

// mixFunc is one operation of a mix on three rows; seq numbers the
// thread's operations (the value the worst case writes).
type mixFunc func(ctx context.Context, m rowMap, r1, r2, r3 int32, seq int64) error

// practical is (3 writes + 1 read) × 2 rows + 1 read × 1 row; worst is
// 1 write × 2 rows + 1 read × 1 row. Both are written once against the
// calls a raw map and a transaction's map share.
type rowMap interface {
	Get(ctx context.Context, key int32) (int64, bool, error)
	Set(ctx context.Context, key int32, value int64) error
}

func practical(ctx context.Context, m rowMap, r1, r2, r3 int32, _ int64) error {
	for _, r := range []int32{r1, r2} {
		v, _, err := m.Get(ctx, r)
		if err != nil {
			return err
		}
		for i := int64(1); i <= 3; i++ {
			if err := m.Set(ctx, r, v+i); err != nil {
				return err
			}
		}
	}
	_, _, err := m.Get(ctx, r3)
	return err
}

func worst(ctx context.Context, m rowMap, r1, r2, r3 int32, seq int64) error {
	if err := m.Set(ctx, r1, seq); err != nil {
		return err
	}
	if err := m.Set(ctx, r2, seq); err != nil {
		return err
	}
	_, _, err := m.Get(ctx, r3)
	return err
}

// rawMap adapts a Map to rowMap.
type rawMap struct{ m *client.Map[int32, int64] }

func (r rawMap) Get(ctx context.Context, k int32) (int64, bool, error) { return r.m.Get(ctx, k) }
func (r rawMap) Set(ctx context.Context, k int32, v int64) error       { return r.m.Set(ctx, k, v) }

// NewOp returns thread t's operation of mix in mode. Each thread draws its
// rows from a generator of its own (the same from run to run). The
// operation's check is 1 (it completed). A transaction that loses every
// attempt completes too, counted in counters.Failures: the run measures
// it, as Haeinsa's service did its failed requests.
func NewOp(c *client.Client, cfg Config, mix, mode string, thread int, counters *Counters) (harness.Op, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var body mixFunc
	switch mix {
	case "practical":
		body = practical
	case "worst":
		body = worst
	default:
		return nil, fmt.Errorf("unknown mix %q: want one of %v", mix, Mixes)
	}
	rng := rand.New(rand.NewPCG(uint64(thread), 0x7478))
	m := rawMap{client.GetMap[int32, int64](c, MapName)}
	var seq int64
	switch mode {
	case "raw":
		return func(ctx context.Context) (int64, error) {
			r1, r2, r3 := cfg.rows(rng)
			seq++
			return 1, body(ctx, m, r1, r2, r3, seq)
		}, nil
	case "transaction":
		return func(ctx context.Context) (int64, error) {
			// The rows are drawn once: every attempt of the transaction
			// runs the same request, as a retried request is.
			r1, r2, r3 := cfg.rows(rng)
			seq++
			attempts := int64(0)
			err := c.RunInTransaction(ctx, func(tx *client.Tx) error {
				attempts++
				return body(ctx, client.TxMap[int32, int64](tx, MapName), r1, r2, r3, seq)
			}, client.WithTxRetry(cfg.Retry))
			counters.Transactions.Add(1)
			counters.Conflicts.Add(attempts - 1)
			var ce *client.ConflictError
			if errors.As(err, &ce) {
				counters.Conflicts.Add(1)
				counters.Failures.Add(1)
				return 1, nil
			}
			return 1, err
		}, nil
	}
	return nil, fmt.Errorf("unknown mode %q: want one of %v", mode, Modes)
}

// Load writes every key of the key space (value 0) through PutAll, in
// batches of 500 on threads goroutines.
func Load(ctx context.Context, c *client.Client, keys, threads int) error {
	m := client.GetMap[int32, int64](c, MapName)
	if err := m.Clear(ctx); err != nil {
		return err
	}
	errs := make(chan error, threads)
	for t := 0; t < threads; t++ {
		go func() {
			var batch []client.Entry[int32, int64]
			for k := t; k < keys; k += threads {
				batch = append(batch, client.Entry[int32, int64]{Key: int32(k), Value: 0})
				if len(batch) == 500 || k+threads >= keys {
					if err := m.PutAll(ctx, batch); err != nil {
						errs <- err
						return
					}
					batch = batch[:0]
				}
			}
			errs <- nil
		}()
	}
	var first error
	for t := 0; t < threads; t++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	n, err := m.Size(ctx)
	if err != nil {
		return err
	}
	if n != int64(keys) {
		return fmt.Errorf("loaded %d keys, the map holds %d", keys, n)
	}
	return nil
}
