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
	numOps
)

var opNames = [numOps]string{
	"put", "set", "put_if_absent", "get", "remove", "delete", "remove_if_same", "replace", "replace_if_same",
	"contains_key", "evict", "set_ttl", "get_entry_view", "put_all", "get_all", "size", "clear", "evict_all",
	"destroy", "stats", "configure",
}

// instruments are one map's recorders, looked up once and kept: the
// operation path then costs two clock reads, two atomic adds and two
// label switches.
type instruments struct {
	latency [numOps]prometheus.Observer
	errors  [numOps]prometheus.Counter
	labels  [numOps]context.Context
}

// observer keeps the instruments of every map, copy-on-write like the
// maps registry, so that the lookup on the operation path takes no lock.
type observer struct {
	s      *Server
	mu     sync.Mutex
	byName atomic.Pointer[map[string]*instruments]
}

// of returns the instruments of an existing map, creating them on first
// use, or nil when there is no such map: names of maps that do not exist
// never become label values.
func (o *observer) of(name string) *instruments {
	if in, ok := (*o.byName.Load())[name]; ok {
		return in
	}
	if _, ok := o.s.cfg.Maps.Lookup(name); !ok {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	cur := *o.byName.Load()
	if in, ok := cur[name]; ok {
		return in
	}
	in := &instruments{}
	for k := range numOps {
		if m := o.s.cfg.Metrics; m != nil {
			in.latency[k] = m.Latency(name, opNames[k])
			in.errors[k] = m.Errors(name, opNames[k])
		}
		if o.s.cfg.ProfileLabels {
			in.labels[k] = profiling.OpLabels(name, opNames[k])
		}
	}
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

// mapRequest is every request of a map operation.
type mapRequest interface{ GetMap() string }

// observe runs handler h of operation k on request r: under the pprof
// labels map and op, timed into the map's latency histogram, failures
// counted. Both the unary methods and the pipeline dispatcher go through
// it. With metrics and labels off it only calls h.
func observe[Req mapRequest, Resp any](s *Server, ctx context.Context, k op, r Req, h func(context.Context, Req) (Resp, error)) (Resp, error) {
	if s.obs == nil {
		return h(ctx, r)
	}
	name := r.GetMap()
	in := s.obs.of(name)
	if in != nil && in.labels[k] != nil {
		pprof.SetGoroutineLabels(in.labels[k])
		defer pprof.SetGoroutineLabels(ctx)
	}
	start := time.Now()
	resp, err := h(ctx, r)
	if k == opDestroy {
		s.obs.forget(name)
		return resp, err
	}
	if in == nil {
		in = s.obs.of(name) // the operation created the map
	}
	if in != nil && in.latency[k] != nil {
		in.latency[k].Observe(time.Since(start).Seconds())
		if err != nil {
			in.errors[k].Inc()
		}
	}
	return resp, err
}
