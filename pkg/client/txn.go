package client

import (
	"bytes"
	"cmp"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Transactions
//
// A transaction reads and writes keys of any maps and takes effect all at
// once or not at all. It is optimistic: reads go to the keys' owners and
// remember each key's version, writes stay in the client until Commit,
// which locks the written keys at their owners (each lock a check that
// the key still has the version read), checks that the keys only read
// did not change, and commits by marking one key, the primary, committed;
// the writes are then applied and the locks released. A transaction that
// finds a key changed or locked by another fails with ErrConflict, and
// RunInTransaction runs it again. See ARCHITECTURE.md for what other
// readers can see.

// ErrCommitUnknown: the commit's outcome could not be learned (the member
// holding the transaction's primary key could not be reached until the
// context ended). The transaction may or may not have taken effect; it is
// not retried.
var ErrCommitUnknown = errors.New("atoll: transaction outcome unknown")

// CommitUnknownError is a commit whose outcome could not be learned. It
// matches ErrCommitUnknown and nothing else: in particular not the
// conflict or the error that Last reports, so that no caller takes it for
// a transaction that did not happen.
type CommitUnknownError struct {
	// Last is what the last attempt met.
	Last error
}

func (e *CommitUnknownError) Error() string {
	return "atoll: transaction outcome unknown (" + strings.TrimPrefix(e.Last.Error(), "atoll: ") + ")"
}

// Unwrap returns ErrCommitUnknown.
func (e *CommitUnknownError) Unwrap() error { return ErrCommitUnknown }

// ErrTxDone: the transaction was committed or rolled back already.
var ErrTxDone = errors.New("atoll: transaction already committed or rolled back")

// ConflictError is a transaction that lost a conflict: a key it needed was
// locked by another, or a key it read changed. It matches ErrConflict.
// RunInTransaction returns it once its attempts are spent.
type ConflictError struct {
	// Cause is why: CauseLocked, CauseChanged or CauseAborted.
	Cause ConflictCause
	// Map is the map of the key in conflict (empty when unknown).
	Map string
	// Attempts is how many times RunInTransaction ran the transaction (1
	// for a transaction committed by hand).
	Attempts int
	// Last is the member's report.
	Last *Error
}

// ConflictCause says why a transaction lost a conflict.
type ConflictCause int

const (
	// CauseLocked: another transaction or client held a lock on a key.
	CauseLocked ConflictCause = ConflictCause(pb.ConflictCause_CONFLICT_CAUSE_LOCKED)
	// CauseChanged: a key the transaction read changed since.
	CauseChanged ConflictCause = ConflictCause(pb.ConflictCause_CONFLICT_CAUSE_CHANGED)
	// CauseAborted: the transaction's locks outlived their lease and were
	// rolled back by another.
	CauseAborted ConflictCause = ConflictCause(pb.ConflictCause_CONFLICT_CAUSE_ABORTED)
)

func (c ConflictCause) String() string {
	switch c {
	case CauseLocked:
		return "locked"
	case CauseChanged:
		return "changed"
	case CauseAborted:
		return "aborted"
	}
	return "unknown"
}

func (e *ConflictError) Error() string {
	msg := "atoll: transaction conflict"
	if e.Last != nil {
		msg = e.Last.Error()
	}
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return msg
}

// Unwrap makes the error match ErrConflict and the member's report.
func (e *ConflictError) Unwrap() []error {
	if e.Last != nil {
		return []error{ErrConflict, e.Last}
	}
	return []error{ErrConflict}
}

// conflictOf turns a member's conflict into a *ConflictError (nil for
// any other error).
func conflictOf(err error) *ConflictError {
	var ce *ConflictError
	if errors.As(err, &ce) {
		return ce
	}
	var e *Error
	if !errors.As(err, &e) || !errors.Is(e, ErrConflict) {
		return nil
	}
	return &ConflictError{Cause: ConflictCause(e.ConflictCause), Map: e.ConflictMap, Attempts: 1, Last: e}
}

// TxOption configures one transaction (RunInTransaction, Begin).
type TxOption func(*txOptions)

type txOptions struct {
	retry    Backoff
	lease    time.Duration
	lockWait time.Duration
}

// WithTxRetry sets how RunInTransaction runs a transaction again after a
// conflict: retry.Attempts attempts in all, waiting retry's exponential
// backoff with jitter between them (Config.TxRetry by default).
func WithTxRetry(retry Backoff) TxOption { return func(o *txOptions) { o.retry = retry } }

// WithTxLease sets how long the transaction's locks hold before anyone who
// meets them may resolve them (Config.TxLease by default): longer than its
// commit takes, and than the time from its first GetForUpdate to its
// commit.
func WithTxLease(d time.Duration) TxOption { return func(o *txOptions) { o.lease = d } }

// WithLockWait sets how long GetForUpdate waits for a key locked by
// another before the transaction conflicts (default 1s).
func WithLockWait(d time.Duration) TxOption { return func(o *txOptions) { o.lockWait = d } }

// Tx is a transaction. It is meant for one goroutine; its maps are
// TxMap's. Begin starts one by hand; RunInTransaction runs a function in
// one and retries it on conflict.
type Tx struct {
	c    *Client
	id   []byte
	opts txOptions

	mu     sync.Mutex
	reads  map[txKey]*txRead
	writes map[txKey]*txWrite
	// held are the keys GetForUpdate locked; primary is the first of them
	// (the transaction's primary), if any.
	held    map[txKey]bool
	primary *txKey
	done    bool
}

// txKey names a key of a map in a transaction.
type txKey struct {
	m string
	k string // serialized key
}

type txRead struct {
	found   bool
	value   []byte
	version uint32
}

type txWrite struct {
	intent pb.TxIntent
	value  []byte
}

// Begin starts a transaction. Commit or Rollback ends it.
func (c *Client) Begin(ctx context.Context, opts ...TxOption) (*Tx, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	o := txOptions{retry: c.cfg.TxRetry, lease: c.cfg.TxLease, lockWait: time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if o.lease < time.Millisecond {
		return nil, fmt.Errorf("%w: transaction lease %v is under a millisecond", ErrInvalidArgument, o.lease)
	}
	if o.lockWait < 0 {
		return nil, fmt.Errorf("%w: negative lock wait %v", ErrInvalidArgument, o.lockWait)
	}
	id := make([]byte, 16)
	_, _ = crand.Read(id)
	return &Tx{c: c, id: id, opts: o, reads: map[txKey]*txRead{}, writes: map[txKey]*txWrite{}, held: map[txKey]bool{}}, nil
}

// RunInTransaction runs fn in a transaction and commits it. When fn or
// the commit meets a conflict (ErrConflict), it rolls back and runs fn
// again in a new transaction, after the retry policy's backoff, until its
// attempts are spent: it then returns a *ConflictError. Any other error
// of fn rolls the transaction back and is returned as is. fn may run more
// than once, so it should have no effects outside the transaction.
//
//	err := c.RunInTransaction(ctx, func(tx *client.Tx) error {
//		accounts := client.TxMap[string, int64](tx, "accounts")
//		from, _, err := accounts.Get(ctx, "alice")
//		if err != nil {
//			return err
//		}
//		...
//		return accounts.Set(ctx, "alice", from-10)
//	})
func (c *Client) RunInTransaction(ctx context.Context, fn func(tx *Tx) error, opts ...TxOption) error {
	tx, err := c.Begin(ctx, opts...)
	if err != nil {
		return err
	}
	policy := tx.opts.retry.withDefaults()
	r := retrier{policy: policy}
	for attempt := 1; ; attempt++ {
		err := fn(tx)
		if err == nil {
			err = tx.Commit(ctx)
		} else {
			tx.rollback()
		}
		if err == nil {
			return nil
		}
		ce := conflictOf(err)
		if ce == nil {
			return err
		}
		if attempt >= policy.Attempts {
			c.stats.txConflicts.Add(1)
			ce.Attempts = attempt
			return ce
		}
		c.stats.txRetries.Add(1)
		if werr := r.wait(ctx, 0); werr != nil {
			ce.Attempts = attempt
			return fmt.Errorf("%w (then %w)", ce, werr)
		}
		if tx, err = c.Begin(ctx, opts...); err != nil {
			return err
		}
	}
}

// TransactionalMap is a map seen through a transaction, like Hazelcast's
// TransactionalMap: reads see the transaction's own writes, writes take
// effect at commit. Its methods must not be called once the transaction
// ended.
type TransactionalMap[K, V any] struct {
	tx *Tx
	m  *Map[K, V]
}

// TxMap returns the map called name in transaction tx.
func TxMap[K, V any](tx *Tx, name string) *TransactionalMap[K, V] {
	return &TransactionalMap[K, V]{tx: tx, m: GetMap[K, V](tx.c, name)}
}

// Name returns the map's name.
func (t *TransactionalMap[K, V]) Name() string { return t.m.name }

// key serializes k.
func (t *TransactionalMap[K, V]) key(k K) (txKey, []byte, error) {
	if t.m.err != nil {
		return txKey{}, nil, t.m.err
	}
	kd, err := t.m.c.ser.ToData(k)
	if err != nil {
		return txKey{}, nil, fmt.Errorf("%w: map %q key: %w", ErrInvalidArgument, t.m.name, err)
	}
	return txKey{m: t.m.name, k: string(kd)}, kd, nil
}

// lookup returns the key's value as the transaction sees it: its own
// write, else what it read (reading it first).
func (t *TransactionalMap[K, V]) lookup(ctx context.Context, k K) (value []byte, found bool, err error) {
	tk, kd, err := t.key(k)
	if err != nil {
		return nil, false, err
	}
	tx := t.tx
	if err := tx.open(); err != nil {
		return nil, false, err
	}
	if w := tx.written(tk); w != nil {
		return w.value, w.intent == pb.TxIntent_TX_INTENT_PUT, nil
	}
	rd, err := tx.read(ctx, tk, kd)
	if err != nil {
		return nil, false, err
	}
	return rd.value, rd.found, nil
}

func (t *TransactionalMap[K, V]) decoded(ctx context.Context, v []byte, found bool, err error) (V, bool, error) {
	var zero V
	if err != nil || !found {
		return zero, false, err
	}
	val, err := t.m.decode(ctx, nil, v)
	return val, err == nil, err
}

// Get returns key's value in the transaction: its own write if it wrote
// the key, else the value read (once per transaction: reading it again
// returns the same value).
func (t *TransactionalMap[K, V]) Get(ctx context.Context, key K) (V, bool, error) {
	v, found, err := t.lookup(ctx, key)
	return t.decoded(ctx, v, found, err)
}

// ContainsKey reports whether key has a value in the transaction.
func (t *TransactionalMap[K, V]) ContainsKey(ctx context.Context, key K) (bool, error) {
	_, found, err := t.lookup(ctx, key)
	return found, err
}

// GetForUpdate is Get that also locks the key at once, until the
// transaction ends (as Hazelcast's getForUpdate): no other transaction
// or client can change it meanwhile. It waits up to the lock wait
// (WithLockWait) for a key another holds, then fails with a conflict.
func (t *TransactionalMap[K, V]) GetForUpdate(ctx context.Context, key K) (V, bool, error) {
	tk, kd, err := t.key(key)
	if err != nil {
		var zero V
		return zero, false, err
	}
	tx := t.tx
	if err := tx.open(); err != nil {
		var zero V
		return zero, false, err
	}
	if err := tx.lockForUpdate(ctx, tk, kd); err != nil {
		var zero V
		return zero, false, err
	}
	return t.Get(ctx, key)
}

// Put writes value under key at commit and returns the value the key has
// in the transaction now.
func (t *TransactionalMap[K, V]) Put(ctx context.Context, key K, value V) (old V, existed bool, err error) {
	old, existed, err = t.Get(ctx, key)
	if err != nil {
		return old, false, err
	}
	return old, existed, t.Set(ctx, key, value)
}

// Set writes value under key at commit, without reading the key: the
// transaction does not conflict with a change of the key it never read.
func (t *TransactionalMap[K, V]) Set(ctx context.Context, key K, value V) error {
	tk, _, err := t.key(key)
	if err != nil {
		return err
	}
	vd, err := t.m.c.ser.ToData(value)
	if err != nil {
		return fmt.Errorf("%w: map %q value: %w", ErrInvalidArgument, t.m.name, err)
	}
	if err := t.m.c.meta.flush(ctx); err != nil {
		return err
	}
	return t.tx.write(tk, &txWrite{intent: pb.TxIntent_TX_INTENT_PUT, value: vd})
}

// Remove removes key at commit and returns the value it has in the
// transaction now.
func (t *TransactionalMap[K, V]) Remove(ctx context.Context, key K) (V, bool, error) {
	old, existed, err := t.Get(ctx, key)
	if err != nil {
		return old, false, err
	}
	return old, existed, t.delete(key)
}

// Delete removes key at commit and reports whether it has a value in the
// transaction now.
func (t *TransactionalMap[K, V]) Delete(ctx context.Context, key K) (bool, error) {
	existed, err := t.ContainsKey(ctx, key)
	if err != nil {
		return false, err
	}
	return existed, t.delete(key)
}

func (t *TransactionalMap[K, V]) delete(key K) error {
	tk, _, err := t.key(key)
	if err != nil {
		return err
	}
	return t.tx.write(tk, &txWrite{intent: pb.TxIntent_TX_INTENT_REMOVE})
}

func (tx *Tx) open() error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.done {
		return ErrTxDone
	}
	return nil
}

func (tx *Tx) written(k txKey) *txWrite {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	return tx.writes[k]
}

func (tx *Tx) write(k txKey, w *txWrite) error {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if tx.done {
		return ErrTxDone
	}
	tx.writes[k] = w
	return nil
}

// read returns what the transaction read of k, reading it on first use.
func (tx *Tx) read(ctx context.Context, k txKey, kd []byte) (*txRead, error) {
	tx.mu.Lock()
	rd, ok := tx.reads[k]
	tx.mu.Unlock()
	if ok {
		return rd, nil
	}
	resp, err := tx.c.invoke(ctx, tx.c.partitionOf(kd), true, &pb.PipelineRequest{Op: &pb.PipelineRequest_TxRead{TxRead: &pb.TxReadRequest{TxnId: tx.id, Map: k.m, Key: kd}}})
	if err != nil {
		return nil, err
	}
	r := resp.GetTxRead()
	rd = &txRead{found: r.GetFound(), value: r.GetValue(), version: r.GetVersion()}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if prev, ok := tx.reads[k]; ok {
		return prev, nil
	}
	tx.reads[k] = rd
	return rd, nil
}

// lockForUpdate locks k now (GetForUpdate) and records what it holds.
func (tx *Tx) lockForUpdate(ctx context.Context, k txKey, kd []byte) error {
	tx.mu.Lock()
	if tx.held[k] {
		tx.mu.Unlock()
		return nil
	}
	primary := k
	if tx.primary != nil {
		primary = *tx.primary
	}
	tx.mu.Unlock()
	req := &pb.TxLockRequest{
		TxnId: tx.id, LeaseMs: tx.opts.lease.Milliseconds(), Primary: &pb.MapKey{Map: primary.m, Key: []byte(primary.k)},
		Entries: []*pb.TxLockEntry{{Map: k.m, Key: kd}}, WaitMs: tx.opts.lockWait.Milliseconds(), Read: true,
	}
	resp, err := tx.c.invoke(ctx, tx.c.partitionOf(kd), true, &pb.PipelineRequest{Op: &pb.PipelineRequest_TxLock{TxLock: req}})
	if err != nil {
		return err
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	tx.held[k] = true
	if tx.primary == nil {
		tx.primary = &k
	}
	if vs := resp.GetTxLock().GetValues(); len(vs) == 1 {
		// Locked: what it holds now is what the transaction reads.
		tx.reads[k] = &txRead{found: vs[0].GetFound(), value: vs[0].GetValue(), version: vs[0].GetVersion()}
	}
	return nil
}

// txItem is a key of a commit, with its partition.
type txItem struct {
	k    txKey
	kd   []byte
	pid  int32
	w    *txWrite // nil: read only
	read *txRead  // nil: written without reading
}

func (it *txItem) mapKey() *pb.MapKey { return &pb.MapKey{Map: it.k.m, Key: it.kd} }

// sizeOf returns what item i adds to a request (its map's name, key and
// written value, overhead included), for splitting a batch by size.
func sizeOf(items []*txItem) func(i int) int {
	return func(i int) int {
		it := items[i]
		n := len(it.k.m) + len(it.kd) + entryOverhead
		if it.w != nil {
			n += len(it.w.value)
		}
		return n
	}
}

func (it *txItem) expect() *pb.TxExpect {
	if it.read == nil {
		return nil
	}
	if !it.read.found {
		return &pb.TxExpect{}
	}
	return &pb.TxExpect{Version: it.read.version, ValueHash: serialization.Data(it.read.value).ContentHash()}
}

func (it *txItem) lockEntry() *pb.TxLockEntry {
	e := &pb.TxLockEntry{Map: it.k.m, Key: it.kd, Expect: it.expect()}
	if it.w != nil {
		e.Intent, e.Value = it.w.intent, it.w.value
	}
	return e
}

func (it *txItem) validateEntry() *pb.TxValidateEntry {
	return &pb.TxValidateEntry{Map: it.k.m, Key: it.kd, Expect: it.expect()}
}

// Commit commits the transaction: it takes effect entirely, or fails
// with a *ConflictError (it then took no effect and released its locks),
// or with ErrCommitUnknown when its outcome could not be learned.
func (tx *Tx) Commit(ctx context.Context) error { return tx.commit(ctx, commitAll) }

// commitStage is how far commit goes: all the way, or (tests of clients
// that die mid-commit) until the keys are locked or the primary committed.
type commitStage uint8

const (
	commitAll commitStage = iota
	commitUntilLocked
	commitUntilCommitted
)

func (tx *Tx) commit(ctx context.Context, stage commitStage) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, tx.c.cfg.InvocationTimeout)
		defer cancel()
	}
	tx.mu.Lock()
	if tx.done {
		tx.mu.Unlock()
		return ErrTxDone
	}
	tx.done = true
	var writes, readOnly, held []*txItem
	for k, w := range tx.writes {
		writes = append(writes, tx.item(k, w))
	}
	for k := range tx.reads {
		if _, ok := tx.writes[k]; !ok {
			if tx.held[k] {
				held = append(held, tx.item(k, nil))
			} else {
				readOnly = append(readOnly, tx.item(k, nil))
			}
		}
	}
	primaryKey := tx.primary
	tx.mu.Unlock()
	sortItems(writes)
	sortItems(readOnly)
	c := tx.c
	switch {
	case len(writes) == 0:
		// Nothing to write: the keys read are checked, those locked by
		// GetForUpdate could not change, and their locks go.
		err := tx.validate(ctx, readOnly)
		tx.release(held)
		if err == nil {
			c.stats.txCommits.Add(1)
		}
		return tx.conflictOr(err)
	case len(writes) == 1 && primaryKey == nil && sameOwner(c, writes[0], readOnly) && stage == commitAll:
		req := &pb.TxCommitRequest{TxnId: tx.id, OnePhase: writes[0].lockEntry()}
		for _, it := range readOnly {
			req.Validate = append(req.Validate, it.validateEntry())
		}
		_, err := tx.commitCall(ctx, writes[0].pid, writes[0].k.m, req)
		if err == nil {
			c.stats.txCommits.Add(1)
		}
		return tx.conflictOr(err)
	}
	// Two phases: lock, validate, commit at the primary, apply.
	locked := append(append([]*txItem(nil), writes...), held...)
	sortItems(locked)
	primary := tx.choosePrimary(primaryKey, locked, writes, readOnly)
	owner := c.ownerOf(primary.pid)
	var atPrimary, elsewhere, remoteWrites, localWrites, secondaries []*txItem
	for _, it := range readOnly {
		if c.ownerOf(it.pid) == owner {
			atPrimary = append(atPrimary, it)
		} else {
			elsewhere = append(elsewhere, it)
		}
	}
	allLocal := true
	for _, it := range locked {
		if it != primary {
			secondaries = append(secondaries, it)
			allLocal = allLocal && c.ownerOf(it.pid) == owner
		}
	}
	// The primary's owner locks its own keys in the Commit call, unless
	// keys read elsewhere must be validated after every lock is taken
	// (or the commit is to stop once locked).
	for _, it := range writes {
		if c.ownerOf(it.pid) == owner && len(elsewhere) == 0 && stage != commitUntilLocked {
			localWrites = append(localWrites, it)
		} else {
			remoteWrites = append(remoteWrites, it)
		}
	}
	if err := tx.lock(ctx, primary, remoteWrites); err != nil {
		tx.release(locked)
		return tx.conflictOr(err)
	}
	if stage == commitUntilLocked {
		return nil
	}
	if err := tx.validate(ctx, elsewhere); err != nil {
		tx.release(locked)
		return tx.conflictOr(err)
	}
	req := &pb.TxCommitRequest{TxnId: tx.id, Primary: primary.mapKey(), LeaseMs: tx.opts.lease.Milliseconds(),
		Finish: allLocal && stage == commitAll}
	for _, it := range secondaries {
		req.Secondaries = append(req.Secondaries, it.mapKey())
	}
	for _, it := range atPrimary {
		req.Validate = append(req.Validate, it.validateEntry())
	}
	for _, it := range localWrites {
		req.Lock = append(req.Lock, it.lockEntry())
	}
	finishing, err := tx.commitPrimary(ctx, primary, req)
	if errors.Is(err, ErrWrongOwner) && (len(req.Lock) > 0 || len(req.Validate) > 0) {
		// Partitions moved since the commit was planned: lock and
		// validate the primary owner's keys where they live now, then
		// commit at the primary alone.
		if err = tx.lock(ctx, primary, localWrites); err == nil {
			err = tx.validate(ctx, atPrimary)
		}
		if err == nil {
			req.Lock, req.Validate = nil, nil
			finishing, err = tx.commitPrimary(ctx, primary, req)
		}
	}
	if err != nil {
		if conflictOf(err) != nil {
			tx.release(locked)
		}
		return tx.conflictOr(err)
	}
	c.stats.txCommits.Add(1)
	if stage == commitUntilCommitted || finishing {
		return nil
	}
	tx.finish(primary, secondaries)
	return nil
}

