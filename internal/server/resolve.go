package server

// Resolving locks through other members, the members' side of
// ResolveTransaction, client sessions, and the sweep that resolves the
// locks nobody meets.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/locks"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
)

// onOwner runs a call on the owner of partition pid: local when this
// member owns it, else remote on the owner's connection. A retryable
// failure (the partition moved, its owner is gone) is tried again against
// the current table until ctx ends.
func (s *Server) onOwner(ctx context.Context, pid int32, local func() error, remote func(cc pb.TransactionServiceClient, rc memberv1.TransactionResolverServiceClient) error) error {
	backoff := 5 * time.Millisecond
	for {
		err := s.onOwnerOnce(pid, local, remote)
		if err == nil {
			return nil
		}
		if _, d := describe(err); !d.Retryable && status.Code(err) != codes.Canceled || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (then %v)", err, ctx.Err())
		case <-s.done:
			return ErrShuttingDown
		case <-time.After(backoff):
			backoff = min(2*backoff, 200*time.Millisecond)
		}
	}
}

func (s *Server) onOwnerOnce(pid int32, local func() error, remote func(pb.TransactionServiceClient, memberv1.TransactionResolverServiceClient) error) error {
	t := s.cfg.Table.Load()
	if t == nil {
		return fmt.Errorf("%w: no partition table yet", ErrUnavailable)
	}
	owner, ok := t.Owner(pid)
	if !ok {
		return fmt.Errorf("%w: partition %d has no owner (table version %d)", ErrUnavailable, pid, t.Version)
	}
	if owner.UUID == s.cfg.Self.UUID {
		return local()
	}
	if s.cfg.MemberConn == nil {
		return fmt.Errorf("%w: no connections to other members", ErrUnavailable)
	}
	cc, err := s.cfg.MemberConn(owner.Address)
	if err != nil {
		return fmt.Errorf("%w: member %s: %v", ErrUnavailable, owner.Address, err)
	}
	return remote(pb.NewTransactionServiceClient(cc), memberv1.NewTransactionResolverServiceClient(cc))
}

// withLocks returns map name for work on its locks: the map, created if
// this member has its lock map but no entry of its own yet (a backup that
// took over a partition where only locks of the map were).
func (s *Server) withLocks(name string) (*maps.Map, error) {
	if m, ok := s.cfg.Maps.Lookup(name); ok {
		return m, nil
	}
	if _, ok := s.cfg.Maps.Lookup(maps.LockMapName(name)); !ok {
		return nil, nil
	}
	return s.cfg.Maps.Replica(name)
}

// askPrimary asks the owner of transaction t's primary what became of it
// (ResolveTransaction); expired says the asking lock's lease is over.
func (s *Server) askPrimary(ctx context.Context, t *locks.Txn, expired bool) (locks.Outcome, error) {
	req := &memberv1.ResolveTransactionRequest{TxnId: t.ID[:], Map: t.PrimaryMap, Key: t.PrimaryKey, Expired: expired}
	var out memberv1.TransactionOutcome
	err := s.onOwner(ctx, s.partitionOf(t.PrimaryKey), func() (err error) {
		resp, err := s.resolveTransaction(ctx, req)
		if err == nil {
			out = resp.Outcome
		}
		return err
	}, func(_ pb.TransactionServiceClient, rc memberv1.TransactionResolverServiceClient) error {
		resp, err := rc.ResolveTransaction(ctx, req)
		if err == nil {
			out = resp.Outcome
		}
		return err
	})
	switch out {
	case memberv1.TransactionOutcome_TRANSACTION_OUTCOME_COMMITTED:
		return locks.OutcomeCommitted, err
	case memberv1.TransactionOutcome_TRANSACTION_OUTCOME_ABORTED:
		return locks.OutcomeAborted, err
	}
	return 0, err
}

// finishAt applies transaction id's write of key and releases its lock,
// on the key's owner (rolling a committed transaction forward).
func (s *Server) finishAt(ctx context.Context, key locks.Key, id locks.UUID) error {
	pid := s.partitionOf(key.Key)
	return s.onOwner(ctx, pid, func() error {
		m, err := s.withLocks(key.Map)
		if err != nil || m == nil {
			return err
		}
		done, err := s.releaseTxn(ctx, m, pid, key.Key, id, true, 0, nil)
		if done {
			s.cfg.Transactions.Resolved(metrics.ResolvedForward)
		}
		return err
	}, func(tc pb.TransactionServiceClient, _ memberv1.TransactionResolverServiceClient) error {
		_, err := tc.Apply(ctx, &pb.TxReleaseRequest{TxnId: id[:], Keys: []*pb.MapKey{{Map: key.Map, Key: key.Key}}})
		return err
	})
}

