package server

// Per-key locks of plain maps (IMap.lock): held by a client session,
// reentrant, leased, in the same lock table as transactions.

import (
	"context"
	"fmt"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
)

// sessionClient returns the client of the call's session, or fails: a
// client's lock needs a client (a connection that Connected).
func (s *Server) sessionClient(ctx context.Context) (locks.UUID, error) {
	c := s.clientOf(ctx)
	if c == (locks.UUID{}) {
		return c, invalid("locks are held by client sessions, and this connection opened none (a client calls Connect on it first)")
	}
	return c, nil
}

func leaseOf(ms int64, what string) (time.Duration, error) {
	if ms < 1 || time.Duration(ms)*time.Millisecond > maxLease {
		return 0, invalid("%s %d ms is not in 1..%d", what, ms, maxLease.Milliseconds())
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// lock takes a client's lock of a key, waiting up to wait_ms while
// another holds it.
func (s *Server) lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	client, err := s.sessionClient(ctx)
	if err != nil {
		return nil, err
	}
	session := r.LeaseMs == nil
	var lease time.Duration
	if session {
		lease, err = leaseOf(r.SessionLeaseMs, "session_lease_ms")
	} else {
		lease, err = leaseOf(*r.LeaseMs, "lease_ms")
	}
	if err != nil {
		return nil, err
	}
	if r.WaitMs < 0 {
		return nil, invalid("wait_ms %d is negative", r.WaitMs)
	}
	m, pid, err := s.target(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(time.Duration(r.WaitMs) * time.Millisecond)
	var waitStart time.Time
	defer func() {
		if !waitStart.IsZero() {
			s.cfg.Transactions.Waited(time.Since(waitStart).Seconds())
		}
	}()
	for {
		changed := s.waiters.Watch(pid, m.Name(), r.Key)
		var rec locks.Record
		var acquired bool
		var b blocking
		err := s.write(ctx, m, pid, func() error {
			return s.latched(pid, m.Name(), r.Key, func() (err error) {
				if rec, _, err = s.lockOf(m, pid, r.Key); err != nil {
					return err
				}
				now := s.nowMs()
				if b = blocks(rec, accessWrite, client, locks.UUID{}, now, false); b != free {
					return nil
				}
				if h := rec.Hold; h != nil && h.Owner == client && !h.Expired(now) {
					h.Count++
					h.Deadline, h.Session = now+lease.Milliseconds(), session
				} else {
					rec.Hold = &locks.Hold{Owner: client, Count: 1, Deadline: now + lease.Milliseconds(), Session: session}
				}
				acquired = true
				return s.putLock(m, pid, r.Key, rec)
			})
		})
		if err != nil || acquired {
			return &pb.LockResponse{Acquired: acquired}, err
		}
		if b == resolve {
			changed, err := s.resolved(ctx, m, pid, r.Key, rec)
			if err != nil {
				return nil, err
			}
			if changed {
				continue
			}
		}
		if !time.Now().Before(deadline) {
			return &pb.LockResponse{}, nil
		}
		if waitStart.IsZero() {
			waitStart = time.Now()
		}
		poll := min(time.Until(deadline), resolveAfter)
		if rec.Txn != nil && time.Since(waitStart) >= resolveAfter {
			// A transaction's lock: ask its primary now and then.
			if progress, err := s.resolveKey(ctx, m, pid, r.Key, rec, false); err != nil {
				return nil, err
			} else if progress {
				continue
			}
			poll = min(time.Until(deadline), maxLockPoll)
		}
		if err := s.waitLock(ctx, changed, rec, s.nowMs(), poll); err != nil {
			return nil, err
		}
	}
}

// unlock releases the calling client's lock of a key once.
func (s *Server) unlock(ctx context.Context, r *pb.KeyRequest) (*pb.Empty, error) {
	client, err := s.sessionClient(ctx)
	if err != nil {
		return nil, err
	}
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	notOwner := fmt.Errorf("%w: this client holds no lock on the key of map %q", ErrNotLockOwner, r.Map)
	if m = s.lockedMap(m, r.Map); m == nil {
		return nil, notOwner
	}
	held := false
	err = s.write(ctx, m, pid, func() error {
		return s.latched(pid, m.Name(), r.Key, func() error {
			rec, _, err := s.lockOf(m, pid, r.Key)
			if err != nil {
				return err
			}
			h := rec.Hold
			if h == nil || h.Owner != client || h.Expired(s.nowMs()) {
				return nil
			}
			held = true
			if h.Count--; h.Count == 0 {
				rec.Hold = nil
			}
			return s.putLock(m, pid, r.Key, rec)
		})
	})
	if err == nil && !held {
		err = notOwner
	}
	return &pb.Empty{}, err
}

// lockedMap returns m, or when it is nil (no such map here) the map if
// this member has locks of it.
func (s *Server) lockedMap(m *maps.Map, name string) *maps.Map {
	if m != nil {
		return m
	}
	m, _ = s.withLocks(name)
	return m
}

// isLocked reports a key's lock. Locks whose lease is over are resolved
// first: they are not locks any more.
func (s *Server) isLocked(ctx context.Context, r *pb.KeyRequest) (*pb.LockState, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	if m = s.lockedMap(m, r.Map); m == nil {
		return &pb.LockState{}, nil
	}
	client := s.clientOf(ctx)
	for {
		rec, found, err := s.lockOf(m, pid, r.Key)
		if err != nil || !found {
			return &pb.LockState{}, err
		}
		now := s.nowMs()
		// Locks whose lease is over, and transactions that committed, are
		// no locks any more once resolved.
		if rec.Hold != nil && rec.Hold.Expired(now) || rec.Txn != nil && (rec.Txn.Expired(now) || rec.Txn.State == locks.Committed) {
			progress, err := s.resolveKey(ctx, m, pid, r.Key, rec, false)
			if err != nil {
				return nil, err
			}
			if progress {
				continue
			}
		}
		st := &pb.LockState{}
		if h := rec.Hold; h != nil && !h.Expired(now) {
			st.Locked, st.HeldByCaller, st.Count = true, h.Owner == client, int32(h.Count)
			st.RemainingLeaseMs = h.Deadline - now
		}
		if t := rec.Txn; t != nil {
			st.Locked, st.Transaction = true, true
			st.RemainingLeaseMs = max(st.RemainingLeaseMs, t.Deadline-now, 0)
			if st.Count == 0 {
				st.Count = 1
			}
		}
		return st, nil
	}
}

// forceUnlock releases a key's client lock whoever holds it, and resolves
// a transaction's lock from its primary (forward when committed, back
// otherwise: the transaction is aborted if it had not committed).
func (s *Server) forceUnlock(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	m, pid, err := s.existing(r.Map, r.Key)
	if err != nil {
		return nil, err
	}
	if m = s.lockedMap(m, r.Map); m == nil {
		return &pb.BoolResponse{}, nil
	}
	rec, found, err := s.lockOf(m, pid, r.Key)
	if err != nil || !found {
		return &pb.BoolResponse{}, err
	}
	if _, err := s.resolveKey(ctx, m, pid, r.Key, rec, true); err != nil {
		return nil, err
	}
	return &pb.BoolResponse{Value: true}, nil
}

// renewLocks extends the calling client's session locks.
func (s *Server) renewLocks(ctx context.Context, r *pb.RenewLocksRequest) (*pb.RenewLocksResponse, error) {
	client, err := s.sessionClient(ctx)
	if err != nil {
		return nil, err
	}
	lease, err := leaseOf(r.LeaseMs, "lease_ms")
	if err != nil {
		return nil, err
	}
	if err := s.checkBatch("renewLocks", len(r.Keys)); err != nil {
		return nil, err
	}
	resp := &pb.RenewLocksResponse{}
	for _, k := range r.Keys {
		m, pid, err := s.existing(k.Map, k.Key)
		if err != nil {
			return nil, err
		}
		held := false
		if m = s.lockedMap(m, k.Map); m != nil {
			err = s.write(ctx, m, pid, func() error {
				return s.latched(pid, m.Name(), k.Key, func() error {
					rec, _, err := s.lockOf(m, pid, k.Key)
					if err != nil {
						return err
					}
					now := s.nowMs()
					h := rec.Hold
					if h == nil || h.Owner != client || !h.Session || h.Expired(now) {
						return nil
					}
					held, h.Deadline = true, max(h.Deadline, now+lease.Milliseconds())
					return s.putLock(m, pid, k.Key, rec)
				})
			})
			if err != nil {
				return nil, err
			}
		}
		if !held {
			resp.Lost = append(resp.Lost, k)
		}
	}
	return resp, nil
}
