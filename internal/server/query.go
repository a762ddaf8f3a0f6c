package server

// The query service: SQL statements and Predicate API queries, planned by
// the shared planner and run by the execution engine, and the fragments
// that coordinators on other members send here.

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/partset"
	"github.com/atolldb/atoll/internal/profiling"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	qpred "github.com/atolldb/atoll/internal/query/predicate"
	qsql "github.com/atolldb/atoll/internal/query/sql"
)

// QueryConfig wires the query service: the planners of both front ends
// (sharing one plan cache and catalog) and the engine.
type QueryConfig struct {
	Engine     *exec.Engine
	SQL        *qsql.Planner
	Predicates *qpred.Planner
	// Metrics records the queries this member coordinates; nil records
	// nothing.
	Metrics *metrics.Queries
}

// maxParams bounds the parameter values of one statement.
const maxParams = 1 << 16

type queryService struct {
	pb.UnimplementedQueryServiceServer
	s   *Server
	ids atomic.Uint64 // query ids for profile labels
	// conns holds the cursor sessions of client connections that run
	// queries outside a stream, by connection.
	conns sync.Map // *cluster.Conn → *exec.Session
}

// sessionKey carries the cursor session of a query stream's calls.
type sessionKey struct{}

// session returns who holds the cursors a call opens: its query stream,
// else its connection (whose end closes them), else nobody.
func (q *queryService) session(ctx context.Context) *exec.Session {
	if s, ok := ctx.Value(sessionKey{}).(*exec.Session); ok {
		return s
	}
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil
	}
	info, ok := p.AuthInfo.(cluster.PeerInfo)
	if !ok || info.Conn == nil || q.s.cfg.Query == nil {
		return nil
	}
	if s, ok := q.conns.Load(info.Conn); ok {
		return s.(*exec.Session)
	}
	s, loaded := q.conns.LoadOrStore(info.Conn, exec.NewSession())
	if !loaded {
		engine := q.s.cfg.Query.Engine
		info.Conn.OnClose(func() {
			q.conns.Delete(info.Conn)
			engine.EndSession(s.(*exec.Session))
		})
	}
	return s.(*exec.Session)
}

// queryConfig returns the server's query engine, or fails when this member
// runs none.
func (s *Server) queryConfig() (*QueryConfig, error) {
	if s.cfg.Query == nil {
		return nil, invalid("this member runs no query engine")
	}
	return s.cfg.Query, nil
}

// Execute plans and starts a query and returns its first page. The query
// runs under the pprof label kind=sql or kind=predicate (here, in its
// fragments on every member, and in profiles), and is timed by kind.
func (q *queryService) Execute(ctx context.Context, r *pb.ExecuteRequest) (*pb.ExecuteResponse, error) {
	resp, _, err := q.execute(ctx, r, nil, false)
	return resp, err
}

// plannedExecute is an Execute request planned: its plan, its parameter
// values, the partitions it runs over (nil: all) and whether it runs on
// the connection's reader (planByPartitions).
type plannedExecute struct {
	ph     *plan.Physical
	params []expr.Value
	parts  []int32
	inline bool
}

// planByPartitions returns, for the framed reader, the cached plan of a
// query call that runs over some of this member's partitions (the part
// of a query a client sends each owner), its inline set when the reader
// may run it itself (Engine.RunsInline: an index lookup). It plans nothing: a
// statement seen for the first time may take long to plan (constant
// folding), which must not hold up the reader and must stop when the
// call is cancelled. It returns nil for other calls and for a call whose
// plan is not cached; they are planned where they run.
func (q *queryService) planByPartitions(call *pb.QueryCall) *plannedExecute {
	r := call.GetExecute()
	qc := q.s.cfg.Query
	if r == nil || len(r.Partitions) == 0 || r.Explain || qc == nil {
		return nil
	}
	pe, ok := q.cachedExecute(qc, r)
	if !ok {
		return nil
	}
	pe.inline = qc.Engine.RunsInline(pe.ph, exec.Options{Partitions: pe.parts})
	return &pe
}

