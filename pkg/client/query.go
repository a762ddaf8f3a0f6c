package client

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Column describes a result column.
type Column struct {
	Name string
	// Type is Hazelcast's SQL type name: BOOLEAN, INTEGER, BIGINT, DOUBLE,
	// VARCHAR, OBJECT, ... (UNKNOWN when only the values know).
	Type string
}

var sqlTypeNames = map[pb.SqlType]string{
	pb.SqlType_SQL_TYPE_UNSPECIFIED: "UNKNOWN", pb.SqlType_SQL_TYPE_NULL: "NULL", pb.SqlType_SQL_TYPE_BOOLEAN: "BOOLEAN",
	pb.SqlType_SQL_TYPE_TINYINT: "TINYINT", pb.SqlType_SQL_TYPE_SMALLINT: "SMALLINT", pb.SqlType_SQL_TYPE_INTEGER: "INTEGER",
	pb.SqlType_SQL_TYPE_BIGINT: "BIGINT", pb.SqlType_SQL_TYPE_DECIMAL: "DECIMAL", pb.SqlType_SQL_TYPE_REAL: "REAL",
	pb.SqlType_SQL_TYPE_DOUBLE: "DOUBLE", pb.SqlType_SQL_TYPE_VARCHAR: "VARCHAR", pb.SqlType_SQL_TYPE_DATE: "DATE",
	pb.SqlType_SQL_TYPE_TIME: "TIME", pb.SqlType_SQL_TYPE_TIMESTAMP: "TIMESTAMP",
	pb.SqlType_SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE: "TIMESTAMP WITH TIME ZONE", pb.SqlType_SQL_TYPE_OBJECT: "OBJECT",
	pb.SqlType_SQL_TYPE_JSON: "JSON",
}

// Rows is the result of a statement, read lazily page by page:
//
//	rows, err := c.SQL(ctx, `SELECT __key, name FROM people WHERE age > ?`, 30)
//	if err != nil { ... }
//	defer rows.Close()
//	for rows.Next() {
//		var id int32
//		var name string
//		if err := rows.Scan(&id, &name); err != nil { ... }
//	}
//	if err := rows.Err(); err != nil { ... }
//
// Close (or reading to the end) releases the query on the cluster; an
// abandoned Rows is closed by the member after an idle timeout. Rows is not
// safe for concurrent use. The strings and arrays of numbers of the objects
// it deserializes share blocks of up to 16 KiB (serialization.Decoder), as do
// those of the query methods built on it (EntrySetWithPredicate, ...) and
// of the map iterators (All, ...).
type Rows struct {
	ctx     context.Context
	c       *Client
	qs      *queryStream
	columns []Column
	types   []pb.SqlType
	updates int64

	page   []byte
	left   int // rows left in page
	cursor uint64
	cur    []rawValue
	// vals is the rest of the block the slices of Values are cut from.
	vals   []any
	err    error
	closed bool
	// dec deserializes the rows' objects, which share its blocks.
	dec *serialization.Decoder
	// rest are the first pages of the other owners of a query run by
	// partitions, read once this one's rows end.
	rest []ownerRows
}

// ownerRows is one owner's first page of a query run by partitions.
type ownerRows struct {
	qs   *queryStream
	resp *pb.ExecuteResponse
}

// rawValue is one decoded value before objects are deserialized.
type rawValue struct {
	v    any
	data []byte // OBJECT: serialized Data, deserialized on demand
}

// Columns returns the result's columns (none for DML and DDL).
func (r *Rows) Columns() []Column { return r.columns }

// UpdateCount returns the rows a DML statement changed, 0 for DDL, and -1
// for statements that return rows.
func (r *Rows) UpdateCount() int64 { return r.updates }

