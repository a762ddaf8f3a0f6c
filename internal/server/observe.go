package server

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/atolldb/atoll/internal/profiling"
)

// op is the kind of a map operation: the op label of its metrics and of
// its profile samples.
type op uint8

const (
	opPut op = iota
	opSet
	opPutIfAbsent
	opGet
	opRemove
	opDelete
	opRemoveIfSame
	opReplace
	opReplaceIfSame
	opContainsKey
	opEvict
	opSetTTL
	opGetEntryView
	opPutAll
	opGetAll
	opSize
	opClear
	opEvictAll
	opDestroy
	opStats
	opConfigure
	opLock
	opUnlock
	opIsLocked
	opForceUnlock
	opRenewLocks
	opTxRead
	opTxLock
	opTxValidate
	opTxCommit
	opTxApply
	opTxRollback
	numOps
)

var opNames = [numOps]string{
	"put", "set", "put_if_absent", "get", "remove", "delete", "remove_if_same", "replace", "replace_if_same",
	"contains_key", "evict", "set_ttl", "get_entry_view", "put_all", "get_all", "size", "clear", "evict_all",
	"destroy", "stats", "configure", "lock", "unlock", "is_locked", "force_unlock", "renew_locks",
	"tx_read", "tx_lock", "tx_validate", "tx_commit", "tx_apply", "tx_rollback",
}

// instruments are one map's recorders, by operation kind, created on the
// kind's first use and kept: the operation path then costs two clock
// reads, two atomic adds and two label switches.
type instruments struct {
	name string
	ops  [numOps]atomic.Pointer[opInstruments]
}

type opInstruments struct {
	latency prometheus.Observer // nil when metrics are off
	errors  prometheus.Counter
	labels  context.Context // nil when labels are off
}

func (in *instruments) op(s *Server, k op) *opInstruments {
	if oi := in.ops[k].Load(); oi != nil {
		return oi
	}
	oi := &opInstruments{}
	if m := s.cfg.Metrics; m != nil {
		oi.latency, oi.errors = m.Latency(in.name, opNames[k]), m.Errors(in.name, opNames[k])
	}
	if s.cfg.ProfileLabels {
		oi.labels = profiling.OpLabels(in.name, opNames[k])
	}
	if in.ops[k].CompareAndSwap(nil, oi) {
		return oi
	}
	return in.ops[k].Load()
}

// observer keeps the instruments of the maps with series of their own
// (maps.Map.OwnSeries: the first metrics.map-series-limit maps),
// copy-on-write, so that the lookup on the operation path takes no lock;
// the other maps share the instruments of the aggregate, whose map label
// is empty.
type observer struct {
	s      *Server
	mu     sync.Mutex
	byName atomic.Pointer[map[string]*instruments]
	others *instruments
}

// of returns the instruments of an existing map, creating them on first
// use, or nil when there is no such map: names of maps that do not exist
// never become label values, and neither do those of maps beyond the
// series limit.
func (o *observer) of(name string) *instruments {
	if in, ok := (*o.byName.Load())[name]; ok {
		return in
	}
	m, ok := o.s.cfg.Maps.Lookup(name)
	if !ok {
		return nil
	}
	if !m.OwnSeries() {
		return o.others
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := *o.byName.Load()
	if in, ok := cur[name]; ok {
		return in
	}
	in := &instruments{name: name}
	next := make(map[string]*instruments, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[name] = in
	o.byName.Store(&next)
	return in
}

// forget drops a destroyed map's instruments and series.
func (o *observer) forget(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := *o.byName.Load()
	next := make(map[string]*instruments, len(cur))
	for k, v := range cur {
		if k != name {
			next[k] = v
		}
	}
	o.byName.Store(&next)
	if m := o.s.cfg.Metrics; m != nil {
		m.Forget(name)
	}
	if c := o.s.cfg.Clients; c != nil {
		c.ForgetMap(name)
	}
}

// epoch is where operation times are counted from: time.Since(epoch)
// reads only the monotonic clock, one clock read where time.Now takes two.
var epoch = time.Now()

// mapRequest is every request of a map operation.
type mapRequest interface{ GetMap() string }

// observe runs handler h of operation k on request r: under the pprof
// labels map and op, timed into the map's latency histogram, failures
// counted. Both the unary methods and the pipeline dispatchers go through
// it (the framed pipeline's own decoding through beginOp and endOp). With
// metrics and labels off it only calls h.
func observe[Req mapRequest, Resp any](s *Server, ctx context.Context, k op, r Req, h func(context.Context, Req) (Resp, error)) (Resp, error) {
	if s.obs == nil {
		return h(ctx, r)
	}
	o := s.beginOp(r.GetMap(), k)
	resp, err := h(ctx, r)
	s.endOp(ctx, o, err)
	return resp, err
}

// observation is one map operation under observation.
type observation struct {
	name  string
	k     op
	oi    *opInstruments // nil: the map has no instruments (yet)
	start time.Duration
}

// beginOp starts observing operation k of the map name: its pprof labels
// apply until endOp.
func (s *Server) beginOp(name string, k op) observation {
	o := observation{name: name, k: k}
	if s.obs == nil {
		return o
	}
	if in := s.obs.of(name); in != nil {
		o.oi = in.op(s, k)
		if o.oi.labels != nil {
			pprof.SetGoroutineLabels(o.oi.labels)
		}
	}
	o.start = time.Since(epoch)
	return o
}

// endOp ends the observation of an operation that ended with err; the
// goroutine's labels return to ctx's.
func (s *Server) endOp(ctx context.Context, o observation, err error) {
	if s.obs == nil {
		return
	}
	if o.oi != nil && o.oi.labels != nil {
		pprof.SetGoroutineLabels(ctx)
	}
	if err == errWouldWait {
		return // not run: it runs again on its own
	}
	if o.k == opDestroy {
		s.obs.forget(o.name)
		return
	}
	oi := o.oi
	if oi == nil {
		if in := s.obs.of(o.name); in != nil { // the operation created the map
			oi = in.op(s, o.k)
		}
	}
	if oi != nil && oi.latency != nil {
		oi.latency.Observe((time.Since(epoch) - o.start).Seconds())
		if err != nil {
			oi.errors.Inc()
		}
	}
}
