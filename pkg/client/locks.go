package client

import (
	"context"
	"fmt"
	"sync"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Per-key locks, as Hazelcast's IMap.lock. A lock is held by the client
// (any goroutine of it may unlock it): reentrant, released by as many
// Unlocks as Locks, when its lease ends, or when the client's session
// ends (Close, or its connections to the key's owner closing). While a
// client holds a key, other clients' writes to it wait; reads do not.
// Transactions share the same locks: a transaction cannot lock a key
// another client holds, and Lock waits for a transaction's lock.

// LockOption configures Lock and TryLock.
type LockOption func(*lockOptions) error

type lockOptions struct {
	lease time.Duration // 0: a session lock
}

// WithLease gives the lock a lease: it is released after d whatever
// happens. Without it the lock holds for the client's session (the client
// renews it every Config.LockSessionLease/3 while it lives).
func WithLease(d time.Duration) LockOption {
	return func(o *lockOptions) error {
		if d < time.Millisecond {
			return fmt.Errorf("%w: lock lease %v is under a millisecond", ErrInvalidArgument, d)
		}
		o.lease = d
		return nil
	}
}

// lockWaitChunk bounds one Lock request's wait at the member; a longer
// wait sends another.
const lockWaitChunk = 30 * time.Second

// Lock locks key, waiting while another client or a transaction holds it,
// until ctx ends (ErrTimeout then).
func (m *Map[K, V]) Lock(ctx context.Context, key K, opts ...LockOption) error {
	for {
		wait := lockWaitChunk
		if dl, ok := ctx.Deadline(); ok {
			wait = min(wait, max(time.Until(dl), 0))
		}
		ok, err := m.tryLock(ctx, key, wait, opts)
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w: lock of a key of map %q: %w", ErrTimeout, m.name, err)
		}
	}
}

// TryLock locks key if it can within timeout (0: only if it is free now)
// and reports whether it did.
func (m *Map[K, V]) TryLock(ctx context.Context, key K, timeout time.Duration, opts ...LockOption) (bool, error) {
	if timeout < 0 {
		return false, fmt.Errorf("%w: negative timeout %v", ErrInvalidArgument, timeout)
	}
	return m.tryLock(ctx, key, timeout, opts)
}

func (m *Map[K, V]) tryLock(ctx context.Context, key K, wait time.Duration, opts []LockOption) (bool, error) {
	var o lockOptions
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return false, err
		}
	}
	req := &pb.LockRequest{Map: m.name, WaitMs: wait.Milliseconds()}
	if o.lease > 0 {
		ms := durationToMs(o.lease)
		req.LeaseMs = &ms
	} else {
		req.SessionLeaseMs = m.c.cfg.LockSessionLease.Milliseconds()
	}
	// The call may wait at the member for as long as it was asked to.
	callCtx, cancel := context.WithTimeout(ctx, wait+m.c.cfg.InvocationTimeout)
	defer cancel()
	var kd []byte
	resp, err := m.keyOp(callCtx, key, true, func(k []byte) *pb.PipelineRequest {
		kd = append(kd[:0], k...)
		req.Key = k
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Lock{Lock: req}}
	})
	if err != nil || !resp.GetLock().GetAcquired() {
		return false, err
	}
	if o.lease == 0 {
		m.c.sessionLocks.add(m.name, kd)
	}
	return true, nil
}

// Unlock releases the client's lock of key once (ErrNotLockOwner when it
// holds none).
func (m *Map[K, V]) Unlock(ctx context.Context, key K) error {
	var kd []byte
	_, err := m.keyOp(ctx, key, false, func(k []byte) *pb.PipelineRequest {
		kd = append(kd[:0], k...)
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_Unlock{Unlock: &pb.KeyRequest{Map: m.name, Key: k}}}
	})
	if err == nil {
		m.c.sessionLocks.remove(m.name, kd)
	}
	return err
}

// IsLocked reports whether key is locked, by any client or transaction.
func (m *Map[K, V]) IsLocked(ctx context.Context, key K) (bool, error) {
	st, err := m.LockState(ctx, key)
	return st.Locked, err
}