// Next advances to the next row, fetching the next page when needed. It
// returns false at the end or on an error (see Err).
func (r *Rows) Next() bool {
	if r.err != nil || r.closed {
		return false
	}
	for r.left == 0 {
		if r.cursor == 0 {
			if len(r.rest) > 0 {
				o := r.rest[0]
				r.rest = r.rest[1:]
				r.qs = o.qs
				r.setPage(o.resp)
				continue
			}
			r.closed = true
			return false
		}
		resp, err := r.qs.call(r.ctx, &pb.QueryCall{Op: &pb.QueryCall_Fetch{Fetch: &pb.FetchRequest{CursorId: r.cursor}}})
		if err != nil {
			r.err = err
			r.cursor = 0
			return false
		}
		r.setPage(resp)
	}
	if cap(r.cur) < len(r.columns) {
		r.cur = make([]rawValue, len(r.columns))
	}
	r.cur = r.cur[:len(r.columns)]
	for i := range r.cur {
		v, rest, err := decodeValue(r.page)
		if err != nil {
			r.err = err
			return false
		}
		// Field by field: a rawValue assigned whole is copied by the
		// runtime with the garbage collector's bulk write barrier.
		c := &r.cur[i]
		c.v, c.data = v.v, v.data
		r.page = rest
	}
	r.left--
	return true
}

func (r *Rows) setPage(resp *pb.ExecuteResponse) {
	r.page = resp.GetPage().GetRows()
	r.left = int(resp.GetPage().GetCount())
	r.cursor = resp.CursorId
}

// Err returns the error that ended the iteration, if any.
func (r *Rows) Err() error { return r.err }

// Close releases the query on the cluster. It is safe to call twice.
func (r *Rows) Close() error {
	var first error
	closeCursor := func(qs *queryStream, id uint64) {
		if id == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := qs.call(ctx, &pb.QueryCall{Op: &pb.QueryCall_Close{Close: &pb.CloseRequest{CursorId: id}}})
		cancel()
		if err != nil && first == nil {
			first = err
		}
	}
	closeCursor(r.qs, r.cursor)
	r.cursor = 0
	for _, o := range r.rest {
		closeCursor(o.qs, o.resp.CursorId)
	}
	r.rest = nil
	r.closed = true
	if r.err == nil {
		return first
	}
	return nil
}

// valuesBlock is how many rows' slices of Values share an allocation.
const valuesBlock = 256

