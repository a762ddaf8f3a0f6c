package server

// TransactionService: the owners' side of optimistic transactions (see
// api/proto/atoll/v1/transaction.proto and ARCHITECTURE.md).

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/pkg/serialization"
)

// maxLease bounds a transaction's lease and a lock's.
const maxLease = 24 * time.Hour

// txEntry is a key a transaction call names, resolved.
type txEntry struct {
	i      int // its index in the request
	m      *maps.Map
	pid    int32
	key    []byte
	expect *pb.TxExpect
	intent locks.Intent
	value  []byte
}

// txEntries resolves and checks keys of a transaction call, in the global
// order (partition, key bytes, map): all of partitions this member owns.
// create: the maps are created if new (a lock); otherwise a map this
// member does not have yields an entry with m nil.
func (s *Server) txEntries(n int, at func(i int) (name string, key []byte, expect *pb.TxExpect, intent pb.TxIntent, value []byte), create bool) ([]txEntry, error) {
	if err := s.checkBatch("transaction", n); err != nil {
		return nil, err
	}
	out := make([]txEntry, n)
	for i := range out {
		name, key, expect, intent, value := at(i)
		if err := s.checkData(fmt.Sprintf("entries[%d].key", i), key); err != nil {
			return nil, err
		}
		e := txEntry{i: i, key: key, expect: expect, pid: s.partitionOf(key), value: value}
		switch intent {
		case pb.TxIntent_TX_INTENT_NONE:
			if len(value) > 0 {
				return nil, invalid("entries[%d]: a value without TX_INTENT_PUT", i)
			}
		case pb.TxIntent_TX_INTENT_PUT:
			if err := s.checkData(fmt.Sprintf("entries[%d].value", i), value); err != nil {
				return nil, err
			}
			e.intent = locks.IntentPut
		case pb.TxIntent_TX_INTENT_REMOVE:
			if len(value) > 0 {
				return nil, invalid("entries[%d]: a value with TX_INTENT_REMOVE", i)
			}
			e.intent = locks.IntentRemove
		default:
			return nil, invalid("entries[%d]: unknown intent %v", i, intent)
		}
		var err error
		if create {
			e.m, err = s.cfg.Maps.Get(name)
		} else {
			if err = maps.CheckName(name); err == nil {
				e.m, err = s.withLocks(name)
			}
		}
		if err != nil {
			return nil, err
		}
		if err := s.cfg.Cluster.CheckRead(e.pid); err != nil {
			return nil, err
		}
		out[i] = e
	}
	slices.SortFunc(out, func(a, b txEntry) int {
		if c := cmp.Compare(a.pid, b.pid); c != 0 {
			return c
		}
		if c := bytes.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.name(), b.name())
	})
	for i := 1; i < len(out); i++ {
		if out[i].pid == out[i-1].pid && out[i].name() == out[i-1].name() && bytes.Equal(out[i].key, out[i-1].key) {
			return nil, invalid("entries name the same key of map %q twice", out[i].name())
		}
	}
	return out, nil
}

func (e *txEntry) name() string {
	if e.m == nil {
		return ""
	}
	return e.m.Name()
}

// expectHolds reports whether the entry (found with version and value)
// is still what the transaction read.
func expectHolds(expect *pb.TxExpect, found bool, version uint32, value []byte) bool {
	if expect == nil {
		return true
	}
	if expect.Version == 0 {
		return !found
	}
	return found && version == expect.Version && serialization.Data(value).ContentHash() == expect.ValueHash
}

// current returns key's entry as a transaction checks it: found, version
// and value.
func current(m *maps.Map, pid int32, key []byte) (bool, uint32, []byte, error) {
	v, found, err := m.Store.GetEntryView(pid, key)
	if err != nil || !found {
		return false, 0, nil, err
	}
	return true, v.Version, v.Value, nil
}