// execute runs Execute; pre, when not nil, is r planned. With parts, the
// rows of a page gathered from several batches stay in them: resp's page
// then has none, and rows holds them (exec.Result.Parts), for a caller
// that copies them out with queryReply.appendTo.
func (q *queryService) execute(ctx context.Context, r *pb.ExecuteRequest, pre *plannedExecute, parts bool) (resp *pb.ExecuteResponse, rows *exec.Result, err error) {
	qc, err := q.s.queryConfig()
	if err != nil {
		return nil, nil, err
	}
	kind := metrics.QuerySQL
	if _, ok := r.Query.(*pb.ExecuteRequest_Predicate); ok {
		kind = metrics.QueryPredicate
	}
	// An index lookup on the connection's reader takes microseconds, and
	// building its labels cost some 5% of its CPU: it is labelled while a
	// CPU profile, which records them, is taken.
	if pre == nil || !pre.inline || profiling.CPUProfiling() {
		ctx = profiling.QueryLabels(ctx, q.ids.Add(1), kind)
		pprof.SetGoroutineLabels(ctx)
		defer pprof.SetGoroutineLabels(context.Background())
	}
	if qc.Metrics != nil {
		run, _ := qc.Metrics.Start(kind)
		defer func() {
			run.End(err)
			if err == nil && resp.UpdateCount < 0 {
				qc.Metrics.Returned(kind, int64(resp.Page.Count))
			}
		}()
	}
	if pre == nil {
		pe, err := q.planExecute(ctx, qc, r)
		if err != nil {
			return nil, nil, err
		}
		pre = &pe
	}
	ph := pre.ph
	_, isSQL := r.Query.(*pb.ExecuteRequest_Sql)
	if err := q.s.access.authorizeStatement(ctx, ph, isSQL, q.mappingMap); err != nil {
		return nil, nil, err
	}
	if r.Explain && ph.Kind != "explain" {
		ph = &plan.Physical{Root: &plan.Explain{Input: ph.Root}, Kind: "explain", ParamTypes: ph.ParamTypes}
	}
	opts := exec.Options{PageSize: int(r.PageSize), Timeout: time.Duration(r.TimeoutMs) * time.Millisecond, Session: q.session(ctx), Partitions: pre.parts, RowParts: parts}
	res, err := qc.Engine.Execute(ctx, ph, pre.params, opts)
	if err != nil {
		return nil, nil, err
	}
	out, rows := resultResponse(res, parts)
	if r.OmitColumns {
		return out, rows, nil
	}
	cols := make([]pb.Column, len(res.Columns))
	out.Columns = make([]*pb.Column, len(res.Columns))
	for i, c := range res.Columns {
		cols[i].Name, cols[i].Type, cols[i].Nullable = c.Name, pb.SqlType(c.Type), true
		out.Columns[i] = &cols[i]
	}
	return out, rows, nil
}

// planExecute plans r: its statement or predicate, its parameters and
// its partitions. Planning (constant folding included) runs under ctx and
// the query's timeout.
func (q *queryService) planExecute(ctx context.Context, qc *QueryConfig, r *pb.ExecuteRequest) (plannedExecute, error) {
	pe, types, err := q.executeInputs(r)
	if err != nil {
		return pe, err
	}
	if r.TimeoutMs > 0 {
		ctx = plan.WithBuildTimeout(ctx, time.Duration(r.TimeoutMs)*time.Millisecond)
	}
	switch x := r.Query.(type) {
	case *pb.ExecuteRequest_Sql:
		pe.ph, err = qc.SQL.Plan(ctx, x.Sql, types)
	case *pb.ExecuteRequest_Predicate:
		pe.ph, pe.params, err = qc.Predicates.Plan(ctx, x.Predicate)
	default:
		err = invalid("execute request carries no statement")
	}
	return pe, err
}

// cachedExecute is planExecute from the plan cache alone: false when r's
// plan is not cached, or r is wrong (planExecute says why).
func (q *queryService) cachedExecute(qc *QueryConfig, r *pb.ExecuteRequest) (plannedExecute, bool) {
	pe, types, err := q.executeInputs(r)
	if err != nil {
		return pe, false
	}
	ok := false
	switch x := r.Query.(type) {
	case *pb.ExecuteRequest_Sql:
		pe.ph, ok = qc.SQL.Cached(x.Sql, types)
	case *pb.ExecuteRequest_Predicate:
		pe.ph, pe.params, ok = qc.Predicates.Cached(x.Predicate)
	}
	return pe, ok
}