// Values returns the current row's values: nil, bool, int8, int16, int32,
// int64, float32, float64, string, serialization.JSON, time.Time (DATE,
// TIMESTAMP), time.Duration (TIME), or the deserialized object of an
// OBJECT column (__key, this). The slice is the caller's; the slices of
// a few hundred rows share one allocation, which a kept slice keeps alive.
func (r *Rows) Values() ([]any, error) {
	n := len(r.cur)
	if len(r.vals) < n {
		r.vals = make([]any, n*valuesBlock)
	}
	out := r.vals[:n:n]
	r.vals = r.vals[n:]
	for i := range r.cur {
		v, err := r.value(i)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (r *Rows) value(i int) (any, error) {
	rv := r.cur[i]
	if rv.data != nil {
		return r.c.toObject(r.ctx, r.decoder(), rv.data)
	}
	return rv.v, nil
}

// decoder returns the decoder of the rows' objects.
func (r *Rows) decoder() *serialization.Decoder {
	if r.dec == nil {
		r.dec = r.c.ser.NewDecoder()
	}
	return r.dec
}

// Data returns column i's serialized Data when it is an OBJECT (nil
// otherwise), without deserializing it.
func (r *Rows) Data(i int) []byte {
	if i < 0 || i >= len(r.cur) {
		return nil
	}
	return r.cur[i].data
}

// Scan copies the current row's values into dest (pointers; a *any takes
// any value). Integer and float values convert to wider types.
func (r *Rows) Scan(dest ...any) error {
	if len(dest) != len(r.cur) {
		return fmt.Errorf("%w: Scan needs %d destinations, got %d", ErrInvalidArgument, len(r.cur), len(dest))
	}
	for i, d := range dest {
		v, err := r.value(i)
		if err != nil {
			return err
		}
		if err := assign(d, v); err != nil {
			return fmt.Errorf("column %s: %w", r.columns[i].Name, err)
		}
	}
	return nil
}

func assign(dest, v any) error {
	if p, ok := dest.(*any); ok {
		*p = v
		return nil
	}
	dv := reflect.ValueOf(dest)
	if dv.Kind() != reflect.Pointer || dv.IsNil() {
		return fmt.Errorf("%w: Scan destination must be a non-nil pointer", ErrInvalidArgument)
	}
	e := dv.Elem()
	if v == nil {
		e.Set(reflect.Zero(e.Type()))
		return nil
	}
	sv := reflect.ValueOf(v)
	switch {
	case sv.Type().AssignableTo(e.Type()):
		e.Set(sv)
	case sv.Kind() == reflect.Pointer && sv.Elem().Type().AssignableTo(e.Type()):
		e.Set(sv.Elem())
	case sv.CanInt() && e.CanInt():
		if e.OverflowInt(sv.Int()) {
			return fmt.Errorf("%w: %v overflows %s", ErrInvalidArgument, v, e.Type())
		}
		e.SetInt(sv.Int())
	case (sv.CanFloat() || sv.CanInt()) && e.CanFloat():
		if sv.CanInt() {
			e.SetFloat(float64(sv.Int()))
		} else {
			e.SetFloat(sv.Float())
		}
	case sv.Kind() == reflect.String && e.Kind() == reflect.String:
		e.SetString(sv.String())
	default:
		return fmt.Errorf("%w: cannot store %T in %s", ErrInvalidArgument, v, e.Type())
	}
	return nil
}

var errCorruptPage = fmt.Errorf("%w: corrupt result page", ErrInternal)

// decodeValue reads one value of a page (see RowBatch in the API).
func decodeValue(b []byte) (rawValue, []byte, error) {
	bad := errCorruptPage
	if len(b) == 0 {
		return rawValue{}, nil, bad
	}
	tag, b := b[0], b[1:]
	switch tag {
	case 0:
		return rawValue{}, b, nil
	case 1, 2:
		return rawValue{v: tag == 2}, b, nil
	case 3:
		if len(b) < 1 {
			return rawValue{}, nil, bad
		}
		t := pb.SqlType(b[0])
		i, n := binary.Varint(b[1:])
		if n <= 0 {
			return rawValue{}, nil, bad
		}
		b = b[1+n:]
		switch t {
		case pb.SqlType_SQL_TYPE_TINYINT:
			return rawValue{v: int8(i)}, b, nil
		case pb.SqlType_SQL_TYPE_SMALLINT:
			return rawValue{v: int16(i)}, b, nil
		case pb.SqlType_SQL_TYPE_INTEGER:
			return rawValue{v: int32(i)}, b, nil
		case pb.SqlType_SQL_TYPE_DATE:
			return rawValue{v: time.Unix(i*86400, 0).UTC()}, b, nil
		case pb.SqlType_SQL_TYPE_TIME:
			return rawValue{v: time.Duration(i)}, b, nil
		case pb.SqlType_SQL_TYPE_TIMESTAMP, pb.SqlType_SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE:
			return rawValue{v: time.UnixMicro(i).UTC()}, b, nil
		case pb.SqlType_SQL_TYPE_BOOLEAN:
			return rawValue{v: i != 0}, b, nil
		}
		return rawValue{v: i}, b, nil
	case 4:
		if len(b) < 9 {
			return rawValue{}, nil, bad
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))
		if pb.SqlType(b[0]) == pb.SqlType_SQL_TYPE_REAL {
			return rawValue{v: float32(f)}, b[9:], nil
		}
		return rawValue{v: f}, b[9:], nil
	case 5:
		if len(b) < 1 {
			return rawValue{}, nil, bad
		}
		t := pb.SqlType(b[0])
		l, n := binary.Uvarint(b[1:])
		if n <= 0 || l > uint64(len(b)-1-n) {
			return rawValue{}, nil, bad
		}
		s := string(b[1+n : 1+n+int(l)])
		b = b[1+n+int(l):]
		if t == pb.SqlType_SQL_TYPE_JSON {
			return rawValue{v: serialization.JSON(s)}, b, nil
		}
		return rawValue{v: s}, b, nil
	case 6:
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return rawValue{}, nil, bad
		}
		return rawValue{data: b[n : n+int(l) : n+int(l)]}, b[n+int(l):], nil
	}
	return rawValue{}, nil, bad
}

// QueryOption tunes a query.
type QueryOption func(*pb.ExecuteRequest)

// WithPageSize sets how many rows each page carries.
func WithPageSize(n int) QueryOption {
	return func(r *pb.ExecuteRequest) { r.PageSize = int32(n) }
}