// LockState describes a key's lock.
type LockState struct {
	Locked bool
	// HeldByMe: this client holds it.
	HeldByMe bool
	// Transaction: a transaction holds it.
	Transaction bool
	// Count is how many times its holder took it.
	Count int
	// RemainingLease is how long its lease has left.
	RemainingLease time.Duration
}

// LockState returns key's lock.
func (m *Map[K, V]) LockState(ctx context.Context, key K) (LockState, error) {
	resp, err := m.keyOp(ctx, key, true, func(k []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_IsLocked{IsLocked: &pb.KeyRequest{Map: m.name, Key: k}}}
	})
	if err != nil {
		return LockState{}, err
	}
	st := resp.GetLockState()
	return LockState{Locked: st.GetLocked(), HeldByMe: st.GetHeldByCaller(), Transaction: st.GetTransaction(),
		Count: int(st.GetCount()), RemainingLease: time.Duration(st.GetRemainingLeaseMs()) * time.Millisecond}, nil
}

// ForceUnlock releases key's lock whoever holds it. A transaction's lock
// is resolved instead: its writes are applied if it committed, and it is
// aborted if it had not.
func (m *Map[K, V]) ForceUnlock(ctx context.Context, key K) error {
	_, err := m.keyOp(ctx, key, false, func(k []byte) *pb.PipelineRequest {
		return &pb.PipelineRequest{Op: &pb.PipelineRequest_ForceUnlock{ForceUnlock: &pb.KeyRequest{Map: m.name, Key: k}}}
	})
	return err
}

// sessionLocks are the session locks the client holds (taken without a
// lease of their own): it renews their leases while it lives.
type sessionLocks struct {
	mu   sync.Mutex
	held map[txKey]int
}

func (s *sessionLocks) add(mapName string, kd []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[txKey]int{}
	}
	s.held[txKey{m: mapName, k: string(kd)}]++
}

func (s *sessionLocks) remove(mapName string, kd []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := txKey{m: mapName, k: string(kd)}
	n, ok := s.held[k]
	switch {
	case !ok: // a lock with a lease of its own: not renewed
	case n <= 1:
		delete(s.held, k)
	default:
		s.held[k] = n - 1
	}
}

func (s *sessionLocks) keys() []txKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]txKey, 0, len(s.held))
	for k := range s.held {
		out = append(out, k)
	}
	return out
}

func (s *sessionLocks) lost(k txKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.held, k)
}

// renewSessionLocks renews the leases of the client's session locks every
// third of the session lease, until the client closes.
func (c *Client) renewSessionLocks() {
	defer c.bg.Done()
	t := time.NewTicker(c.cfg.LockSessionLease / 3)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		held := c.sessionLocks.keys()
		if len(held) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(c.life, c.cfg.LockSessionLease/3)
		keys := make([][]byte, len(held))
		for i, k := range held {
			keys[i] = []byte(k.k)
		}
		size := func(i int) int { return len(held[i].m) + len(keys[i]) + entryOverhead }
		err := c.invokeByOwner(ctx, keys, size, true, func(idx []int) *pb.PipelineRequest {
			req := &pb.RenewLocksRequest{LeaseMs: c.cfg.LockSessionLease.Milliseconds()}
			for _, i := range idx {
				req.Keys = append(req.Keys, &pb.MapKey{Map: held[i].m, Key: keys[i]})
			}
			return &pb.PipelineRequest{Op: &pb.PipelineRequest_RenewLocks{RenewLocks: req}}
		}, func(_ []int, resp *pb.PipelineResponse) ([]int, error) {
			for _, k := range resp.GetRenewLocks().GetLost() {
				c.log.Warn("a session lock was lost (its lease ended, or it was force-unlocked)", "map", k.Map)
				c.sessionLocks.lost(txKey{m: k.Map, k: string(k.Key)})
			}
			return nil, nil
		})
		cancel()
		if err != nil {
			c.log.Warn("renewing session locks failed; they end with their lease unless the next renewal succeeds", "err", err)
		}
	}
}