// executeInputs returns r's partitions and parameter values, without a
// plan, and the parameters' types.
func (q *queryService) executeInputs(r *pb.ExecuteRequest) (pe plannedExecute, types []expr.Type, err error) {
	if pe.parts, err = q.s.executePartitions(r.Partitions); err != nil {
		return pe, nil, err
	}
	if len(r.Params) > maxParams {
		return pe, nil, &TooLargeError{Op: "execute", What: "request", Size: len(r.Params), Limit: maxParams, Unit: "parameters"}
	}
	pe.params = make([]expr.Value, len(r.Params))
	types = make([]expr.Type, len(r.Params))
	for i, p := range r.Params {
		if pe.params[i], err = plan.ValueFromProto(p); err != nil {
			return pe, nil, plan.Errorf("parameter %d: %v", i+1, err)
		}
		types[i] = pe.params[i].T
	}
	return pe, types, nil
}

// executePartitions returns the partitions an Execute names (nil for a
// query run whole), or why their set is wrong.
func (s *Server) executePartitions(set []byte) ([]int32, error) {
	if len(set) == 0 {
		return nil, nil
	}
	parts, err := partset.Parse(set, s.cfg.Maps.PartitionCount())
	if err != nil {
		return nil, invalid("execute: %v", err)
	}
	return parts, nil
}

// mappingMap returns the map behind a mapping (its own name when there is
// no such mapping).
func (q *queryService) mappingMap(name string) string {
	if qc := q.s.cfg.Query; qc != nil && qc.SQL != nil && qc.SQL.Catalog != nil {
		if m, ok := qc.SQL.Catalog.Mapping(name); ok {
			return m.MapName
		}
	}
	return name
}

// resultResponse is the response carrying res. A page whose rows are in
// parts leaves them out when the caller takes parts, and returns res to
// hold them; else its rows are joined.
func resultResponse(res *exec.Result, parts bool) (*pb.ExecuteResponse, *exec.Result) {
	out := &pb.ExecuteResponse{
		Page:        &pb.RowBatch{Rows: res.Rows, Count: int32(res.Count)},
		CursorId:    res.Cursor,
		UpdateCount: res.UpdateCount,
	}
	if res.Parts == nil {
		return out, nil
	}
	if parts {
		return out, res
	}
	out.Page.Rows = bytes.Join(res.Parts, nil)
	res.Release()
	return out, nil
}

func (q *queryService) Fetch(ctx context.Context, r *pb.FetchRequest) (*pb.ExecuteResponse, error) {
	resp, _, err := q.fetch(ctx, r, false)
	return resp, err
}

// fetch runs Fetch; parts as for execute.
func (q *queryService) fetch(ctx context.Context, r *pb.FetchRequest, parts bool) (*pb.ExecuteResponse, *exec.Result, error) {
	qc, err := q.s.queryConfig()
	if err != nil {
		return nil, nil, err
	}
	res, err := qc.Engine.Fetch(ctx, r.CursorId, q.session(ctx))
	if err != nil {
		return nil, nil, err
	}
	if qc.Metrics != nil {
		qc.Metrics.Returned(res.Kind, int64(res.Count))
	}
	out, rows := resultResponse(res, parts)
	return out, rows, nil
}

func (q *queryService) Close(ctx context.Context, r *pb.CloseRequest) (*pb.Empty, error) {
	qc, err := q.s.queryConfig()
	if err != nil {
		return nil, err
	}
	qc.Engine.CloseCursor(r.CursorId, q.session(ctx))
	return &pb.Empty{}, nil
}

func (q *queryService) AddIndex(_ context.Context, r *pb.AddIndexRequest) (*pb.Empty, error) {
	qc, err := q.s.queryConfig()
	if err != nil {
		return nil, err
	}
	if r.Map == "" || len(r.Attributes) != 1 || r.Attributes[0] == "" {
		return nil, invalid("an index needs a map and exactly one attribute")
	}
	t := plan.IndexSorted
	if r.Type == pb.IndexType_INDEX_TYPE_HASH {
		t = plan.IndexHash
	}
	return &pb.Empty{}, qc.Engine.AddIndex(plan.IndexInfo{Name: r.Name, Map: r.Map, Type: t, Attribute: plan.NormalizePath(r.Attributes[0])})
}

func (q *queryService) RunFragment(r *pb.RunFragmentRequest, stream pb.QueryService_RunFragmentServer) error {
	ctx, cancel, err := q.s.fragmentContext(stream.Context(), r)
	if err != nil {
		return err
	}
	defer cancel()
	return q.s.cfg.Query.Engine.RunFragment(ctx, r, func(b *exec.Batch) error {
		return stream.Send(&pb.RowBatch{Rows: b.Rows, Count: int32(b.Count)})
	})
}