// WithQueryTimeout bounds how long the query may run on the cluster.
func WithQueryTimeout(d time.Duration) QueryOption {
	return func(r *pb.ExecuteRequest) { r.TimeoutMs = max(1, d.Milliseconds()) }
}

func (c *Client) encoder() predicate.Encoder {
	return func(v any) ([]byte, error) {
		d, err := c.ser.ToData(v)
		return d, err
	}
}

// SQL runs a statement (Hazelcast's SQL dialect) with ? parameters and
// returns its rows. DML and DDL return Rows with no columns and an update
// count. Errors in the statement are *Error matching ErrQuery, with Line and
// Column set. Options (WithPageSize, WithQueryTimeout) may be passed among
// the parameters; they are not parameters.
func (c *Client) SQL(ctx context.Context, stmt string, params ...any) (*Rows, error) {
	if err := checkText("sql", stmt); err != nil {
		return nil, err
	}
	req := &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: stmt}}
	for _, p := range params {
		if o, ok := p.(QueryOption); ok {
			o(req)
			continue
		}
		q, err := predicate.ValueToProto(p, c.encoder())
		if err != nil {
			return nil, fmt.Errorf("%w: parameter %d: %w", ErrInvalidArgument, len(req.Params)+1, err)
		}
		req.Params = append(req.Params, q)
	}
	if err := c.meta.flush(ctx); err != nil {
		return nil, err
	}
	return c.execute(ctx, req)
}

// ExplainSQL returns the plan of a statement.
func (c *Client) ExplainSQL(ctx context.Context, stmt string, params ...any) (string, error) {
	rows, err := c.SQL(ctx, stmt, append(params, QueryOption(func(r *pb.ExecuteRequest) { r.Explain = true }))...)
	if err != nil {
		return "", err
	}
	return planText(rows)
}

func planText(rows *Rows) (string, error) {
	defer rows.Close()
	var out string
	for rows.Next() {
		v, _ := rows.cur[0].v.(string)
		if out != "" {
			out += "\n"
		}
		out += v
	}
	return out, rows.Err()
}

// execute sends a request to a member (the query's coordinator) and
// returns its first page.
func (c *Client) execute(ctx context.Context, req *pb.ExecuteRequest) (*Rows, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	if _, ok := ctx.Deadline(); !ok && req.TimeoutMs == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.InvocationTimeout)
		defer cancel()
	}
	dl, untilDeadline := ctx.Deadline()
	untilDeadline = untilDeadline && req.TimeoutMs == 0
	if rows := c.executeByPartitions(ctx, req, untilDeadline, dl); rows != nil {
		return rows, nil
	}
	var lastErr error
	// Failures of the connection, a schema to publish or another
	// retryable error: three attempts; memory refusals: QueryRetry's.
	others, memory := 0, 0
	otherRetry, memoryRetry := c.retrier(), retrier{policy: c.cfg.QueryRetry}
	for others < 3 {
		if untilDeadline {
			// The member stops the query when the caller gives up waiting.
			req.TimeoutMs = max(1, time.Until(dl).Milliseconds())
		}
		cn, err := c.queryConn(ctx)
		if err != nil {
			return nil, err
		}
		qs, err := c.queryStreamFor(cn)
		if err != nil {
			return nil, err
		}
		resp, err := qs.call(ctx, &pb.QueryCall{Op: &pb.QueryCall_Execute{Execute: req}})
		if err != nil {
			lastErr = err
			var e *Error
			if errors.As(err, &e) && errors.Is(e, ErrMemoryLimit) && e.Retryable {
				memory++
				if memory >= c.cfg.QueryRetry.Attempts {
					return nil, &QueryMemoryError{Attempts: memory, Last: e}
				}
				if werr := memoryRetry.wait(ctx, e.RetryAfter); werr != nil {
					return nil, &QueryMemoryError{Attempts: memory, Last: e, Cause: werr}
				}
				continue
			}
			others++
			var ce *connError
			if errors.As(err, &ce) && !ce.sent && ctx.Err() == nil {
				continue // never reached the member: a new stream on the next attempt
			}
			if errors.As(lastErr, &e) && errors.Is(e, ErrUnknownSchema) {
				if perr := c.meta.publishSchema(ctx, e.SchemaID); perr == nil {
					continue
				}
			}
			if errors.As(lastErr, &e) && e.Retryable && ctx.Err() == nil {
				_ = otherRetry.wait(ctx, 0) // an ended ctx fails the next attempt
				continue
			}
			return nil, lastErr
		}
		return c.newRows(ctx, qs, resp), nil
	}
	return nil, lastErr
}

