package server

// The lock table: the locks of a map's keys are entries of its lock map
// (maps.LockMapName), written like any entry of the key's partition, so
// that they reach the synchronous backups before a call returns, move with
// migrations and survive the owner's death. Every operation that looks at
// a key's lock and then changes the key or the lock does both under the
// key's latch (locks.Latches), inside the partition's write admission
// (write): a plain write cannot slip between a transaction's version check
// and its lock, nor a lock between a plain write's check and its change.
// Waiting for a lock, and resolving one through another member, happen
// outside both.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/peer"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/store"
)

// ErrNotLockOwner: an Unlock of a key the caller holds no lock on.
var ErrNotLockOwner = errors.New("server: not the lock's owner")

// ConflictError is a transaction's lost conflict (ERROR_CODE_CONFLICT):
// the client retries the whole transaction.
type ConflictError struct {
	Cause pb.ConflictCause
	Map   string
	Key   []byte
	// Why says what was found, for the message.
	Why string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("transaction conflict on a key of map %q: %s", e.Map, e.Why)
}

// errConflict is what ConflictErrors match.
var errConflict = errors.New("server: transaction conflict")

// Unwrap makes the error match errConflict.
func (e *ConflictError) Unwrap() error { return errConflict }

func conflict(cause pb.ConflictCause, m string, key []byte, why string) *ConflictError {
	return &ConflictError{Cause: cause, Map: m, Key: key, Why: why}
}

// outcomeTTL is how long an outcome record of a transaction that someone
// other than its client finished is kept: far longer than any client
// takes to ask again for the commit it sent.
const outcomeTTL = 10 * time.Minute

// resolveAfter is how long a call waits for a transaction's lock before it
// asks the transaction's primary whether it can resolve it (a committed
// transaction is rolled forward at once; the wait lets its client do it).
const resolveAfter = 20 * time.Millisecond

// maxLockPoll bounds one wait for a lock between looks at it: a lock can
// change without a notification here (its partition moved away, or a
// backup copy was promoted).
const maxLockPoll = 250 * time.Millisecond

// nowMs is the member's clock in Unix milliseconds: lock leases are read
// against it.
func (s *Server) nowMs() int64 {
	if s.cfg.Clock != nil {
		return s.cfg.Clock.Now().UnixMilli()
	}
	return time.Now().UnixMilli()
}

// lockOf reads the lock record of key of map m in partition pid; found is
// false when the key is not locked. It takes no latch: a caller that acts
// on what it read reads it again under the key's latch.
func (s *Server) lockOf(m *maps.Map, pid int32, key []byte) (rec locks.Record, found bool, err error) {
	lm := m.Locks()
	if lm == nil {
		return rec, false, nil
	}
	if n, _ := lm.Store.PartitionSize(pid); n == 0 {
		return rec, false, nil
	}
	var derr error
	err = lm.Store.PeekAll(pid, [][]byte{key}, func(_, v []byte) {
		rec, derr = locks.Decode(v)
		found = derr == nil
	})
	if err == nil {
		err = derr
	}
	return rec, found, err
}

// putLock stores rec as key's lock record (removing it when empty) and
// wakes the calls that wait for the key. The key's latch must be held,
// inside the partition's write admission.
func (s *Server) putLock(m *maps.Map, pid int32, key []byte, rec locks.Record) error {
	lm, err := s.cfg.Maps.LocksOf(m)
	if err != nil {
		return err
	}
	defer s.waiters.Notify(pid, m.Name(), key)
	if rec.Empty() {
		_, err := lm.Store.Delete(pid, key)
		return err
	}
	b, err := locks.Encode(nil, rec)
	if err != nil {
		return err
	}
	return lm.Store.Set(pid, key, b, store.Expiry{})
}

// latched runs fn under the latch of key.
func (s *Server) latched(pid int32, mapName string, key []byte, fn func() error) error {
	i := s.latches.Stripe(pid, mapName, key)
	s.latches.Lock(i)
	defer s.latches.Unlock(i)
	return fn()
}

// writeBackups is write for a change that waits for backups synchronous
// backups (write: the map's). fn must not wait for anything but the
// store: the partition's handoff waits for the writes it admitted.
func (s *Server) writeBackups(ctx context.Context, backups int, pid int32, fn func() error) error {
	w, err := s.cfg.Cluster.BeginWrite(pid, backups)
	if err != nil {
		return err
	}
	werr := fn()
	if eerr := w.End().Wait(ctx); werr == nil {
		werr = eerr
	}
	return werr
}