// choosePrimary picks the transaction's primary: the first key
// GetForUpdate locked, else the written key whose owner owns the most of
// the keys only read (the commit validates those itself, which saves a
// Validate call), the first in the global order among equals.
func (tx *Tx) choosePrimary(held *txKey, locked, writes, readOnly []*txItem) *txItem {
	if held != nil {
		for _, it := range locked {
			if it.k == *held {
				return it
			}
		}
	}
	var best *txItem
	bestScore := -1
	for _, w := range writes {
		score := 0
		for _, r := range readOnly {
			if tx.c.ownerOf(r.pid) == tx.c.ownerOf(w.pid) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = w, score
		}
	}
	return best
}

func (tx *Tx) item(k txKey, w *txWrite) *txItem {
	kd := []byte(k.k)
	return &txItem{k: k, kd: kd, pid: tx.c.partitionOf(kd), w: w, read: tx.reads[k]}
}

// sortItems puts items in the global lock order: partition, key bytes, map.
func sortItems(items []*txItem) {
	slices.SortFunc(items, func(a, b *txItem) int {
		if c := cmp.Compare(a.pid, b.pid); c != 0 {
			return c
		}
		if c := bytes.Compare(a.kd, b.kd); c != 0 {
			return c
		}
		return cmp.Compare(a.k.m, b.k.m)
	})
}