// newRows returns the rows of a query whose first page is resp.
func (c *Client) newRows(ctx context.Context, qs *queryStream, resp *pb.ExecuteResponse) *Rows {
	r := &Rows{ctx: context.WithoutCancel(ctx), c: c, qs: qs, updates: resp.UpdateCount}
	for _, col := range resp.Columns {
		r.columns = append(r.columns, Column{Name: col.Name, Type: sqlTypeNames[col.Type]})
		r.types = append(r.types, col.Type)
	}
	r.setPage(resp)
	return r
}

// executeByPartitions runs a query on every partition owner at once, each
// over its own partitions (see Config.QueryThroughOneMember), and returns
// its rows, or nil when it cannot: the query is not one whose rows are
// the union of its partitions', the client knows no owner for some
// partition or cannot reach one, a member does not offer it, or a part
// failed (a partition moved, a member's limit, an error in the query).
// The caller then sends the query to one member, which runs it whole,
// with the retries and errors of that path.
func (c *Client) executeByPartitions(ctx context.Context, req *pb.ExecuteRequest, untilDeadline bool, dl time.Time) *Rows {
	key, ok := partitionKey(req)
	if !ok || c.cfg.QueryThroughOneMember || c.unpartitionable.has(key) {
		return nil
	}
	rt := c.routing.Load()
	if rt == nil || len(rt.byOwner) < 2 {
		return nil
	}
	// One attempt only: a failure falls back at once.
	parts := make([]ownerRows, 0, len(rt.byOwner))
	calls := make([]*pendingCall, 0, len(rt.byOwner))
	abandon := func() {
		for _, pc := range calls {
			pc.abandon()
		}
	}
	for _, o := range rt.byOwner {
		cn, err := c.connTo(ctx, o.addr)
		if err != nil || cn.pipe == nil || !cn.pipe.partitionQueries {
			abandon()
			return nil
		}
		qs, err := c.queryStreamFor(cn)
		if err != nil {
			abandon()
			return nil
		}
		// The first owner's reply brings the columns.
		part := &pb.ExecuteRequest{Query: req.Query, Params: req.Params, PageSize: req.PageSize, TimeoutMs: req.TimeoutMs, Partitions: o.set, OmitColumns: len(calls) > 0}
		if untilDeadline {
			part.TimeoutMs = max(1, time.Until(dl).Milliseconds())
		}
		pc, err := qs.start(ctx, &pb.QueryCall{Op: &pb.QueryCall_Execute{Execute: part}})
		if err != nil {
			abandon()
			return nil
		}
		calls = append(calls, pc)
		parts = append(parts, ownerRows{qs: qs})
	}
	var failed error
	for i, pc := range calls {
		if failed != nil {
			pc.abandon()
			continue
		}
		parts[i].resp, failed = pc.wait(ctx)
	}
	if failed != nil {
		if errors.Is(failed, errNotPartitionable) {
			c.unpartitionable.add(key)
		}
		for _, p := range parts {
			if p.resp != nil && p.resp.CursorId != 0 {
				p.qs.closeOrphan(&pb.QueryReply{Result: p.resp})
			}
		}
		return nil
	}
	r := c.newRows(ctx, parts[0].qs, parts[0].resp)
	r.rest = parts[1:]
	return r
}

// partitionKey returns what decides whether a query can run by
// partitions (its statement, or its map and kind of result), or false
// for a query that cannot: a statement other than SELECT, an aggregate
// through the Predicate API, EXPLAIN.
func partitionKey(req *pb.ExecuteRequest) (queryKey, bool) {
	if req.Explain {
		return queryKey{}, false
	}
	switch q := req.Query.(type) {
	case *pb.ExecuteRequest_Sql:
		return queryKey{sql: q.Sql}, isSelect(q.Sql)
	case *pb.ExecuteRequest_Predicate:
		switch r := q.Predicate.GetResult(); r {
		case pb.PredicateResult_PREDICATE_RESULT_ENTRIES, pb.PredicateResult_PREDICATE_RESULT_KEYS,
			pb.PredicateResult_PREDICATE_RESULT_VALUES, pb.PredicateResult_PREDICATE_RESULT_PROJECT:
			return queryKey{mapName: q.Predicate.GetMap(), result: r}, true
		}
	}
	return queryKey{}, false
}