// fragmentContext returns the context a fragment sent by a coordinator
// runs under, on the gRPC call and the fragments stream alike: parent
// bounded by the fragment's timeout, if it has one, and labelled with its
// query's kind (sql or predicate) for profiles. Its cancel ends it; the
// caller calls cancel when the fragment ends. It fails when this member
// runs no query engine.
func (s *Server) fragmentContext(parent context.Context, r *pb.RunFragmentRequest) (context.Context, context.CancelFunc, error) {
	if _, err := s.queryConfig(); err != nil {
		return nil, nil, err
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if r.TimeoutMs > 0 {
		ctx, cancel = context.WithTimeout(parent, time.Duration(r.TimeoutMs)*time.Millisecond)
	} else {
		ctx, cancel = context.WithCancel(parent)
	}
	if r.Kind == metrics.QuerySQL || r.Kind == metrics.QueryPredicate {
		ctx = pprof.WithLabels(ctx, pprof.Labels(profiling.LabelKind, r.Kind))
	}
	return ctx, cancel, nil
}

// Pipeline runs the Execute, Fetch and Close calls of one client stream:
// a receiver reads calls, each runs on a goroutine of its own (at most
// PipelineInFlight at a time), and replies are sent in completion order. A
// call over limits.max-message-size fails alone (receive.go). The stream
// ends when the client closes its side or the member drains;
// the calls in flight finish first.
func (q *queryService) Pipeline(stream pb.QueryService_PipelineServer) error {
	s := q.s
	// The stream holds the cursors its calls open: they close when it ends.
	session := exec.NewSession()
	if qc := s.cfg.Query; qc != nil {
		defer qc.Engine.EndSession(session)
	}
	ctx := context.WithValue(stream.Context(), sessionKey{}, session)
	var sendMu sync.Mutex
	var sendErr error
	send := func(r *pb.QueryReply) {
		sendMu.Lock()
		defer sendMu.Unlock()
		if sendErr == nil {
			sendErr = stream.Send(r)
		}
	}
	in := make(chan *receivedCall)
	recvDone := make(chan struct{})
	go func() {
		defer close(recvDone)
		for {
			r := &receivedCall{msg: &pb.QueryCall{}}
			if err := stream.RecvMsg(r); err != nil {
				return
			}
			select {
			case in <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	sem := make(chan struct{}, s.cfg.PipelineInFlight)
	var calls sync.WaitGroup
	// Each call runs under a context of its own, so that a cancel stops it.
	var runningMu sync.Mutex
	running := map[uint64]context.CancelFunc{}
loop:
	for {
		select {
		case <-recvDone:
			break loop
		case <-s.done:
			break loop
		case r := <-in:
			if err := r.tooLarge("query", s.cfg.MaxMessageSize); err != nil {
				// It fails alone (receive.go): nothing runs, nothing to cancel.
				send(&pb.QueryReply{CallId: r.callID, Error: toPipelineError(err)})
				continue
			}
			call := r.msg.(*pb.QueryCall)
			if _, ok := call.Op.(*pb.QueryCall_Cancel); ok {
				runningMu.Lock()
				if stop := running[call.CallId]; stop != nil {
					stop()
				}
				runningMu.Unlock()
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				break loop
			}
			cctx, stop := context.WithCancel(ctx)
			runningMu.Lock()
			running[call.CallId] = stop
			runningMu.Unlock()
			calls.Add(1)
			s.goQuery(func() {
				defer calls.Done()
				defer func() { <-sem }()
				defer func() {
					runningMu.Lock()
					delete(running, call.CallId)
					runningMu.Unlock()
					stop()
				}()
				send(q.runCall(cctx, call, nil, false).msg)
			})
		}
	}
	calls.Wait()
	sendMu.Lock()
	err := sendErr
	sendMu.Unlock()
	if err != nil {
		return err
	}
	if s.closing.Load() {
		return ErrShuttingDown
	}
	return ctx.Err()
}

// goQuery runs a query call on a goroutine: one of the query engine's,
// whose stacks earlier queries grew, when the member runs one.
func (s *Server) goQuery(fn func()) {
	if qc := s.cfg.Query; qc != nil {
		qc.Engine.Go(fn)
		return
	}
	go fn()
}

// queryCallOp is the oneof of a query stream call's operation.
var queryCallOp = (&pb.QueryCall{}).ProtoReflect().Descriptor().Oneofs().ByName("op")

// runCall runs one pipelined call, turning a panic into an internal error.
// An Execute uses pre, when not nil, as its plan (see planByPartitions).
// With parts, the reply may leave its page's rows in parts (see
// queryReply); without, its message carries them.
func (q *queryService) runCall(ctx context.Context, call *pb.QueryCall, pre *plannedExecute, parts bool) (r queryReply) {
	reply := &pb.QueryReply{CallId: call.CallId}
	r.msg = reply
	defer func() {
		if p := recover(); p != nil {
			reply.Result, reply.Error = nil, toPipelineError(q.s.recovered(fmt.Sprintf("query call %d", call.CallId), p))
			r.rows = nil
		}
	}()
	var res *pb.ExecuteResponse
	var err error
	if m := call.ProtoReflect(); m.WhichOneof(queryCallOp) != nil {
		f := m.WhichOneof(queryCallOp)
		if err := q.s.access.authorize(ctx, queryCallMethods[f.Number()], m.Get(f).Message().Interface()); err != nil {
			reply.Error = toPipelineError(err)
			return r
		}
	}
	switch op := call.Op.(type) {
	case *pb.QueryCall_Execute:
		res, r.rows, err = q.execute(ctx, op.Execute, pre, parts)
	case *pb.QueryCall_Fetch:
		res, r.rows, err = q.fetch(ctx, op.Fetch, parts)
	case *pb.QueryCall_Close:
		_, err = q.Close(ctx, op.Close)
		res = &pb.ExecuteResponse{}
	default:
		err = invalid("query call %d carries no operation", call.CallId)
	}
	if err != nil {
		reply.Error = toPipelineError(err)
		return r
	}
	reply.Result = res
	return r
}

// queryReply is a query call's reply. rows, when not nil, holds the rows
// of the reply's page in parts (exec.Result.Parts), which msg's page
// leaves out: appendTo writes them in place, and release gives their
// buffers back.
type queryReply struct {
	msg  *pb.QueryReply
	rows *exec.Result
}

// The numbers of the fields appendTo writes by hand.
var (
	replyResultField  = fieldNumber(&pb.QueryReply{}, "result")
	responsePageField = fieldNumber(&pb.ExecuteResponse{}, "page")
	batchRowsField    = fieldNumber(&pb.RowBatch{}, "rows")
	batchCountField   = fieldNumber(&pb.RowBatch{}, "count")
)

func fieldNumber(m proto.Message, name protoreflect.Name) protowire.Number {
	return m.ProtoReflect().Descriptor().Fields().ByName(name).Number()
}

// appendTo appends the reply's encoding to b. Rows in parts are copied
// from each part in turn, without being joined first: the message is
// encoded without its page, which follows (the order of fields is free
// in the protobuf encoding), written by hand.
func (r queryReply) appendTo(b []byte) ([]byte, error) {
	if r.rows == nil {
		return proto.MarshalOptions{}.MarshalAppend(b, r.msg)
	}
	res := r.msg.Result
	page := res.Page
	rowsLen := 0
	for _, p := range r.rows.Parts {
		rowsLen += len(p)
	}
	count := uint64(int64(page.Count)) // an int32's varint
	batchLen := protowire.SizeTag(batchRowsField) + protowire.SizeBytes(rowsLen)
	if count != 0 {
		batchLen += protowire.SizeTag(batchCountField) + protowire.SizeVarint(count)
	}
	res.Page = nil
	head := proto.MarshalOptions{}
	resLen := head.Size(res) + protowire.SizeTag(responsePageField) + protowire.SizeBytes(batchLen)
	id := &pb.QueryReply{CallId: r.msg.CallId}
	// Room for all of it at once: the rows would grow b several times.
	b = slices.Grow(b, head.Size(id)+protowire.SizeTag(replyResultField)+protowire.SizeBytes(resLen))
	b, err := head.MarshalAppend(b, id)
	if err == nil {
		b = protowire.AppendTag(b, replyResultField, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(resLen))
		b, err = head.MarshalAppend(b, res)
	}
	res.Page = page
	if err != nil {
		return b, err
	}
	b = protowire.AppendTag(b, responsePageField, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(batchLen))
	b = protowire.AppendTag(b, batchRowsField, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(rowsLen))
	for _, p := range r.rows.Parts {
		b = append(b, p...)
	}
	if count != 0 {
		b = protowire.AppendTag(b, batchCountField, protowire.VarintType)
		b = protowire.AppendVarint(b, count)
	}
	return b, nil
}

// release gives back the buffers of the reply's rows, once appended.
func (r queryReply) release() {
	if r.rows != nil {
		r.rows.Release()
	}
}