func sameOwner(c *Client, w *txItem, others []*txItem) bool {
	for _, it := range others {
		if c.ownerOf(it.pid) != c.ownerOf(w.pid) {
			return false
		}
	}
	return true
}

// conflictOr returns a conflict as a *ConflictError and any other error
// as is.
func (tx *Tx) conflictOr(err error) error {
	if ce := conflictOf(err); ce != nil {
		return ce
	}
	return err
}

func keysOf(items []*txItem) [][]byte {
	keys := make([][]byte, len(items))
	for i, it := range items {
		keys[i] = it.kd
	}
	return keys
}

// lock locks the written keys at their owners, all at once (each owner
// takes its keys in the global order).
func (tx *Tx) lock(ctx context.Context, primary *txItem, writes []*txItem) error {
	if len(writes) == 0 {
		return nil
	}
	return tx.c.invokeByOwner(ctx, keysOf(writes), sizeOf(writes), true, func(idx []int) *pb.PipelineRequest {
		req := &pb.TxLockRequest{TxnId: tx.id, LeaseMs: tx.opts.lease.Milliseconds(), Primary: primary.mapKey()}
		for _, i := range idx {
			req.Entries = append(req.Entries, writes[i].lockEntry())
		}
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_TxLock{TxLock: req}}
	}, nil)
}