// resolveTransaction answers ResolveTransaction on the owner of the
// primary key: committed, aborted (now, when the primary lock's lease is
// over, or when it is absent and the asker's lease is over), or pending.
func (s *Server) resolveTransaction(ctx context.Context, r *memberv1.ResolveTransactionRequest) (*memberv1.ResolveTransactionResponse, error) {
	id, err := txIDOf(r.TxnId)
	if err != nil {
		return nil, err
	}
	if err := maps.CheckName(r.Map); err != nil {
		return nil, err
	}
	if err := s.checkData("key", r.Key); err != nil {
		return nil, err
	}
	pid := s.partitionOf(r.Key)
	if err := s.cfg.Cluster.CheckRead(pid); err != nil {
		return nil, err
	}
	m, err := s.withLocks(r.Map)
	if err != nil {
		return nil, err
	}
	out := memberv1.TransactionOutcome_TRANSACTION_OUTCOME_PENDING
	backups := s.cfg.Maps.ConfigOf(r.Map).BackupCount
	err = s.writeBackups(ctx, backups, pid, func() error {
		return s.latched(pid, r.Map, r.Key, func() error {
			if m != nil {
				rec, found, err := s.lockOf(m, pid, r.Key)
				if err != nil {
					return err
				}
				if t := rec.Txn; found && t != nil && t.ID == id {
					o, decided, err := s.outcomeOf(id, pid)
					if err != nil {
						return err
					}
					switch {
					case t.State == locks.Committed:
						out = memberv1.TransactionOutcome_TRANSACTION_OUTCOME_COMMITTED
					case decided && o == locks.OutcomeAborted || t.Expired(s.nowMs()):
						if err := s.storeOutcome(id, pid, locks.OutcomeAborted); err != nil {
							return err
						}
						rec.Txn = nil
						if err := s.putLock(m, pid, r.Key, rec); err != nil {
							return err
						}
						s.cfg.Transactions.Resolved(metrics.ResolvedBack)
						out = memberv1.TransactionOutcome_TRANSACTION_OUTCOME_ABORTED
					}
					return nil
				}
			}
			o, found, err := s.outcomeOf(id, pid)
			switch {
			case err != nil:
				return err
			case found && o == locks.OutcomeCommitted:
				out = memberv1.TransactionOutcome_TRANSACTION_OUTCOME_COMMITTED
			case found:
				out = memberv1.TransactionOutcome_TRANSACTION_OUTCOME_ABORTED
			case r.Expired:
				// Never locked (or long gone): the primary may never be
				// locked now, so the asker's lock can be rolled back.
				if err := s.storeOutcome(id, pid, locks.OutcomeAborted); err != nil {
					return err
				}
				out = memberv1.TransactionOutcome_TRANSACTION_OUTCOME_ABORTED
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return &memberv1.ResolveTransactionResponse{Outcome: out}, nil
}

type resolverService struct {
	memberv1.UnimplementedTransactionResolverServiceServer
	s *Server
}

func (r *resolverService) ResolveTransaction(ctx context.Context, req *memberv1.ResolveTransactionRequest) (*memberv1.ResolveTransactionResponse, error) {
	return r.s.resolveTransaction(ctx, req)
}

// sessions knows which client each accepted connection belongs to (from
// its Connect), and how many connections each client has to this member.
type sessions struct {
	mu     sync.Mutex
	byConn map[*cluster.Conn]locks.UUID
	conns  map[locks.UUID]int
}

func (ss *sessions) client(c *cluster.Conn) locks.UUID {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.byConn[c]
}

// open records that connection c belongs to client; it reports whether
// c is new (the caller then hooks its close).
func (ss *sessions) open(c *cluster.Conn, client locks.UUID) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.byConn == nil {
		ss.byConn, ss.conns = map[*cluster.Conn]locks.UUID{}, map[locks.UUID]int{}
	}
	if _, ok := ss.byConn[c]; ok {
		return false
	}
	ss.byConn[c] = client
	ss.conns[client]++
	return true
}

// close forgets connection c; ended reports that its client has no other
// connection to this member left.
func (ss *sessions) close(c *cluster.Conn) (client locks.UUID, ended bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	client, ok := ss.byConn[c]
	if !ok {
		return client, false
	}
	delete(ss.byConn, c)
	if ss.conns[client]--; ss.conns[client] > 0 {
		return client, false
	}
	delete(ss.conns, client)
	return client, true
}

// openSession ties the call's connection to the client that connected on
// it: its locks are released once its last connection here closes.
func (s *Server) openSession(ctx context.Context, client []byte) {
	id, err := locks.UUIDOf(client)
	if err != nil || id == (locks.UUID{}) {
		return
	}
	c := connOf(ctx)
	if c == nil || !s.sessions.open(c, id) {
		return
	}
	c.OnClose(func() {
		if id, ended := s.sessions.close(c); ended {
			go s.endSession(id)
		}
	})
}

// sessionEndTimeout bounds the work of releasing a client's locks.
const sessionEndTimeout = 30 * time.Second

// endSession releases what a client whose last connection to this member
// closed holds in the partitions this member owns: its locks are
// released, and its transactions resolved as if their leases were over
// (rolled forward when committed, back otherwise).
func (s *Server) endSession(client locks.UUID) {
	ctx, cancel := context.WithTimeout(s.life, sessionEndTimeout)
	defer cancel()
	s.sweepLocks(ctx, func(rec locks.Record, _ int64) (locks.Record, bool) {
		var mine locks.Record
		if rec.Hold != nil && rec.Hold.Owner == client {
			mine.Hold = rec.Hold
		}
		if rec.Txn != nil && rec.Txn.Client == client {
			mine.Txn = rec.Txn
		}
		return mine, true
	})
}

// ResolveExpired resolves the locks of the partitions this member owns
// whose lease is over (rolling their transactions forward or back, from
// their primaries' states), so that no lock outlives its lease by more
// than a sweep interval even when nobody meets it. It stops after timeout
// or when ctx ends or the server drains, and returns how many lock records
// it resolved.
func (s *Server) ResolveExpired(ctx context.Context, timeout time.Duration) int {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(s.life, cancel)
	defer stop()
	return s.sweepLocks(ctx, func(rec locks.Record, now int64) (locks.Record, bool) {
		if rec.Hold != nil && rec.Hold.Expired(now) || rec.Txn != nil && rec.Txn.Expired(now) {
			return rec, false
		}
		return locks.Record{}, false
	})
}

// sweepLocks resolves, in the lock records of owned partitions, the locks
// pick returns (none: the record is left alone; force: as if expired),
// and returns how many records it changed.
func (s *Server) sweepLocks(ctx context.Context, pick func(rec locks.Record, nowMs int64) (chosen locks.Record, force bool)) int {
	type found struct {
		key   []byte
		rec   locks.Record
		force bool
	}
	resolved := 0
	for _, lm := range s.cfg.Maps.All() {
		name, ok := maps.LockedMapName(lm.Name())
		if !ok {
			continue
		}
		m, err := s.withLocks(name)
		if err != nil || m == nil {
			continue
		}
		for pid := int32(0); pid < int32(s.cfg.Maps.PartitionCount()); pid++ {
			if !s.cfg.Cluster.Owned(pid) {
				continue
			}
			if n, _ := lm.Store.PartitionSize(pid); n == 0 {
				continue
			}
			var todo []found
			now := s.nowMs()
			_ = lm.Store.ScanKV(pid, func(k, v []byte) bool {
				rec, err := locks.Decode(v)
				if err != nil {
					return true
				}
				if chosen, force := pick(rec, now); !chosen.Empty() {
					todo = append(todo, found{key: append([]byte(nil), k...), rec: chosen, force: force})
				}
				return true
			})
			for _, f := range todo {
				if ctx.Err() != nil {
					return resolved
				}
				if progress, err := s.resolveKey(ctx, m, pid, f.key, f.rec, f.force); err != nil {
					s.log.Debug("resolving a lock failed; the next sweep tries again", "map", name, "partition", pid, "err", err)
				} else if progress {
					resolved++
				}
			}
		}
	}
	return resolved
}
