package server

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/serialization/metaproto"
	"github.com/atolldb/atoll/pkg/serialization"
)

// DMLWriter carries out the writes of SQL DML statements (exec.Writer)
// as map operations: a key of a partition this member owns goes through
// the same handler as a client's call (owner check, synchronous backups,
// metrics), any other key is sent to its owner's MapService. A retryable
// failure (the partition moved, its owner is gone) is retried against the
// current partition table for up to RetryFor.
type DMLWriter struct {
	s         *Server
	local     entryCalls
	published sync.Map // Compact schema ids this writer made known to every member
	// Conn returns a connection to another member's client port.
	Conn func(addr string) (grpc.ClientConnInterface, error)
	// RetryFor bounds the retries of one write; 30 s when 0.
	RetryFor time.Duration
}

var _ exec.Writer = (*DMLWriter)(nil)

// DMLWriter returns the writer of this member's DML statements.
func (s *Server) DMLWriter(conn func(addr string) (grpc.ClientConnInterface, error)) *DMLWriter {
	return &DMLWriter{s: s, local: localCalls(s), Conn: conn}
}

// Write implements exec.Writer.
func (w *DMLWriter) Write(ctx context.Context, op exec.Write) (bool, error) {
	retryFor := w.RetryFor
	if retryFor <= 0 {
		retryFor = 30 * time.Second
	}
	if err := w.publish(ctx, op.Value); err != nil {
		return false, err
	}
	deadline := time.Now().Add(retryFor)
	backoff := 5 * time.Millisecond
	for retried := false; ; retried = true {
		changed, err := w.once(ctx, op, retried)
		if err == nil {
			return changed, nil
		}
		if _, d := describe(err); !d.Retryable || ctx.Err() != nil || time.Now().After(deadline) {
			return false, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(backoff):
			backoff = min(2*backoff, 500*time.Millisecond)
		}
	}
}

// publish makes the schema of a Compact value that DML built (from the
// mapping's columns, so possibly a schema no client ever sent) known to
// every member before any member has to store or read the value.
func (w *DMLWriter) publish(ctx context.Context, value []byte) error {
	if len(value) == 0 || serialization.Data(value).Type() != serialization.TypeCompact {
		return nil
	}
	rec, err := serialization.ReadCompactRecord(value, w.s.cfg.Serialization.Schemas())
	if err != nil {
		return err
	}
	sc := rec.Schema()
	if _, ok := w.published.Load(sc.ID); ok {
		return nil
	}
	list := &pb.MetadataList{Schemas: []*pb.Schema{metaproto.SchemaToProto(sc)}}
	if err := w.s.cfg.Cluster.BroadcastMetadata(ctx, list); err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	w.published.Store(sc.ID, struct{}{})
	return nil
}

// once makes one attempt at the owner the current table names. retried
// says an earlier attempt failed, possibly after making the change (the
// partition moved before its backups confirmed it, or the channel closed
// under the call).
func (w *DMLWriter) once(ctx context.Context, op exec.Write, retried bool) (bool, error) {
	pid := w.s.partitionOf(op.Key)
	t := w.s.cfg.Table.Load()
	if t == nil {
		return false, fmt.Errorf("%w: no partition table yet", ErrUnavailable)
	}
	owner, ok := t.Owner(pid)
	if !ok {
		return false, fmt.Errorf("%w: partition %d has no owner (table version %d)", ErrUnavailable, pid, t.Version)
	}
	if owner.UUID == w.s.cfg.Self.UUID {
		return w.local.apply(ctx, op, retried)
	}
	cc, err := w.Conn(owner.Address)
	if err != nil {
		return false, fmt.Errorf("%w: member %s: %v", ErrUnavailable, owner.Address, err)
	}
	changed, err := remoteCalls(pb.NewMapServiceClient(cc)).apply(ctx, op, retried)
	if err != nil && ctx.Err() == nil && status.Code(err) == codes.Canceled {
		// The channel closed under the call (the member was declared
		// gone): the next attempt takes a new one, to the new owner.
		return false, fmt.Errorf("%w: member %s: %v", ErrUnavailable, owner.Address, err)
	}
	return changed, err
}

// entryCalls are the four map calls DML makes, served by this member's
// handlers or by another member's MapService.
type entryCalls struct {
	set         func(context.Context, *pb.SetRequest) (*pb.Empty, error)
	putIfAbsent func(context.Context, *pb.PutRequest) (*pb.ValueResponse, error)
	replace     func(context.Context, *pb.PutRequest) (*pb.ValueResponse, error)
	delete      func(context.Context, *pb.KeyRequest) (*pb.BoolResponse, error)
}

// localCalls are this member's handlers, timed like a client's calls.
func localCalls(s *Server) entryCalls {
	return entryCalls{
		set: func(ctx context.Context, r *pb.SetRequest) (*pb.Empty, error) {
			return observe(s, ctx, opSet, r, s.set)
		},
		putIfAbsent: func(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
			return observe(s, ctx, opPutIfAbsent, r, s.putIfAbsent)
		},
		replace: func(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
			return observe(s, ctx, opReplace, r, s.replace)
		},
		delete: func(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
			return observe(s, ctx, opDelete, r, s.delete)
		},
	}
}

// remoteCalls are another member's MapService.
func remoteCalls(c pb.MapServiceClient) entryCalls {
	return entryCalls{
		set: func(ctx context.Context, r *pb.SetRequest) (*pb.Empty, error) { return c.Set(ctx, r) },
		putIfAbsent: func(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
			return c.PutIfAbsent(ctx, r)
		},
		replace: func(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) { return c.Replace(ctx, r) },
		delete:  func(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) { return c.Delete(ctx, r) },
	}
}

// apply makes op's call and reports whether it changed the entry. After a
// failed attempt (retried) that may have made the change, a DELETE that
// finds nothing and an INSERT that finds its own value count as done, so
// that the statement's count does not depend on partitions moving.
func (c entryCalls) apply(ctx context.Context, op exec.Write, retried bool) (bool, error) {
	switch op.Kind {
	case exec.WriteSet:
		_, err := c.set(ctx, &pb.SetRequest{Map: op.Map, Key: op.Key, Value: op.Value})
		return err == nil, err
	case exec.WriteInsert:
		r, err := c.putIfAbsent(ctx, &pb.PutRequest{Map: op.Map, Key: op.Key, Value: op.Value})
		return err == nil && (!r.Found || retried && bytes.Equal(r.Value, op.Value)), err
	case exec.WriteReplace:
		r, err := c.replace(ctx, &pb.PutRequest{Map: op.Map, Key: op.Key, Value: op.Value})
		return err == nil && r.Found, err
	case exec.WriteDelete:
		r, err := c.delete(ctx, &pb.KeyRequest{Map: op.Map, Key: op.Key})
		return err == nil && (r.Value || retried), err
	}
	return false, fmt.Errorf("%w: unknown write kind %d", ErrInvalidArgument, op.Kind)
}
