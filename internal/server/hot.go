package server

import (
	"context"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/frame"
)

// The hot path
//
// The framed pipeline decodes the plain key operations (get, set, put,
// remove, delete, contains) itself, as protobuf-go writes them, into a
// hotCall of the connection whose key, value and map name alias the frame;
// runs them through the same handlers' cores (getEntry, setEntry, ...) and
// the same access check and instruments; and writes their answers into the
// connection's write buffer, values read from the store into a scratch
// buffer of the connection: no message is allocated, and a get or a set
// allocates nothing in the steady state. A call in any other form (other
// operations, unknown fields, a map name that is not UTF-8) takes the
// generic path, which decodes it with protobuf-go and says what is wrong
// with it.

// PipelineRequest's field numbers (pipeline.proto).
const (
	fieldCallID    protowire.Number = 1
	fieldTimeoutMs protowire.Number = 2
	fieldPut       protowire.Number = 10
	fieldSet       protowire.Number = 11
	fieldGet       protowire.Number = 13
	fieldRemove    protowire.Number = 14
	fieldDelete    protowire.Number = 15
	fieldContains  protowire.Number = 19
)

// PipelineResponse's field numbers.
const (
	fieldRespCallID protowire.Number = 1
	fieldRespEmpty  protowire.Number = 10
	fieldRespValue  protowire.Number = 11
	fieldRespBool   protowire.Number = 12
)

// hotOps gives each hot operation its instruments' kind and the unary
// method whose access rule it follows.
var hotOps = map[protowire.Number]struct {
	k      op
	method string
}{
	fieldPut:      {opPut, pb.MapService_Put_FullMethodName},
	fieldSet:      {opSet, pb.MapService_Set_FullMethodName},
	fieldGet:      {opGet, pb.MapService_Get_FullMethodName},
	fieldRemove:   {opRemove, pb.MapService_Remove_FullMethodName},
	fieldDelete:   {opDelete, pb.MapService_Delete_FullMethodName},
	fieldContains: {opContainsKey, pb.MapService_ContainsKey_FullMethodName},
}

// hotCall is a plain key operation decoded from a frame; its byte fields
// alias the frame.
type hotCall struct {
	id                 uint64
	field              protowire.Number // the operation: a PipelineRequest field
	mapName, key       []byte
	value              []byte
	ttlMs, maxIdleMs   int64
	hasTTL, hasMaxIdle bool
}

// parseHot decodes payload, a PipelineRequest, into h when it carries a
// hot operation in the form protobuf-go writes; false otherwise.
func parseHot(payload []byte, h *hotCall) bool {
	*h = hotCall{}
	b := payload
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case num == fieldCallID && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			h.id, b = v, b[n:]
		case num == fieldTimeoutMs && typ == protowire.VarintType:
			// The member's reader runs a hot call at once: its timeout
			// bounds nothing here (a call that would wait leaves the hot
			// path).
			_, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			b = b[n:]
		case typ == protowire.BytesType && h.field == 0:
			if _, ok := hotOps[num]; !ok {
				return false
			}
			v, n := protowire.ConsumeBytes(b)
			if n < 0 || !parseHotOp(v, num, h) {
				return false
			}
			h.field, b = num, b[n:]
		default:
			return false
		}
	}
	return h.field != 0 && h.id != 0 && utf8.Valid(h.mapName)
}

// parseHotOp decodes the request message of operation field (KeyRequest,
// SetRequest or PutRequest, which share their field numbers) into h.
func parseHotOp(b []byte, field protowire.Number, h *hotCall) bool {
	withValue := field == fieldSet || field == fieldPut
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			h.mapName, b = v, b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			h.key, b = v, b[n:]
		case num == 3 && typ == protowire.BytesType && withValue:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			h.value, b = v, b[n:]
		case (num == 4 || num == 5) && typ == protowire.VarintType && withValue:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			if num == 4 {
				h.ttlMs, h.hasTTL = int64(v), true
			} else {
				h.maxIdleMs, h.hasMaxIdle = int64(v), true
			}
			b = b[n:]
		default:
			return false
		}
	}
	return true
}

// hotResult is what a hot call answers: its kind (the PipelineResponse
// field of its result), and for a value or a bool, what it holds.
type hotResult struct {
	kind  protowire.Number // fieldRespEmpty, fieldRespValue or fieldRespBool
	found bool             // a value's presence, or the bool
	value []byte
}

// appendHotResponse appends the PipelineResponse of call id with result
// r (a value's bytes from value).
func appendHotResponse(b []byte, id uint64, r hotResult) []byte {
	b = protowire.AppendTag(b, fieldRespCallID, protowire.VarintType)
	b = protowire.AppendVarint(b, id)
	b = protowire.AppendTag(b, r.kind, protowire.BytesType)
	switch {
	case !r.found: // an empty message: ValueResponse{}, BoolResponse{} or Empty{}
		return protowire.AppendVarint(b, 0)
	case r.kind == fieldRespValue && len(r.value) == 0: // proto3 writes no empty bytes
		return append(b, 2, 0x08, 0x01)
	case r.kind == fieldRespValue:
		n := 2 + protowire.SizeTag(2) + protowire.SizeBytes(len(r.value))
		b = protowire.AppendVarint(b, uint64(n))
		b = append(b, 0x08, 0x01) // found: true
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		return protowire.AppendBytes(b, r.value)
	default: // a true BoolResponse
		return append(b, 2, 0x08, 0x01)
	}
}