// queryKey is a statement, or a predicate query's map and kind of result.
type queryKey struct {
	sql     string
	mapName string
	result  pb.PredicateResult
}

// isSelect reports whether a statement starts with SELECT (after spaces).
func isSelect(stmt string) bool {
	s := strings.TrimLeft(stmt, " \t\r\n(")
	return len(s) >= 6 && strings.EqualFold(s[:6], "select")
}

// unpartitionable remembers the queries members refused to run by
// partitions (by partitionKey), up to a bound: past it, it starts again.
type unpartitionable struct {
	mu   sync.Mutex
	keys map[queryKey]struct{}
}

// maxUnpartitionable bounds the queries remembered.
const maxUnpartitionable = 4096

func (u *unpartitionable) has(key queryKey) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.keys[key]
	return ok
}

func (u *unpartitionable) add(key queryKey) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.keys == nil || len(u.keys) >= maxUnpartitionable {
		u.keys = map[queryKey]struct{}{}
	}
	u.keys[key] = struct{}{}
}

// ---- Predicate API on maps ---------------------------------------------------

func (m *Map[K, V]) predicateQuery(ctx context.Context, result pb.PredicateResult, p predicate.Predicate, build func(*pb.PredicateQuery)) (*Rows, error) {
	q := &pb.PredicateQuery{Map: m.name, Result: result}
	if p != nil {
		pp, err := predicate.ToProto(p, m.c.encoder())
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		q.Predicate = pp
	}
	if build != nil {
		build(q)
	}
	return m.execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: q}})
}

func firstPredicate(ps []predicate.Predicate) predicate.Predicate {
	if len(ps) == 0 {
		return nil
	}
	if len(ps) == 1 {
		return ps[0]
	}
	return predicate.And(ps...)
}