// validate checks at their owners that keys read are still as read.
func (tx *Tx) validate(ctx context.Context, items []*txItem) error {
	if len(items) == 0 {
		return nil
	}
	return tx.c.invokeByOwner(ctx, keysOf(items), sizeOf(items), true, func(idx []int) *pb.PipelineRequest {
		req := &pb.TxValidateRequest{TxnId: tx.id}
		for _, i := range idx {
			req.Entries = append(req.Entries, items[i].validateEntry())
		}
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_TxValidate{TxValidate: req}}
	}, nil)
}

// commitPrimary commits at the primary and reports whether the primary's
// owner finishes the transaction (see commitCall).
func (tx *Tx) commitPrimary(ctx context.Context, primary *txItem, req *pb.TxCommitRequest) (bool, error) {
	resp, err := tx.commitCall(ctx, primary.pid, primary.k.m, req)
	return resp.GetFinishing(), err
}

// commitCall sends a Commit to the owner of pid, one attempt at a time.
// An attempt that may have run (its connection broke after the request
// went out, or the member failed after it started) is asked again, as
// committing is idempotent; but once one may have run, neither a conflict
// nor a transaction the member no longer knows can tell a commit that
// happened (and was finished, its keys taken by others since) from one
// that did not: the answer is then ErrCommitUnknown, never a conflict,
// which would run the transaction again. Attempts that did not run (a
// member that did not own the partition, or was shutting down, or a
// request that was never sent) are tried again freely.
func (tx *Tx) commitCall(ctx context.Context, pid int32, mapName string, req *pb.TxCommitRequest) (*pb.TxCommitResponse, error) {
	c := tx.c
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.InvocationTimeout)
		defer cancel()
	}
	r := c.retrier()
	mayHaveRun := false
	unknown := func(err error) error { return &CommitUnknownError{Last: err} }
	for {
		var resp *pb.PipelineResponse
		cn, err := c.connFor(ctx, pid)
		if err == nil {
			resp, err = cn.invoke(ctx, &pb.PipelineRequest{Op: &pb.PipelineRequest_TxCommit{TxCommit: req}})
			if err == nil && resp.Error != nil {
				err = errorFromPipeline(resp.Error, cn.addr)
			}
		}
		var e *Error
		var ce *connError
		switch {
		case err == nil:
			return resp.GetTxCommit(), nil
		case conflictOf(err) != nil && !mayHaveRun:
			return nil, err
		case errors.Is(err, ErrNotFound) && !mayHaveRun:
			return nil, &ConflictError{Cause: CauseAborted, Map: mapName, Attempts: 1, Last: asError(err)}
		case conflictOf(err) != nil, errors.Is(err, ErrNotFound):
			return nil, unknown(err)
		case errors.As(err, &e) && (errors.Is(e, ErrWrongOwner) || errors.Is(e, ErrShuttingDown)):
			if !e.Retryable {
				if mayHaveRun {
					return nil, unknown(err)
				}
				return nil, err // the keys moved: the caller plans again
			}
			// Refused before it ran: try again where the table says.
		case errors.As(err, &ce):
			mayHaveRun = mayHaveRun || ce.sent
		case errors.Is(err, ErrNoMember):
		case errors.As(err, &e) && e.Retryable:
			mayHaveRun = true // it may have committed before it failed
		default:
			if mayHaveRun || ctx.Err() != nil || errors.Is(err, ErrTimeout) || errors.Is(err, ErrInternal) || errors.Is(err, ErrUnavailable) {
				return nil, unknown(err) // it may have committed before it failed
			}
			return nil, err // refused as such (an invalid request): nothing was committed
		}
		if ctx.Err() != nil || c.closed.Load() {
			if mayHaveRun {
				return nil, unknown(err)
			}
			return nil, c.finalError(ctx, err)
		}
		c.stats.retries.Add(1)
		if perr := c.prepareRetry(ctx, err); perr != nil {
			return nil, unknown(err)
		}
		if werr := r.wait(ctx, 0); werr != nil {
			if mayHaveRun {
				return nil, unknown(err)
			}
			return nil, c.finalError(ctx, err)
		}
	}
}

