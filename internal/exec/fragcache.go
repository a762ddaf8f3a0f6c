package exec

import (
	"sync"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// maxCachedFragments bounds each fragment cache; a full cache starts
// over.
const maxCachedFragments = 1024

// wireCache keeps, per fragment of a cached plan, its wire form without
// parameters, so that a coordinator marshals a statement's fragment once
// and sends its parameter values beside it (RunFragmentRequest.params).
// Fragments with joins are marshalled per run: their inputs read the
// parameters of the top fragment.
type wireCache struct {
	mu sync.Mutex
	m  map[*plan.Fragment][]byte
}

// request returns the request that runs f with params.
func (c *wireCache) request(f *plan.Fragment, params []expr.Value) (*pb.RunFragmentRequest, error) {
	if f.Join != nil {
		run := *f
		run.Params = params
		b, err := plan.MarshalFragment(&run)
		if err != nil {
			return nil, err
		}
		return &pb.RunFragmentRequest{Fragment: b}, nil
	}
	c.mu.Lock()
	b, ok := c.m[f]
	c.mu.Unlock()
	if !ok {
		body := *f
		body.Params = nil
		var err error
		if b, err = plan.MarshalFragment(&body); err != nil {
			return nil, err
		}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCachedFragments {
			c.m = map[*plan.Fragment][]byte{}
		}
		c.m[f] = b
		c.mu.Unlock()
	}
	req := &pb.RunFragmentRequest{Fragment: b, Params: make([]*pb.QueryValue, len(params))}
	for i, v := range params {
		req.Params[i] = plan.ValueToProto(v)
	}
	return req, nil
}

// decodedCache keeps the fragments a member decoded for its coordinators,
// by their bytes, the number of parameters sent beside them and the
// catalog version whose indexes they name; a fragment is shared by every
// run (each binds its parameters to a copy). Fragments with joins are
// decoded per run.
type decodedCache struct {
	mu      sync.Mutex
	version uint64
	m       map[string]decoded
}

type decoded struct {
	f       *plan.Fragment
	nparams int
}

// fragment returns the fragment of req, decoded or from the cache, with
// its parameters bound.
func (c *decodedCache) fragment(req *pb.RunFragmentRequest, version uint64, indexes func(mapName, index string) (plan.IndexInfo, bool)) (*plan.Fragment, error) {
	c.mu.Lock()
	d, ok := c.m[string(req.Fragment)]
	ok = ok && d.nparams == len(req.Params) && c.version == version
	c.mu.Unlock()
	if !ok {
		f, err := plan.UnmarshalFragment(req.Fragment, req.Params, indexes)
		if err != nil {
			return nil, err
		}
		if f.Join != nil {
			return f, nil
		}
		d = decoded{f: f, nparams: len(req.Params)}
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxCachedFragments || c.version != version {
			c.m, c.version = map[string]decoded{}, version
		}
		c.m[string(req.Fragment)] = d
		c.mu.Unlock()
	}
	if len(req.Params) == 0 {
		return d.f, nil
	}
	params, err := plan.ParamsFromProto(req.Params)
	if err != nil {
		return nil, err
	}
	run := *d.f
	run.Params = params
	return &run, nil
}