// hot runs the hot call in h, which the reader admitted (a place taken, a
// call counted); false when it must run on a goroutine of its own instead
// (a lock in its way: nothing changed). It answers the call, at once or
// once its backups confirmed it.
func (c *framedConn) hot(h *hotCall) bool {
	s := c.s
	spec := hotOps[h.field]
	name := c.mapNameOf(h.mapName)
	c.inline = inlineCall{}
	res, err := hotResult{}, s.access.authorizeMap(c.inlineCtx, spec.method, name)
	if err == nil {
		o := s.beginOp(name, spec.k)
		res, err = c.runHot(h, name)
		s.endOp(c.inlineCtx, o, err)
	}
	if c.inline.wouldWait {
		return false
	}
	if err == nil && c.inline.written && c.inline.backups.Needed() {
		w := confirmations.Get().(*confirmation)
		w.c, w.id, w.res = c, h.id, res
		w.res.value = append(w.value[:0], res.value...)
		w.value = w.res.value
		c.inline.backups.Notify(w)
		return true
	}
	c.answerHot(h.id, res, err)
	c.done1()
	return true
}

// runHot runs h's operation on map name through the handlers' cores.
func (c *framedConn) runHot(h *hotCall, name string) (hotResult, error) {
	s, ctx := c.s, c.inlineCtx
	var ttl, maxIdle *int64
	if h.hasTTL {
		ttl = &h.ttlMs
	}
	if h.hasMaxIdle {
		maxIdle = &h.maxIdleMs
	}
	var err error
	res := hotResult{kind: fieldRespValue}
	switch h.field {
	case fieldGet:
		c.scratch, res.found, err = s.getEntry(ctx, c.scratch[:0], name, h.key)
	case fieldPut:
		c.scratch, res.found, err = s.putEntry(ctx, c.scratch[:0], name, h.key, h.value, ttl, maxIdle)
	case fieldRemove:
		c.scratch, res.found, err = s.removeEntry(ctx, c.scratch[:0], name, h.key)
	case fieldSet:
		res.kind, res.found, err = fieldRespEmpty, false, s.setEntry(ctx, name, h.key, h.value, ttl, maxIdle)
	case fieldDelete:
		res.kind = fieldRespBool
		res.found, err = s.deleteEntry(ctx, name, h.key)
	case fieldContains:
		res.kind = fieldRespBool
		res.found, err = s.containsEntry(ctx, name, h.key)
	}
	if res.kind == fieldRespValue && res.found {
		res.value = c.scratch
	}
	return res, err
}

// answerHot appends the answer of hot call id from the reader (flushed
// once it has run what it read).
func (c *framedConn) answerHot(id uint64, res hotResult, err error) {
	if err != nil {
		c.answerLocal(&pb.PipelineResponse{CallId: id, Error: toPipelineError(err)})
		return
	}
	c.appendLocal(frame.KindCall, func(b []byte) ([]byte, error) { return appendHotResponse(b, id, res), nil })
}

// mapNameOf returns name as a string, without allocating for the names
// the connection used before.
func (c *framedConn) mapNameOf(name []byte) string {
	if s, ok := c.mapNames[string(name)]; ok {
		return s
	}
	s := string(name)
	if len(c.mapNames) >= maxCachedMapNames {
		clear(c.mapNames)
	}
	c.mapNames[s] = s
	return s
}

// maxCachedMapNames bounds the map names a connection keeps.
const maxCachedMapNames = 64

// confirmation answers a write the reader ran once its backups confirmed
// it, or with the error that says why they cannot. Confirmations are
// pooled: a write allocates none in the steady state.
type confirmation struct {
	c     *framedConn
	id    uint64
	res   hotResult // its value in value
	value []byte
	// resp, when set, is the answer of a write the generic path decoded.
	resp *pb.PipelineResponse
}

var confirmations = sync.Pool{New: func() any { return &confirmation{} }}

var _ cluster.BackupsWaiter = (*confirmation)(nil)

// noWait is the context of an Append that must not wait for room.
var noWait = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

func (w *confirmation) BackupsDone(err error) {
	c, id, res, resp := w.c, w.id, w.res, w.resp
	fill := func(b []byte) ([]byte, error) {
		switch {
		case err != nil:
			return marshalResponse(b, &pb.PipelineResponse{CallId: id, Error: toPipelineError(err)})
		case resp != nil:
			return marshalResponse(b, resp)
		}
		return appendHotResponse(b, id, res), nil
	}
	flush, aerr := c.w.Append(noWait, frame.KindCall, fill)
	if aerr == context.Canceled {
		// The client reads slowly: no room without waiting, which the
		// replicator's goroutine must not do.
		msg, _ := fill(nil)
		go func() {
			c.flushed(c.w.Append(context.Background(), frame.KindCall, func(b []byte) ([]byte, error) { return append(b, msg...), nil }))
			c.done1()
		}()
	} else {
		if flush {
			select {
			case c.kick <- struct{}{}:
			default:
			}
		}
		c.done1()
	}
	w.c, w.resp = nil, nil
	if cap(w.value) <= 64<<10 {
		confirmations.Put(w)
	}
}

// marshalResponse appends resp; a response that cannot be encoded (a
// string that is not UTF-8) becomes an internal error of its call alone.
func marshalResponse(b []byte, resp *pb.PipelineResponse) ([]byte, error) {
	start := len(b)
	out, err := proto.MarshalOptions{}.MarshalAppend(b, resp)
	if err == nil {
		return out, nil
	}
	return proto.MarshalOptions{}.MarshalAppend(b[:start], &pb.PipelineResponse{CallId: resp.CallId, Error: internalEncodingError(err)})
}