// asError returns err's *Error, if any.
func asError(err error) *Error {
	var e *Error
	errors.As(err, &e)
	return e
}

// applyAll applies (or, not apply, rolls back) the transaction's locks of
// items at their owners.
func (tx *Tx) applyAll(ctx context.Context, items []*txItem, apply bool) error {
	if len(items) == 0 {
		return nil
	}
	return tx.c.invokeByOwner(ctx, keysOf(items), sizeOf(items), true, func(idx []int) *pb.PipelineRequest {
		req := &pb.TxReleaseRequest{TxnId: tx.id}
		for _, i := range idx {
			req.Keys = append(req.Keys, items[i].mapKey())
		}
		if apply {
			return &pb.PipelineRequest{Op: &pb.PipelineRequest_TxApply{TxApply: req}}
		}
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_TxRollback{TxRollback: req}}
	}, nil)
}

// releaseTimeout bounds the release of a transaction's locks that its
// caller does not wait for.
const releaseTimeout = 10 * time.Second

// release rolls back the transaction's locks of items (after a conflict,
// or a rollback): with its own deadline, since the caller's context may
// be what ended the transaction. A failure leaves them to their lease.
func (tx *Tx) release(items []*txItem) {
	if len(items) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := tx.applyAll(ctx, items, false); err != nil {
		tx.c.log.Debug("rolling back a transaction's locks failed; their lease ends them", "err", err)
	}
}