// applyIntent applies a transaction's write of key to the map.
func applyIntent(m *maps.Map, pid int32, key []byte, t *locks.Txn) error {
	switch t.Intent {
	case locks.IntentPut:
		m.CountSet()
		return m.Store.Set(pid, key, t.Value, store.Expiry{})
	case locks.IntentRemove:
		m.CountRemove()
		_, err := m.Store.Delete(pid, key)
		return err
	}
	return nil
}

// storeOutcome records what became of transaction id, whose primary lives
// in partition pid, for a client that asks after someone else finished
// it. It runs inside the partition's write admission.
func (s *Server) storeOutcome(id locks.UUID, pid int32, o locks.Outcome) error {
	om, err := s.cfg.Maps.System(maps.OutcomeMapName)
	if err != nil {
		return err
	}
	k := locks.OutcomeKey(id, pid, int32(s.cfg.Maps.PartitionCount()))
	return om.Store.Set(pid, k, locks.EncodeOutcome(o), store.Expiry{TTL: outcomeTTL})
}

// outcomeOf reads transaction id's outcome record, if any.
func (s *Server) outcomeOf(id locks.UUID, pid int32) (locks.Outcome, bool, error) {
	om, ok := s.cfg.Maps.Lookup(maps.OutcomeMapName)
	if !ok {
		return 0, false, nil
	}
	v, found, err := om.Store.Get(pid, locks.OutcomeKey(id, pid, int32(s.cfg.Maps.PartitionCount())))
	if err != nil || !found {
		return 0, false, err
	}
	o, err := locks.DecodeOutcome(v)
	return o, err == nil, err
}

// releaseTxn ends transaction id's lock of key when when (nil: always)
// approves of it under the key's latch: it applies the key's write first
// when apply, and for a primary records outcome (0: none). done reports
// whether the lock was there and ended.
func (s *Server) releaseTxn(ctx context.Context, m *maps.Map, pid int32, key []byte, id locks.UUID, apply bool, outcome locks.Outcome, when func(*locks.Txn) bool) (done bool, err error) {
	err = s.write(ctx, m, pid, func() error {
		return s.latched(pid, m.Name(), key, func() error {
			rec, found, err := s.lockOf(m, pid, key)
			if err != nil || !found || rec.Txn == nil || rec.Txn.ID != id {
				return err
			}
			t := rec.Txn
			if when != nil && !when(t) {
				return nil
			}
			// Applying again what is in already is harmless: the key was
			// locked all along, so nothing else wrote it.
			if apply {
				if err := applyIntent(m, pid, key, t); err != nil {
					return err
				}
			}
			if t.Primary && outcome != 0 {
				if err := s.storeOutcome(id, pid, outcome); err != nil {
					return err
				}
			}
			rec.Txn = nil
			if rec.Hold != nil && rec.Hold.Expired(s.nowMs()) {
				rec.Hold = nil
			}
			done = true
			return s.putLock(m, pid, key, rec)
		})
	})
	return done, err
}

// releaseHold ends a client's lock of key, whatever its count, when it is
// still the lock of owner and has expired (or force).
func (s *Server) releaseHold(ctx context.Context, m *maps.Map, pid int32, key []byte, owner locks.UUID, force bool) (done bool, err error) {
	err = s.write(ctx, m, pid, func() error {
		return s.latched(pid, m.Name(), key, func() error {
			rec, found, err := s.lockOf(m, pid, key)
			if err != nil || !found || rec.Hold == nil || rec.Hold.Owner != owner {
				return err
			}
			if !force && !rec.Hold.Expired(s.nowMs()) {
				return nil
			}
			rec.Hold, done = nil, true
			return s.putLock(m, pid, key, rec)
		})
	})
	if done {
		s.cfg.Transactions.Resolved(metrics.ResolvedReleased)
	}
	return done, err
}

// keyAccess is what a plain map operation does with a key.
type keyAccess uint8

const (
	// accessRead reads: it waits for a transaction's write that may have
	// taken effect (a write lock not yet applied), not for read locks or
	// a client's lock.
	accessRead keyAccess = iota
	// accessWrite writes: it waits for any lock but the caller's own
	// client lock.
	accessWrite
)

// blocking says how a lock record stands in the way of an access.
type blocking uint8

const (
	free    blocking = iota // no lock in the way
	held                    // a live lock in the way: wait
	resolve                 // a lock in the way that can be resolved now
)