// txRead reads a key for a transaction: its value and version, once no
// other transaction's write that may have taken effect is in the way.
func (s *Server) txRead(ctx context.Context, r *pb.TxReadRequest) (*pb.TxReadResponse, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil || m == nil {
		return &pb.TxReadResponse{}, err
	}
	if err := s.awaitKey(ctx, m, pid, r.Key, accessRead, locks.UUID{}, id); err != nil {
		return nil, err
	}
	m.CountGet()
	found, version, value, err := current(m, pid, r.Key)
	if err != nil || !found {
		return &pb.TxReadResponse{}, err
	}
	return &pb.TxReadResponse{Found: true, Value: value, Version: version}, nil
}

// lockOutcome is what one try to lock a key found.
type lockOutcome uint8

const (
	lockTaken   lockOutcome = iota
	lockHeld                // another holds it: wait or conflict
	lockResolve             // another's lock can be resolved first
	lockChanged             // the version read is no longer current
	lockAborted             // the transaction was aborted by another
)

// txLock takes a transaction's locks on keys of this member's partitions,
// in the global order. On a conflict it releases what it took and fails.
func (s *Server) txLock(ctx context.Context, r *pb.TxLockRequest) (*pb.TxLockResponse, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	if err := checkLease(r.LeaseMs); err != nil {
		return nil, err
	}
	if r.Primary == nil {
		return nil, invalid("no primary key")
	}
	if err := maps.CheckName(r.Primary.Map); err != nil {
		return nil, err
	}
	if err := s.checkData("primary.key", r.Primary.Key); err != nil {
		return nil, err
	}
	if r.WaitMs < 0 {
		return nil, invalid("wait_ms %d is negative", r.WaitMs)
	}
	entries, err := s.txEntries(len(r.Entries), func(i int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		e := r.Entries[i]
		return e.Map, e.Key, e.Expect, e.Intent, e.Value
	}, true)
	if err != nil {
		return nil, err
	}
	resp := &pb.TxLockResponse{}
	if r.Read {
		resp.Values = make([]*pb.TxReadResponse, len(entries))
	}
	err = s.lockAll(ctx, id, s.clientOf(ctx), time.Duration(r.LeaseMs)*time.Millisecond, time.Duration(r.WaitMs)*time.Millisecond, r.Primary, entries, resp.Values)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// checkLease checks a transaction's lease.
func checkLease(ms int64) error {
	if ms < 1 || time.Duration(ms)*time.Millisecond > maxLease {
		return invalid("lease_ms %d is not in 1..%d", ms, maxLease.Milliseconds())
	}
	return nil
}

// lockAll locks entries for transaction id in their (global) order. On a
// conflict it releases what it took and fails. values, when not nil,
// receives each entry's value and version once locked, by request index.
func (s *Server) lockAll(ctx context.Context, id, client locks.UUID, lease, wait time.Duration, primaryKey *pb.MapKey, entries []txEntry, values []*pb.TxReadResponse) error {
	var taken []txEntry
	for _, e := range entries {
		primary := e.m.Name() == primaryKey.Map && bytes.Equal(e.key, primaryKey.Key)
		var read *pb.TxReadResponse
		isNew, err := s.lockEntry(ctx, id, client, lease, wait, primaryKey, primary, e, values != nil, &read)
		if err != nil {
			for i := len(taken) - 1; i >= 0; i-- {
				t := taken[i]
				if _, rerr := s.releaseTxn(ctx, t.m, t.pid, t.key, id, false, 0, nil); rerr != nil {
					s.log.Debug("releasing a lock after a conflict failed; its lease ends it", "map", t.m.Name(), "err", rerr)
				}
			}
			return err
		}
		if isNew {
			taken = append(taken, e)
		}
		if values != nil {
			values[e.i] = read
		}
	}
	return nil
}

// lockEntry locks one key for transaction id, waiting up to wait for a
// lock another holds. isNew reports that the lock is this call's (not one
// the transaction held already).
func (s *Server) lockEntry(ctx context.Context, id, client locks.UUID, lease, wait time.Duration, primaryKey *pb.MapKey, primary bool, e txEntry, read bool, value **pb.TxReadResponse) (isNew bool, err error) {
	deadline := time.Now().Add(wait)
	var waitStart time.Time
	defer func() {
		if !waitStart.IsZero() {
			s.cfg.Transactions.Waited(time.Since(waitStart).Seconds())
		}
	}()
	// changed is watched once a try found the key held: the next try
	// then sees any release that the wait could miss.
	var changed <-chan struct{}
	for {
		var outcome lockOutcome
		var rec locks.Record
		err := s.write(ctx, e.m, e.pid, func() error {
			return s.latched(e.pid, e.m.Name(), e.key, func() (err error) {
				outcome, rec, isNew, err = s.tryLock(id, client, lease, primaryKey, primary, e, read, value)
				return err
			})
		})
		if err != nil {
			return false, err
		}
		switch outcome {
		case lockTaken:
			return isNew, nil
		case lockChanged:
			s.cfg.Transactions.Abort(metrics.AbortChanged)
			return false, conflict(pb.ConflictCause_CONFLICT_CAUSE_CHANGED, e.m.Name(), e.key, "the key changed since the transaction read it")
		case lockAborted:
			s.cfg.Transactions.Abort(metrics.AbortAborted)
			return false, conflict(pb.ConflictCause_CONFLICT_CAUSE_ABORTED, e.m.Name(), e.key, "the transaction was rolled back by another after its lease ended")
		case lockResolve:
			changed, err := s.resolved(ctx, e.m, e.pid, e.key, rec)
			if err != nil {
				return false, err
			}
			if changed {
				continue
			}
		}
		if time.Now().After(deadline) {
			s.cfg.Transactions.Abort(metrics.AbortLocked)
			what := "a transaction"
			if rec.Txn == nil {
				what = "another client"
			}
			return false, conflict(pb.ConflictCause_CONFLICT_CAUSE_LOCKED, e.m.Name(), e.key, "the key is locked by "+what)
		}
		if changed == nil {
			changed = s.waiters.Watch(e.pid, e.m.Name(), e.key)
			continue // try again, watching
		}
		if waitStart.IsZero() {
			waitStart = time.Now()
		}
		if err := s.waitLock(ctx, changed, rec, s.nowMs(), min(time.Until(deadline), resolveAfter)); err != nil {
			return false, err
		}
		changed = s.waiters.Watch(e.pid, e.m.Name(), e.key)
	}
}

// tryLock is one try of lockEntry, under the key's latch.
func (s *Server) tryLock(id, client locks.UUID, lease time.Duration, primaryKey *pb.MapKey, primary bool, e txEntry, read bool, value **pb.TxReadResponse) (lockOutcome, locks.Record, bool, error) {
	rec, _, err := s.lockOf(e.m, e.pid, e.key)
	if err != nil {
		return 0, rec, false, err
	}
	now := s.nowMs()
	deadline := now + lease.Milliseconds()
	if t := rec.Txn; t != nil && t.ID == id {
		// Locked earlier by this transaction (GetForUpdate): the commit
		// sets what it writes.
		if t.State == locks.Committed {
			return 0, rec, false, invalid("the transaction committed already")
		}
		t.Intent, t.Value, t.Deadline = e.intent, e.value, max(t.Deadline, deadline)
		if err := s.putLock(e.m, e.pid, e.key, rec); err != nil {
			return 0, rec, false, err
		}
		return lockTaken, rec, false, s.readForLock(e, read, value)
	}
	if t := rec.Txn; t != nil {
		// Another transaction's: a committed or expired one is resolved;
		// so is a secondary, whose transaction may have committed already
		// (its client applies the other keys after it answered), which
		// only its primary knows.
		if t.State == locks.Committed || t.Expired(now) || !t.Primary {
			return lockResolve, rec, false, nil
		}
		return lockHeld, rec, false, nil
	}
	if h := rec.Hold; h != nil && h.Owner != client {
		if !h.Expired(now) {
			return lockHeld, rec, false, nil
		}
		rec.Hold = nil
		s.cfg.Transactions.Resolved(metrics.ResolvedReleased)
	}
	if primary {
		if o, found, err := s.outcomeOf(id, e.pid); err != nil {
			return 0, rec, false, err
		} else if found && o == locks.OutcomeAborted {
			return lockAborted, rec, false, nil
		}
	}
	found, version, cur, err := current(e.m, e.pid, e.key)
	if err != nil {
		return 0, rec, false, err
	}
	if !expectHolds(e.expect, found, version, cur) {
		return lockChanged, rec, false, nil
	}
	t := &locks.Txn{ID: id, Client: client, Deadline: deadline, Primary: primary, State: locks.Prepared, Intent: e.intent, Value: e.value}
	if !primary {
		t.PrimaryMap, t.PrimaryKey = primaryKey.Map, primaryKey.Key
	}
	rec.Txn = t
	if err := s.putLock(e.m, e.pid, e.key, rec); err != nil {
		return 0, rec, false, err
	}
	if read && value != nil {
		*value = &pb.TxReadResponse{Found: found, Value: cur, Version: version}
	}
	return lockTaken, rec, true, nil
}

// readForLock reads a key locked for GetForUpdate.
func (s *Server) readForLock(e txEntry, read bool, value **pb.TxReadResponse) error {
	if !read || value == nil {
		return nil
	}
	found, version, cur, err := current(e.m, e.pid, e.key)
	if err == nil {
		*value = &pb.TxReadResponse{Found: found, Value: cur, Version: version}
	}
	return err
}

// validateOutcome is what validating a key found.
type validateOutcome uint8

const (
	valid validateOutcome = iota
	invalidChanged
	invalidResolve
)

// validateKey checks, under the key's latch, that a key the transaction
// read is still as read and that no other transaction holds a write on
// it; rec is the lock in the way when one must be resolved first.
func (s *Server) validateKey(id locks.UUID, e txEntry) (validateOutcome, locks.Record, error) {
	if e.m == nil {
		if e.expect.GetVersion() == 0 {
			return valid, locks.Record{}, nil // absent, and still no map
		}
		return invalidChanged, locks.Record{}, nil
	}
	rec, found, err := s.lockOf(e.m, e.pid, e.key)
	if err != nil {
		return 0, rec, err
	}
	present, version, cur, err := current(e.m, e.pid, e.key)
	if err != nil {
		return 0, rec, err
	}
	if t := rec.Txn; found && t != nil && t.ID != id && rec.Hides(present, cur) {
		if t.State == locks.Committed || t.Expired(s.nowMs()) {
			return invalidResolve, rec, nil
		}
		return invalidChanged, rec, nil
	}
	if !expectHolds(e.expect, present, version, cur) {
		return invalidChanged, rec, nil
	}
	return valid, rec, nil
}

// validateAll validates entries under their latches (taken together, so
// the keys are checked at one instant), calling then with them held.
// resolve returns a lock to resolve before trying again.
func (s *Server) validateAll(id locks.UUID, entries []txEntry, also []txEntry, then func() error) (conflictAt *txEntry, resolveRec *locks.Record, resolveAt *txEntry, err error) {
	stripes := make([]int, 0, len(entries)+len(also))
	for _, e := range append(append([]txEntry(nil), entries...), also...) {
		stripes = append(stripes, s.latches.Stripe(e.pid, e.name(), e.key))
	}
	stripes = s.latches.LockAll(stripes)
	defer s.latches.UnlockAll(stripes)
	for i := range entries {
		out, rec, err := s.validateKey(id, entries[i])
		if err != nil {
			return nil, nil, nil, err
		}
		switch out {
		case invalidChanged:
			return &entries[i], nil, nil, nil
		case invalidResolve:
			return nil, &rec, &entries[i], nil
		}
	}
	return nil, nil, nil, then()
}

// validateEntries turns the request's validate entries into txEntries.
func (s *Server) validateEntries(vs []*pb.TxValidateEntry) ([]txEntry, error) {
	for i, v := range vs {
		if v.Expect == nil {
			return nil, invalid("validate[%d]: no expected version", i)
		}
	}
	return s.txEntries(len(vs), func(i int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		return vs[i].Map, vs[i].Key, vs[i].Expect, pb.TxIntent_TX_INTENT_NONE, nil
	}, false)
}

// validated validates entries and, when they hold, runs then with them
// (and the keys of also) latched, inside the write admission of w's
// partition when w is set. A key whose version changed fails with a
// conflict; a lock in the way that can be resolved is resolved (outside
// the latches and the admission) before trying again.
func (s *Server) validated(ctx context.Context, id locks.UUID, entries, also []txEntry, w *txEntry, then func() error) error {
	for {
		var bad, at *txEntry
		var rec *locks.Record
		run := func() (err error) {
			bad, rec, at, err = s.validateAll(id, entries, also, then)
			return err
		}
		var err error
		if w != nil {
			err = s.write(ctx, w.m, w.pid, run)
		} else {
			err = run()
		}
		if err != nil {
			return err
		}
		if bad != nil {
			s.cfg.Transactions.Abort(metrics.AbortChanged)
			return conflict(pb.ConflictCause_CONFLICT_CAUSE_CHANGED, bad.name(), bad.key, "a key the transaction read changed since, or another transaction is writing it")
		}
		if rec == nil {
			return nil
		}
		changed, err := s.resolved(ctx, at.m, at.pid, at.key, *rec)
		if err != nil {
			return err
		}
		if !changed {
			s.cfg.Transactions.Abort(metrics.AbortChanged)
			return conflict(pb.ConflictCause_CONFLICT_CAUSE_CHANGED, at.name(), at.key, "another transaction is writing a key the transaction read")
		}
	}
}

// txValidate validates keys a transaction read.
func (s *Server) txValidate(ctx context.Context, r *pb.TxValidateRequest) (*pb.Empty, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	entries, err := s.validateEntries(r.Entries)
	if err != nil {
		return nil, err
	}
	return &pb.Empty{}, s.validated(ctx, id, entries, nil, nil, func() error { return nil })
}

// txCommit commits a transaction at its primary (or a one-key
// transaction at once).
func (s *Server) txCommit(ctx context.Context, r *pb.TxCommitRequest) (*pb.TxCommitResponse, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	validate, err := s.validateEntries(r.Validate)
	if err != nil {
		return nil, replanOnMove(err)
	}
	if r.OnePhase != nil {
		if r.Primary != nil || len(r.Secondaries) > 0 {
			return nil, invalid("one_phase goes without primary and secondaries")
		}
		return &pb.TxCommitResponse{}, s.commitOnePhase(ctx, id, r.OnePhase, validate)
	}
	if r.Primary == nil {
		return nil, invalid("no primary key")
	}
	if err := s.checkBatch("commit", len(r.Secondaries)); err != nil {
		return nil, err
	}
	secondaries := make([]locks.Key, len(r.Secondaries))
	for i, k := range r.Secondaries {
		if err := maps.CheckName(k.Map); err != nil {
			return nil, err
		}
		if err := s.checkData(fmt.Sprintf("secondaries[%d].key", i), k.Key); err != nil {
			return nil, err
		}
		secondaries[i] = locks.Key{Map: k.Map, Key: k.Key}
	}
	primary, err := s.txEntries(1, func(int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		return r.Primary.Map, r.Primary.Key, nil, pb.TxIntent_TX_INTENT_NONE, nil
	}, false)
	if err != nil {
		return nil, err
	}
	p := primary[0]
	if len(r.Lock) > 0 {
		if err := s.lockForCommit(ctx, id, r, p); err != nil {
			return nil, replanOnMove(err)
		}
		if p.m == nil { // the map was created by the lock
			if p.m, err = s.withLocks(r.Primary.Map); err != nil {
				return nil, err
			}
			primary[0] = p
		}
	}
	if p.m == nil {
		return nil, s.lostPrimary(id, p)
	}
	committed := false
	err = s.validated(ctx, id, validate, primary, &p, func() error {
		rec, found, err := s.lockOf(p.m, p.pid, p.key)
		if err != nil {
			return err
		}
		t := rec.Txn
		if !found || t == nil || t.ID != id || !t.Primary {
			return s.lostPrimary(id, p)
		}
		if t.State == locks.Committed {
			return nil // asked again: committed already
		}
		if o, decided, err := s.outcomeOf(id, p.pid); err != nil {
			return err
		} else if decided && o == locks.OutcomeAborted {
			return s.lostPrimary(id, p) // a resolver's abort whose removal of the lock a member's death cut short
		}
		// The decision first, then the write: a member that dies between
		// the two leaves a committed primary whose write is not in, which
		// whoever meets it rolls forward; the other order could leave the
		// write in and the transaction undecided, then aborted.
		t.State, t.Secondaries = locks.Committed, secondaries
		if err := s.putLock(p.m, p.pid, p.key, rec); err != nil {
			return err
		}
		committed = true
		return applyIntent(p.m, p.pid, p.key, t)
	})
	if err != nil {
		return nil, err
	}
	if !committed {
		return &pb.TxCommitResponse{}, nil // asked again: another call finishes it
	}
	s.cfg.Transactions.Commit(metrics.CommitTwoPhase)
	if !r.Finish {
		return &pb.TxCommitResponse{}, nil
	}
	for _, k := range secondaries {
		if !s.cfg.Cluster.Owned(s.partitionOf(k.Key)) {
			return &pb.TxCommitResponse{}, nil // the client finishes
		}
	}
	go s.finishLocally(id, p, secondaries)
	return &pb.TxCommitResponse{Finishing: true}, nil
}

// errReplan marks a commit that names keys (to lock or validate) of a
// partition this member does not own any more: the client locks and
// validates them where they live now and commits again with the primary
// alone. Sending the same call again would fail the same way.
var errReplan = errors.New("server: the transaction's keys moved")

type replanError struct{ err error }

func (e *replanError) Error() string {
	return e.err.Error() + " (lock and validate the keys where they live now)"
}
func (e *replanError) Unwrap() []error { return []error{errReplan, e.err} }

func replanOnMove(err error) error {
	if errors.Is(err, cluster.ErrWrongOwner) {
		return &replanError{err}
	}
	return err
}

// lockForCommit locks the keys a Commit call names to lock, unless the
// transaction committed already (the call is asked again).
func (s *Server) lockForCommit(ctx context.Context, id locks.UUID, r *pb.TxCommitRequest, p txEntry) error {
	if p.m != nil {
		rec, found, err := s.lockOf(p.m, p.pid, p.key)
		if err != nil {
			return err
		}
		if t := rec.Txn; found && t != nil && t.ID == id && t.State == locks.Committed {
			return nil
		}
	}
	if err := checkLease(r.LeaseMs); err != nil {
		return err
	}
	entries, err := s.txEntries(len(r.Lock), func(i int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		e := r.Lock[i]
		return e.Map, e.Key, e.Expect, e.Intent, e.Value
	}, true)
	if err != nil {
		return err
	}
	return s.lockAll(ctx, id, s.clientOf(ctx), time.Duration(r.LeaseMs)*time.Millisecond, 0, r.Primary, entries, nil)
}

// finishTimeout bounds a member's finishing of a transaction it committed.
const finishTimeout = 30 * time.Second

// finishLocally applies a transaction's secondaries, all of this member's
// partitions, and releases their locks and then the primary's, after the
// commit answered. What it cannot finish (the member stopping, a
// partition moving) its locks leave to whoever meets them.
func (s *Server) finishLocally(id locks.UUID, p txEntry, secondaries []locks.Key) {
	ctx, cancel := context.WithTimeout(s.life, finishTimeout)
	defer cancel()
	for _, k := range secondaries {
		m, err := s.withLocks(k.Map)
		if err == nil && m != nil {
			_, err = s.releaseTxn(ctx, m, s.partitionOf(k.Key), k.Key, id, true, 0, nil)
		}
		if err != nil {
			s.log.Debug("finishing a committed transaction failed; its locks roll it forward", "err", err)
			return
		}
	}
	if _, err := s.releaseTxn(ctx, p.m, p.pid, p.key, id, true, 0, func(t *locks.Txn) bool { return t.State == locks.Committed }); err != nil {
		s.log.Debug("releasing a committed transaction's primary failed; its lease ends it", "err", err)
	}
}

// lostPrimary answers a commit that found no lock of its transaction on
// the primary: committed when someone rolled it forward, else a conflict.
func (s *Server) lostPrimary(id locks.UUID, p txEntry) error {
	o, found, err := s.outcomeOf(id, p.pid)
	if err != nil {
		return err
	}
	switch {
	case found && o == locks.OutcomeCommitted:
		return nil
	case found:
		s.cfg.Transactions.Abort(metrics.AbortAborted)
		return conflict(pb.ConflictCause_CONFLICT_CAUSE_ABORTED, p.name(), p.key, "the transaction's lease ended and another rolled it back")
	}
	// No lock and no outcome: the transaction was never locked here, or
	// it committed and was finished (asked again after a lost answer).
	return fmt.Errorf("%w: the transaction holds no lock on its primary key (of map %q) and no outcome of it is kept", ErrNotFound, p.name())
}

// commitOnePhase checks and applies a transaction of one key, leaving no
// lock: the key must be unlocked (or locked by its own client) and still
// as read.
func (s *Server) commitOnePhase(ctx context.Context, id locks.UUID, entry *pb.TxLockEntry, validate []txEntry) error {
	es, err := s.txEntries(1, func(int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		return entry.Map, entry.Key, entry.Expect, entry.Intent, entry.Value
	}, true)
	if err != nil {
		return err
	}
	e := es[0]
	client := s.clientOf(ctx)
	for {
		var outcome lockOutcome
		var rec locks.Record
		err := s.validated(ctx, id, validate, es, &e, func() error {
			var err error
			rec, _, err = s.lockOf(e.m, e.pid, e.key)
			if err != nil {
				return err
			}
			now := s.nowMs()
			if t := rec.Txn; t != nil {
				outcome = lockHeld
				if t.State == locks.Committed || t.Expired(now) {
					outcome = lockResolve
				}
				return nil
			}
			if h := rec.Hold; h != nil && h.Owner != client {
				outcome = lockHeld
				if h.Expired(now) {
					outcome = lockResolve
				}
				return nil
			}
			found, version, cur, err := current(e.m, e.pid, e.key)
			if err != nil {
				return err
			}
			if !expectHolds(e.expect, found, version, cur) {
				outcome = lockChanged
				return nil
			}
			outcome = lockTaken
			return applyIntent(e.m, e.pid, e.key, &locks.Txn{Intent: e.intent, Value: e.value})
		})
		if err != nil {
			return err
		}
		switch outcome {
		case lockTaken:
			s.cfg.Transactions.Commit(metrics.CommitOnePhase)
			return nil
		case lockChanged:
			s.cfg.Transactions.Abort(metrics.AbortChanged)
			return conflict(pb.ConflictCause_CONFLICT_CAUSE_CHANGED, e.m.Name(), e.key, "the key changed since the transaction read it")
		case lockResolve:
			changed, err := s.resolved(ctx, e.m, e.pid, e.key, rec)
			if err != nil {
				return err
			}
			if changed {
				continue
			}
		}
		s.cfg.Transactions.Abort(metrics.AbortLocked)
		return conflict(pb.ConflictCause_CONFLICT_CAUSE_LOCKED, e.m.Name(), e.key, "the key is locked by another")
	}
}

// txRelease applies (apply) or rolls back a transaction's keys of this
// member's partitions.
func (s *Server) txRelease(ctx context.Context, r *pb.TxReleaseRequest, apply bool) (*pb.Empty, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	entries, err := s.txEntries(len(r.Keys), func(i int) (string, []byte, *pb.TxExpect, pb.TxIntent, []byte) {
		return r.Keys[i].Map, r.Keys[i].Key, nil, pb.TxIntent_TX_INTENT_NONE, nil
	}, false)
	if err != nil {
		return nil, err
	}
	var refused error
	when := func(t *locks.Txn) bool {
		if t.Primary && (t.State == locks.Committed) != apply {
			if apply {
				refused = invalid("apply of a primary that has not committed")
			} else {
				refused = invalid("rollback of a transaction that committed")
			}
			return false
		}
		return true
	}
	for _, e := range entries {
		if e.m == nil {
			continue // no such map here: nothing locked
		}
		if _, err := s.releaseTxn(ctx, e.m, e.pid, e.key, id, apply, 0, when); err != nil {
			return nil, err
		}
		if refused != nil {
			return nil, refused
		}
	}
	return &pb.Empty{}, nil
}