// finish applies a committed transaction's writes to its other keys and
// releases its locks, the primary's last, in the background: the
// transaction took effect at its commit, and a reader or writer of one of
// its keys meanwhile waits for the key's lock (or rolls the transaction
// forward itself), so its client need not wait. A failure (the client
// closing, a member unreachable) leaves the locks to whoever meets them.
func (tx *Tx) finish(primary *txItem, secondaries []*txItem) {
	c := tx.c
	if c.closed.Load() {
		return
	}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		ctx, cancel := context.WithTimeout(c.life, releaseTimeout)
		defer cancel()
		if err := tx.applyAll(ctx, secondaries, true); err != nil {
			c.log.Debug("applying a committed transaction's writes failed; its locks roll it forward", "err", err)
			return
		}
		if err := tx.applyAll(ctx, []*txItem{primary}, true); err != nil {
			c.log.Debug("releasing a committed transaction's primary lock failed; its lease ends it", "err", err)
		}
	}()
}

// Rollback ends the transaction without effect, releasing the locks
// GetForUpdate took.
func (tx *Tx) Rollback(ctx context.Context) error {
	tx.mu.Lock()
	if tx.done {
		tx.mu.Unlock()
		return ErrTxDone
	}
	tx.mu.Unlock()
	tx.rollback()
	return nil
}

func (tx *Tx) rollback() {
	tx.mu.Lock()
	if tx.done {
		tx.mu.Unlock()
		return
	}
	tx.done = true
	var held []*txItem
	for k := range tx.held {
		held = append(held, tx.item(k, nil))
	}
	tx.mu.Unlock()
	tx.release(held)
}