// blocks says whether rec blocks access by caller at nowMs; hides says
// the record hides a write from readers of the key's value
// (locks.Record.Hides).
func blocks(rec locks.Record, access keyAccess, caller locks.UUID, txid locks.UUID, nowMs int64, hides bool) blocking {
	if t := rec.Txn; t != nil && t.ID != txid && (access == accessWrite || hides) {
		if t.Expired(nowMs) {
			return resolve
		}
		return held
	}
	if h := rec.Hold; h != nil && access == accessWrite && h.Owner != caller {
		if h.Expired(nowMs) {
			return resolve
		}
		return held
	}
	return free
}

// awaitKey waits until no lock of another stands in the way of access to
// key by caller (in transaction txid, if any): it waits for live locks,
// resolves expired ones, and asks the primary of a transaction lock it has
// waited for past resolveAfter whether it can be rolled forward or back.
// It returns at once when the map has no lock in the key's partition.
func (s *Server) awaitKey(ctx context.Context, m *maps.Map, pid int32, key []byte, access keyAccess, caller, txid locks.UUID) error {
	if m.Locks() == nil {
		return nil
	}
	var start time.Time
	nextResolve := resolveAfter
	for {
		rec, b, err := s.blocker(m, pid, key, access, caller, txid)
		if err != nil || b == free {
			return s.waited(start, pid, err)
		}
		if in := inlineOf(ctx); in != nil {
			// Run by the framed pipeline's reader, which must not wait:
			// nothing changed yet, the call runs again on its own.
			in.wouldWait = true
			return errWouldWait
		}
		// Watch, then look again: a release between the two looks is seen
		// by the second, one after it closes the channel.
		changed := s.waiters.Watch(pid, m.Name(), key)
		if rec, b, err = s.blocker(m, pid, key, access, caller, txid); err != nil || b == free {
			return s.waited(start, pid, err)
		}
		if start.IsZero() {
			start = time.Now()
		}
		if b == resolve || (rec.Txn != nil && time.Since(start) >= nextResolve) {
			progress, err := s.resolveKey(ctx, m, pid, key, rec, false)
			if err != nil && ctx.Err() != nil {
				return s.waited(start, pid, ctx.Err())
			}
			if progress {
				continue
			}
			nextResolve = min(2*nextResolve+resolveAfter, time.Since(start)+maxLockPoll)
		}
		if err := s.waitLock(ctx, changed, rec, s.nowMs(), nextResolve-time.Since(start)); err != nil {
			return s.waited(start, pid, err)
		}
	}
}

// blocker reads key's lock and says how it stands in the way of access.
func (s *Server) blocker(m *maps.Map, pid int32, key []byte, access keyAccess, caller, txid locks.UUID) (locks.Record, blocking, error) {
	rec, found, err := s.lockOf(m, pid, key)
	if err != nil || !found {
		return rec, free, err
	}
	hides, err := s.hides(m, pid, key, rec)
	if err != nil {
		return rec, free, err
	}
	return rec, blocks(rec, access, caller, txid, s.nowMs(), hides), nil
}

// hides reports whether rec hides a write of a transaction from readers of
// key's value as the map holds it now.
func (s *Server) hides(m *maps.Map, pid int32, key []byte, rec locks.Record) (bool, error) {
	if rec.Txn == nil || rec.Txn.Intent == locks.IntentNone {
		return false, nil
	}
	found, _, value, err := current(m, pid, key)
	return rec.Hides(found, value), err
}

// waited ends a wait for a lock that started at start (zero: no wait):
// it records the wait, and since the partition may have moved meanwhile,
// checks that this member still owns it.
func (s *Server) waited(start time.Time, pid int32, err error) error {
	if start.IsZero() {
		return err
	}
	s.cfg.Transactions.Waited(time.Since(start).Seconds())
	if err != nil {
		return err
	}
	return s.cfg.Cluster.CheckRead(pid)
}