// EntrySetWithPredicate returns the entries p matches (IMap.entrySet(p)).
// A PagingPredicate returns one page, in its order.
func (m *Map[K, V]) EntrySetWithPredicate(ctx context.Context, p predicate.Predicate) ([]Entry[K, V], error) {
	rows, err := m.predicateQuery(ctx, pb.PredicateResult_PREDICATE_RESULT_ENTRIES, p, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry[K, V]
	for rows.Next() {
		k, err := m.decodeKey(ctx, rows.decoder(), rows.cur[0].data)
		if err != nil {
			return nil, err
		}
		v, err := m.decode(ctx, rows.decoder(), rows.cur[1].data)
		if err != nil {
			return nil, err
		}
		out = append(out, Entry[K, V]{k, v})
	}
	return out, rows.Err()
}

// KeySetWithPredicate returns the keys of the entries p matches.
func (m *Map[K, V]) KeySetWithPredicate(ctx context.Context, p predicate.Predicate) ([]K, error) {
	return decodeColumn(ctx, m, pb.PredicateResult_PREDICATE_RESULT_KEYS, p, m.decodeKey)
}

// ValuesWithPredicate returns the values of the entries p matches,
// deserialized page by page as they arrive (a page is dropped once its
// values are read). ValueListWithPredicate returns them serialized, to
// be deserialized one by one when read.
func (m *Map[K, V]) ValuesWithPredicate(ctx context.Context, p predicate.Predicate) ([]V, error) {
	return decodeColumn(ctx, m, pb.PredicateResult_PREDICATE_RESULT_VALUES, p, m.decode)
}

// decodeColumn runs a predicate query whose rows are one serialized
// column (keys or values) and deserializes each with decode, page by page
// as the pages arrive.
func decodeColumn[K, V, T any](ctx context.Context, m *Map[K, V], result pb.PredicateResult, p predicate.Predicate,
	decode func(context.Context, *serialization.Decoder, []byte) (T, error)) ([]T, error) {
	rows, err := m.predicateQuery(ctx, result, p, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := decode(ctx, rows.decoder(), rows.cur[0].data)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ValueListWithPredicate returns the values of the entries p matches as
// they arrived, serialized, like the lazy list IMap.values(p) returns in
// Hazelcast: Len costs nothing, and At deserializes one value when it is
// read. All the result's pages are read before it returns.
func (m *Map[K, V]) ValueListWithPredicate(ctx context.Context, p predicate.Predicate) (*ValueList[V], error) {
	rows, err := m.predicateQuery(ctx, pb.PredicateResult_PREDICATE_RESULT_VALUES, p, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	l := &ValueList[V]{ser: m.c.ser, decode: m.decode}
	for rows.Next() {
		// The data is a slice of its page, which no later page reuses.
		l.data = append(l.data, rows.cur[0].data)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return l, nil
}

// ValueList holds the values of a predicate query serialized, and
// deserializes each one when it is read (ValueListWithPredicate). It keeps
// the pages of the result alive while it is, and it is not safe for
// concurrent use.
type ValueList[V any] struct {
	data   [][]byte
	ser    *serialization.Service
	decode func(context.Context, *serialization.Decoder, []byte) (V, error)
	// dec deserializes the values, which share its blocks (see Rows).
	dec *serialization.Decoder
}

// Len returns the number of values.
func (l *ValueList[V]) Len() int { return len(l.data) }

// Data returns value i's serialized Data, without deserializing it. It
// panics when i is out of range, as indexing a slice does.
func (l *ValueList[V]) Data(i int) []byte { return l.data[i] }

// At deserializes value i: each call returns a new object. ctx bounds
// fetching a schema or class definition the client does not have yet. It
// panics when i is out of range, as indexing a slice does.
func (l *ValueList[V]) At(ctx context.Context, i int) (V, error) {
	d := l.data[i]
	if l.dec == nil {
		l.dec = l.ser.NewDecoder()
	}
	return l.decode(ctx, l.dec, d)
}

// All deserializes every value, in order.
func (l *ValueList[V]) All(ctx context.Context) ([]V, error) {
	if len(l.data) == 0 {
		return nil, nil
	}
	out := make([]V, 0, len(l.data))
	for i := range l.data {
		v, err := l.At(ctx, i)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Aggregate runs an aggregator over the entries the predicates match (all
// entries without one), like IMap.aggregate. Results: count, sums of
// integers and fixed-point sums are int64 (0 for no entries); double sums
// float64; averages float64 (nil for no entries); min and max the
// attribute's value; distinct a []any; minBy and maxBy an Entry[K, V]
// (zero Entry for no entries).
func (m *Map[K, V]) Aggregate(ctx context.Context, agg predicate.Aggregator, p ...predicate.Predicate) (any, error) {
	rows, err := m.predicateQuery(ctx, pb.PredicateResult_PREDICATE_RESULT_AGGREGATE, firstPredicate(p), func(q *pb.PredicateQuery) {
		q.Aggregator = agg.ToProto()
	})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	switch agg.Kind {
	case pb.AggregatorKind_AGGREGATOR_KIND_DISTINCT:
		var out []any
		for rows.Next() {
			v, err := rows.value(0)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, rows.Err()
	case pb.AggregatorKind_AGGREGATOR_KIND_MIN_BY, pb.AggregatorKind_AGGREGATOR_KIND_MAX_BY:
		var e Entry[K, V]
		if rows.Next() && rows.cur[0].data != nil {
			if e.Key, err = m.decodeKey(ctx, rows.decoder(), rows.cur[0].data); err != nil {
				return nil, err
			}
			if e.Value, err = m.decode(ctx, rows.decoder(), rows.cur[1].data); err != nil {
				return nil, err
			}
		}
		return e, rows.Err()
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	v, err := rows.value(0)
	if err != nil {
		return nil, err
	}
	if v == nil {
		switch agg.Kind {
		case pb.AggregatorKind_AGGREGATOR_KIND_COUNT, pb.AggregatorKind_AGGREGATOR_KIND_LONG_SUM,
			pb.AggregatorKind_AGGREGATOR_KIND_INTEGER_SUM, pb.AggregatorKind_AGGREGATOR_KIND_FIXED_POINT_SUM:
			return int64(0), nil
		case pb.AggregatorKind_AGGREGATOR_KIND_DOUBLE_SUM, pb.AggregatorKind_AGGREGATOR_KIND_FLOATING_POINT_SUM:
			return float64(0), nil
		}
	}
	return v, nil
}

// Project returns the projected attributes of the entries the predicates
// match: one value per entry for a single attribute, a []any for several.
func (m *Map[K, V]) Project(ctx context.Context, proj predicate.Projection, p ...predicate.Predicate) ([]any, error) {
	rows, err := m.predicateQuery(ctx, pb.PredicateResult_PREDICATE_RESULT_PROJECT, firstPredicate(p), func(q *pb.PredicateQuery) {
		q.Projection = proj.Attributes
	})
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		if len(vals) == 1 {
			out = append(out, vals[0])
		} else {
			out = append(out, vals)
		}
	}
	return out, rows.Err()
}

// ExplainOption chooses which predicate query Explain plans.
type ExplainOption func(*pb.PredicateQuery)

// ExplainAggregate explains Aggregate(agg, p) instead of EntrySetWithPredicate(p).
func ExplainAggregate(agg predicate.Aggregator) ExplainOption {
	return func(q *pb.PredicateQuery) {
		q.Result, q.Aggregator = pb.PredicateResult_PREDICATE_RESULT_AGGREGATE, agg.ToProto()
	}
}

// ExplainProject explains Project(proj, p).
func ExplainProject(proj predicate.Projection) ExplainOption {
	return func(q *pb.PredicateQuery) {
		q.Result, q.Projection = pb.PredicateResult_PREDICATE_RESULT_PROJECT, proj.Attributes
	}
}

// ExplainKeys explains KeySetWithPredicate(p); ExplainValues ValuesWithPredicate(p).
func ExplainKeys() ExplainOption {
	return func(q *pb.PredicateQuery) { q.Result = pb.PredicateResult_PREDICATE_RESULT_KEYS }
}

// ExplainValues explains ValuesWithPredicate(p).
func ExplainValues() ExplainOption {
	return func(q *pb.PredicateQuery) { q.Result = pb.PredicateResult_PREDICATE_RESULT_VALUES }
}

// Explain returns the plan of EntrySetWithPredicate(p) (or of the query an
// option names): the same text EXPLAIN prints for the equivalent SQL.
func (m *Map[K, V]) Explain(ctx context.Context, p predicate.Predicate, opts ...ExplainOption) (string, error) {
	q := &pb.PredicateQuery{Map: m.name, Result: pb.PredicateResult_PREDICATE_RESULT_ENTRIES}
	if p != nil {
		pp, err := predicate.ToProto(p, m.c.encoder())
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
		q.Predicate = pp
	}
	for _, o := range opts {
		o(q)
	}
	rows, err := m.execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Predicate{Predicate: q}, Explain: true})
	if err != nil {
		return "", err
	}
	return planText(rows)
}

// IndexType is the kind of an index.
type IndexType int32

// Index types: sorted indexes answer ranges and equality, hash indexes
// equality and IN.
const (
	IndexSorted IndexType = IndexType(pb.IndexType_INDEX_TYPE_SORTED)
	IndexHash   IndexType = IndexType(pb.IndexType_INDEX_TYPE_HASH)
)

// IndexConfig describes an index (IMap.addIndex).
type IndexConfig struct {
	// Name defaults to map_attribute.
	Name string
	Type IndexType
	// Attributes holds the one attribute path to index.
	Attributes []string
}

// AddIndex creates an index on every member; queries use it from then on.
// Adding an index that exists is not an error.
func (m *Map[K, V]) AddIndex(ctx context.Context, cfg IndexConfig) error {
	if cfg.Type == 0 {
		cfg.Type = IndexSorted
	}
	cn, err := m.anyConn(ctx)
	if err != nil {
		return err
	}
	_, err = pb.NewQueryServiceClient(cn.cc).AddIndex(ctx, &pb.AddIndexRequest{Map: m.name, Name: cfg.Name, Type: pb.IndexType(cfg.Type), Attributes: cfg.Attributes})
	return errorFromStatus(err, cn.addr)
}