// waitLock waits for a change of the lock rec (notified on changed), the
// end of its lease, at most poll, or ctx's end.
func (s *Server) waitLock(ctx context.Context, changed <-chan struct{}, rec locks.Record, nowMs int64, poll time.Duration) error {
	d := min(max(poll, time.Millisecond), maxLockPoll)
	for _, deadline := range []int64{deadlineOf(rec.Txn), holdDeadline(rec.Hold)} {
		if deadline > 0 {
			d = min(d, time.Duration(max(deadline-nowMs, 1))*time.Millisecond)
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-changed:
		return nil
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return ErrShuttingDown
	}
}

func deadlineOf(t *locks.Txn) int64 {
	if t == nil {
		return 0
	}
	return t.Deadline
}

func holdDeadline(h *locks.Hold) int64 {
	if h == nil {
		return 0
	}
	return h.Deadline
}

// resolveKey resolves the locks of rec, key's lock record, that can be
// resolved: a client lock whose lease is over is released; a committed
// transaction is rolled forward; a transaction that did not commit and
// whose lease is over is rolled back (from its primary's state, for a
// secondary). force treats every lock as expired (ForceUnlock, the end of
// its client's session). progress reports whether a lock ended.
func (s *Server) resolveKey(ctx context.Context, m *maps.Map, pid int32, key []byte, rec locks.Record, force bool) (progress bool, err error) {
	now := s.nowMs()
	if h := rec.Hold; h != nil && (force || h.Expired(now)) {
		done, err := s.releaseHold(ctx, m, pid, key, h.Owner, force)
		if err != nil {
			return false, err
		}
		progress = progress || done
	}
	t := rec.Txn
	if t == nil {
		return progress, nil
	}
	expired := force || t.Expired(now)
	if t.Primary {
		switch {
		case t.State == locks.Committed:
			done, err := s.rollForward(ctx, m, pid, key, t)
			return progress || done, err
		case expired:
			done, err := s.releaseTxn(ctx, m, pid, key, t.ID, false, locks.OutcomeAborted, func(cur *locks.Txn) bool {
				return cur.State == locks.Prepared && (force || cur.Expired(s.nowMs()))
			})
			if done {
				s.cfg.Transactions.Resolved(metrics.ResolvedBack)
			}
			return progress || done, err
		}
		return progress, nil
	}
	outcome, err := s.askPrimary(ctx, t, expired)
	if err != nil {
		return progress, err
	}
	switch outcome {
	case locks.OutcomeCommitted:
		done, err := s.releaseTxn(ctx, m, pid, key, t.ID, true, 0, nil)
		if done {
			s.cfg.Transactions.Resolved(metrics.ResolvedForward)
		}
		return progress || done, err
	case locks.OutcomeAborted:
		done, err := s.releaseTxn(ctx, m, pid, key, t.ID, false, 0, nil)
		if done {
			s.cfg.Transactions.Resolved(metrics.ResolvedBack)
		}
		return progress || done, err
	}
	return progress, nil
}

// resolved resolves rec, key's lock record, and reports whether the key's
// lock changed since rec was read: resolved by this call, or by another
// (its client, a sweep) meanwhile. When it did not, the lock stands.
func (s *Server) resolved(ctx context.Context, m *maps.Map, pid int32, key []byte, rec locks.Record) (bool, error) {
	progress, err := s.resolveKey(ctx, m, pid, key, rec, false)
	if err != nil || progress {
		return progress, err
	}
	now, _, err := s.lockOf(m, pid, key)
	if err != nil {
		return false, err
	}
	sameTxn := (now.Txn == nil) == (rec.Txn == nil) && (now.Txn == nil || now.Txn.ID == rec.Txn.ID && now.Txn.State == rec.Txn.State)
	sameHold := (now.Hold == nil) == (rec.Hold == nil) && (now.Hold == nil || now.Hold.Owner == rec.Hold.Owner)
	return !sameTxn || !sameHold, nil
}

// rollForward finishes a committed transaction whose primary lock is t:
// every secondary's write is applied and its lock released (on its
// owner), then the primary's, leaving an outcome record for the client.
func (s *Server) rollForward(ctx context.Context, m *maps.Map, pid int32, key []byte, t *locks.Txn) (bool, error) {
	for _, sec := range t.Secondaries {
		if err := s.finishAt(ctx, sec, t.ID); err != nil {
			return false, err
		}
	}
	done, err := s.releaseTxn(ctx, m, pid, key, t.ID, true, locks.OutcomeCommitted, func(cur *locks.Txn) bool {
		return cur.State == locks.Committed
	})
	if done {
		s.cfg.Transactions.Resolved(metrics.ResolvedForward)
	}
	return done, err
}

// clientOf returns the client whose connection a call arrived on (zero for
// members and connections that did not Connect).
func (s *Server) clientOf(ctx context.Context) locks.UUID {
	c := connOf(ctx)
	if c == nil {
		return locks.UUID{}
	}
	return s.sessions.client(c)
}

// connOf returns the accepted connection a call arrived on, if known.
func connOf(ctx context.Context) *cluster.Conn {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil
	}
	info, ok := p.AuthInfo.(cluster.PeerInfo)
	if !ok {
		return nil
	}
	return info.Conn
}

// txIDOf checks a transaction id.
func txIDOf(b []byte) (locks.UUID, error) {
	id, err := locks.UUIDOf(b)
	if err != nil {
		return id, invalid("txn_id: %v", err)
	}
	if id == (locks.UUID{}) {
		return id, invalid("txn_id: the zero id names no transaction")
	}
	return id, nil
}
