// Package predicate is the Predicate API front end: it lowers a
// PredicateQuery (keySet/values/entrySet with a predicate, aggregate,
// project, paging) to the same logical plan the SQL front end produces for
// the equivalent statement. Every value of the predicate becomes a
// parameter, so queries that differ only in their values share one cached
// plan, as SQL statements with ? do.
package predicate

import (
	"context"
	"encoding/hex"
	"strconv"
	"strings"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/pkg/predicate"
)

// Planner plans predicate queries through a plan cache. Safe for
// concurrent use.
type Planner struct {
	Catalog plan.Catalog
	Cache   *plan.Cache
}

// Plan returns the physical plan of a predicate query and the parameter
// values taken from its predicate. Planning stops when ctx ends, or when
// the timeout it carries (plan.WithBuildTimeout) passes, with that
// context's error.
func (p *Planner) Plan(ctx context.Context, q *pb.PredicateQuery) (*plan.Physical, []expr.Value, error) {
	c, key, version, err := p.cacheKey(q)
	if err != nil {
		return nil, nil, err
	}
	if ph, ok := p.Cache.Get(key, version); ok {
		return ph, c.params, nil
	}
	b := &conv{q: q, build: true}
	if err := b.run(); err != nil {
		return nil, nil, err
	}
	bctx, cancel := plan.BuildContext(ctx)
	defer cancel()
	ph := plan.Build(bctx, b.root, p.Catalog, c.paramTypes(), "query", plan.Options{})
	if err := bctx.Err(); err != nil {
		return nil, nil, err // a plan whose folding stopped short is not cached
	}
	p.Cache.Put(key, version, ph)
	return ph, c.params, nil
}

// Cached returns the plan of q and its parameter values when the plan is
// cached, without planning it: for a caller that must not spend long on
// a query it has not seen.
func (p *Planner) Cached(q *pb.PredicateQuery) (*plan.Physical, []expr.Value, bool) {
	c, key, version, err := p.cacheKey(q)
	if err != nil {
		return nil, nil, false
	}
	ph, ok := p.Cache.Peek(key, version)
	return ph, c.params, ok
}

// cacheKey walks q for its plan cache key and parameter values, and
// returns them with the catalog version the key is for.
func (p *Planner) cacheKey(q *pb.PredicateQuery) (*conv, string, uint64, error) {
	if q == nil || q.Map == "" {
		return nil, "", 0, plan.Errorf("predicate query names no map")
	}
	c := &conv{q: q}
	if err := c.run(); err != nil {
		return nil, "", 0, err
	}
	var version uint64
	if p.Catalog != nil {
		version = p.Catalog.Version()
	}
	return c, plan.Key("predicate", c.key.String(), c.paramTypes(), version), version, nil
}

// paramTypes returns the types of the parameter values c collected.
func (c *conv) paramTypes() []expr.Type {
	types := make([]expr.Type, len(c.params))
	for i, v := range c.params {
		types[i] = v.T
	}
	return types
}

// conv walks a predicate query. Without build it only writes the cache
// key and collects parameter values; with build it also makes the plan.
type conv struct {
	q      *pb.PredicateQuery
	build  bool
	key    strings.Builder
	params []expr.Value
	scan   *plan.Scan
	cols   map[string]int
	root   plan.Node
}

func (c *conv) col(path string, t expr.Type) expr.Expr {
	path = plan.NormalizePath(path)
	k := path + "\x00" + strconv.Itoa(int(t))
	i, ok := c.cols[k]
	if !ok {
		i = len(c.scan.Cols)
		c.cols[k] = i
		c.scan.Cols = append(c.scan.Cols, plan.ScanCol{Path: path, Type: t, Strict: true})
	}
	return &expr.Col{Index: i, Name: path, T: t}
}

func (c *conv) param(q *pb.QueryValue) (expr.Expr, error) {
	v, err := plan.ValueFromProto(q)
	if err != nil {
		return nil, plan.Errorf("predicate value: %v", err)
	}
	c.params = append(c.params, v)
	c.key.WriteString("?" + strconv.Itoa(int(v.T)))
	if !c.build {
		return nil, nil
	}
	return &expr.Param{Index: len(c.params) - 1, T: v.T}, nil
}

// run walks the query: the key and parameters always, the plan with build.
// The walk runs on every call, so its steps are methods with small frames
// (see predicate).
func (c *conv) run() error {
	q := c.q
	c.key.Grow(64)
	c.key.WriteString(q.Map)
	c.key.WriteByte('|')
	c.key.WriteString(strconv.Itoa(int(q.Result)))
	c.key.WriteByte('|')
	c.key.WriteString(strconv.Itoa(len(q.Projection)))
	c.key.WriteByte(':')
	if c.build {
		c.scan = &plan.Scan{Table: q.Map, Map: q.Map}
		c.cols = map[string]int{}
	}
	pred, paging, err := c.unwrap(q.Predicate)
	if err != nil {
		return err
	}
	// The output first, so that column order matches the SQL twin's.
	var out outputs
	if c.build {
		if out, err = c.outputs(); err != nil {
			return err
		}
	} else {
		c.key.WriteString(strings.Join(q.Projection, ","))
		if a := q.Aggregator; a != nil {
			c.key.WriteString("agg" + strconv.Itoa(int(a.Kind)) + "(" + a.Attribute + ")")
		}
	}
	c.key.WriteString("|")
	var cond expr.Expr
	if pred != nil {
		if cond, err = c.predicate(pred, 0); err != nil {
			return err
		}
	}
	if paging != nil {
		return c.page(paging, out, cond)
	}
	if !c.build {
		return nil
	}
	c.scan.Project, c.scan.Names, c.scan.Filter = out.exprs, out.names, cond
	var n plan.Node = c.scan
	switch {
	case out.distinct:
		n = &plan.Distinct{Input: n}
	case len(out.aggs) > 0:
		an := make([]string, len(out.aggs))
		for i, a := range out.aggs {
			an[i] = a.String()
		}
		n = &plan.Aggregate{Input: n, Aggs: out.aggs, Names: an}
	}
	c.root = n
	return nil
}

// unwrap takes the paging and partition predicates off the top of pred.
func (c *conv) unwrap(pred *pb.Predicate) (*pb.Predicate, *pb.PagingPredicate, error) {
	var paging *pb.PagingPredicate
	for pred != nil {
		switch k := pred.Kind.(type) {
		case *pb.Predicate_Paging:
			if paging != nil || k.Paging == nil {
				return nil, nil, plan.Errorf("a paging predicate cannot nest")
			}
			paging = k.Paging
			if paging.PageSize <= 0 || paging.Page < 0 {
				return nil, nil, plan.Errorf("a paging predicate needs a positive page size and a page >= 0")
			}
			pred = paging.Inner
			continue
		case *pb.Predicate_Partition:
			if k.Partition == nil || len(k.Partition.PartitionKey) < 8 {
				return nil, nil, plan.Errorf("a partition predicate needs a serialized key")
			}
			c.key.WriteString("partition:" + hex.EncodeToString(k.Partition.PartitionKey) + ";")
			if c.build {
				c.scan.PartitionKey = k.Partition.PartitionKey
			}
			pred = k.Partition.Inner
			continue
		}
		break
	}
	return pred, paging, nil
}

// outputs is what a predicate query returns, before paging and
// aggregation: the scan's output columns, and the aggregates over them.
type outputs struct {
	exprs    []expr.Expr
	names    []string
	aggs     []plan.AggCall
	distinct bool
}

// outputs sets up the scan's output columns for the query's result kind.
func (c *conv) outputs() (outputs, error) {
	var o outputs
	q := c.q
	switch q.Result {
	case pb.PredicateResult_PREDICATE_RESULT_KEYS:
		o.exprs, o.names = []expr.Expr{c.col("__key", expr.Object)}, []string{"__key"}
	case pb.PredicateResult_PREDICATE_RESULT_VALUES:
		o.exprs, o.names = []expr.Expr{c.col("this", expr.Object)}, []string{"this"}
	case pb.PredicateResult_PREDICATE_RESULT_ENTRIES:
		o.exprs, o.names = []expr.Expr{c.col("__key", expr.Object), c.col("this", expr.Object)}, []string{"__key", "this"}
	case pb.PredicateResult_PREDICATE_RESULT_PROJECT:
		if len(q.Projection) == 0 {
			return o, plan.Errorf("a projection needs attributes")
		}
		for _, a := range q.Projection {
			if a == "" {
				return o, plan.Errorf("empty projection attribute")
			}
			if strings.Contains(a, "[any]") || strings.Contains(a, "[*]") {
				return o, plan.Errorf("projection attribute %s: a projection reads one value per entry, so it cannot use [any] (as in Hazelcast)", a)
			}
			o.exprs = append(o.exprs, c.col(a, expr.Unknown))
			o.names = append(o.names, plan.NormalizePath(a))
		}
	case pb.PredicateResult_PREDICATE_RESULT_AGGREGATE:
		var err error
		if o.aggs, o.exprs, o.names, o.distinct, err = c.aggregator(q.Aggregator); err != nil {
			return o, err
		}
	default:
		return o, plan.Errorf("unknown predicate query result %v", q.Result)
	}
	return o, nil
}

// page adds a paging predicate's key and parameters and, with build, its
// sort and limit over the scan.
func (c *conv) page(paging *pb.PagingPredicate, out outputs, cond expr.Expr) error {
	c.key.WriteString("|page")
	for _, s := range paging.Sort {
		if s == nil {
			return plan.Errorf("empty sort key")
		}
		c.key.WriteString("," + s.Attribute + ":" + strconv.FormatBool(s.Descending))
	}
	limit, err := c.param(&pb.QueryValue{Type: pb.SqlType_SQL_TYPE_BIGINT, I: int64(paging.PageSize)})
	if err != nil {
		return err
	}
	offset, err := c.param(&pb.QueryValue{Type: pb.SqlType_SQL_TYPE_BIGINT, I: int64(paging.PageSize) * int64(paging.Page)})
	if err != nil {
		return err
	}
	if !c.build {
		return nil
	}
	if len(out.aggs) > 0 || out.distinct {
		return plan.Errorf("a paging predicate cannot be used with an aggregation")
	}
	// Sort keys are output columns, or hidden columns projected away.
	exprs, names := out.exprs, out.names
	width := len(exprs)
	var keys []plan.SortKey
	sortCols := paging.Sort
	if len(sortCols) == 0 {
		sortCols = []*pb.SortKey{{Attribute: "__key"}}
	}
	for _, s := range sortCols {
		exprs = append(exprs, c.col(s.Attribute, expr.Unknown))
		names = append(names, "$sort")
		keys = append(keys, plan.SortKey{Col: len(exprs) - 1, Desc: s.Descending})
	}
	// The condition reads the scan's columns (c.col), not its output
	// (which the sort keys extend): it is the scan's own filter.
	c.scan.Project, c.scan.Names, c.scan.Filter = exprs, names, cond
	var n plan.Node = &plan.Sort{Input: c.scan, Keys: keys}
	n = &plan.Limit{Input: n, Limit: limit, Offset: offset}
	keep := make([]expr.Expr, width)
	for i := range keep {
		keep[i] = &expr.Col{Index: i, Name: names[i], T: exprs[i].Type()}
	}
	c.root = &plan.Project{Input: n, Exprs: keep, Names: names[:width]}
	return nil
}

// aggregator maps a Hazelcast aggregator to SQL aggregates over the scan
// output (which it sets up).
func (c *conv) aggregator(a *pb.Aggregator) ([]plan.AggCall, []expr.Expr, []string, bool, error) {
	if a == nil {
		return nil, nil, nil, false, plan.Errorf("an aggregation needs an aggregator")
	}
	attr := a.Attribute
	need := func() error {
		if attr == "" {
			return plan.Errorf("aggregator %v needs an attribute", a.Kind)
		}
		return nil
	}
	col := func() expr.Expr { return &expr.Col{Index: 0, Name: plan.NormalizePath(attr), T: expr.Unknown} }
	one := func() ([]expr.Expr, []string) {
		return []expr.Expr{c.col(attr, expr.Unknown)}, []string{plan.NormalizePath(attr)}
	}
	switch a.Kind {
	case pb.AggregatorKind_AGGREGATOR_KIND_COUNT:
		if attr == "" {
			return []plan.AggCall{{Func: "count", T: expr.BigInt}}, nil, nil, false, nil
		}
		out, names := one()
		return []plan.AggCall{{Func: "count", Arg: col(), T: expr.BigInt}}, out, names, false, nil
	case pb.AggregatorKind_AGGREGATOR_KIND_DISTINCT:
		if err := need(); err != nil {
			return nil, nil, nil, false, err
		}
		out, names := one()
		return nil, out, names, true, nil
	}
	if err := need(); err != nil {
		return nil, nil, nil, false, err
	}
	out, names := one()
	call := plan.AggCall{Arg: col()}
	switch a.Kind {
	case pb.AggregatorKind_AGGREGATOR_KIND_INTEGER_SUM, pb.AggregatorKind_AGGREGATOR_KIND_LONG_SUM, pb.AggregatorKind_AGGREGATOR_KIND_FIXED_POINT_SUM:
		call.Func, call.T = "sum", expr.BigInt
	case pb.AggregatorKind_AGGREGATOR_KIND_DOUBLE_SUM, pb.AggregatorKind_AGGREGATOR_KIND_FLOATING_POINT_SUM:
		call.Func, call.T = "sum", expr.Double
	case pb.AggregatorKind_AGGREGATOR_KIND_INTEGER_AVG, pb.AggregatorKind_AGGREGATOR_KIND_LONG_AVG,
		pb.AggregatorKind_AGGREGATOR_KIND_DOUBLE_AVG, pb.AggregatorKind_AGGREGATOR_KIND_NUMBER_AVG:
		call.Func, call.T = "avg", expr.Double
	case pb.AggregatorKind_AGGREGATOR_KIND_MIN:
		call.Func, call.T = "min", expr.Unknown
	case pb.AggregatorKind_AGGREGATOR_KIND_MAX:
		call.Func, call.T = "max", expr.Unknown
	case pb.AggregatorKind_AGGREGATOR_KIND_MIN_BY, pb.AggregatorKind_AGGREGATOR_KIND_MAX_BY:
		fn := "min_by"
		if a.Kind == pb.AggregatorKind_AGGREGATOR_KIND_MAX_BY {
			fn = "max_by"
		}
		key, val := c.col("__key", expr.Object), c.col("this", expr.Object)
		out = append(out, key, val)
		names = append(names, "__key", "this")
		by := &expr.Col{Index: 0, Name: plan.NormalizePath(attr), T: expr.Unknown}
		return []plan.AggCall{
			{Func: fn, Arg: &expr.Col{Index: 1, Name: "__key", T: expr.Object}, By: by, T: expr.Object},
			{Func: fn, Arg: &expr.Col{Index: 2, Name: "this", T: expr.Object}, By: by, T: expr.Object},
		}, out, names, false, nil
	default:
		return nil, nil, nil, false, plan.Errorf("unknown aggregator %v", a.Kind)
	}
	return []plan.AggCall{call}, out, names, false, nil
}

var compareOps = map[pb.CompareOp]string{
	pb.CompareOp_COMPARE_OP_EQUAL: "=", pb.CompareOp_COMPARE_OP_NOT_EQUAL: "<>", pb.CompareOp_COMPARE_OP_GREATER: ">",
	pb.CompareOp_COMPARE_OP_GREATER_EQUAL: ">=", pb.CompareOp_COMPARE_OP_LESS: "<", pb.CompareOp_COMPARE_OP_LESS_EQUAL: "<=",
}

func isNull(q *pb.QueryValue) bool {
	return q == nil || q.Null || q.Type == pb.SqlType_SQL_TYPE_NULL
}

func (c *conv) attr(a string) (expr.Expr, error) {
	if strings.TrimSpace(a) == "" {
		return nil, plan.Errorf("empty attribute")
	}
	c.key.WriteString(a)
	if !c.build {
		return nil, nil
	}
	return c.col(a, expr.Unknown), nil
}

// predicate lowers one predicate to a condition. Hazelcast's predicates are
// two-valued: NOT p is NOT (p IS TRUE), so that a null attribute that fails
// p passes NOT p. Each kind has its own method: the walk runs on every call
// (it computes the plan-cache key), and one method with every kind's locals
// has a frame large enough to make the call's goroutine grow its stack.
func (c *conv) predicate(q *pb.Predicate, depth int) (expr.Expr, error) {
	if q == nil {
		return nil, plan.Errorf("empty predicate")
	}
	if depth > predicate.MaxDepth {
		return nil, plan.Errorf("predicate nests deeper than %d", predicate.MaxDepth)
	}
	switch k := q.Kind.(type) {
	case *pb.Predicate_Compare:
		return c.compare(k.Compare)
	case *pb.Predicate_Between:
		return c.between(k.Between)
	case *pb.Predicate_In:
		return c.in(k.In)
	case *pb.Predicate_Match:
		return c.match(k.Match)
	case *pb.Predicate_And:
		return c.logical("and", k.And.GetOperands(), depth)
	case *pb.Predicate_Or:
		return c.logical("or", k.Or.GetOperands(), depth)
	case *pb.Predicate_Not:
		c.key.WriteString("(not ")
		e, err := c.predicate(k.Not, depth+1)
		if err != nil {
			return nil, err
		}
		c.key.WriteString(")")
		return c.call("not", c.call("is_true", e)), nil
	case *pb.Predicate_Constant:
		c.key.WriteString(strconv.FormatBool(k.Constant))
		if !c.build {
			return nil, nil
		}
		return &expr.Lit{V: expr.BoolValue(k.Constant)}, nil
	case *pb.Predicate_Sql:
		return c.sql(k.Sql, depth)
	case *pb.Predicate_Paging:
		return nil, plan.Errorf("a paging predicate must be the outermost predicate")
	case *pb.Predicate_Partition:
		return nil, plan.Errorf("a partition predicate must be the outermost predicate")
	}
	return nil, plan.Errorf("empty predicate")
}

// call makes a boolean call when building, and nothing otherwise.
func (c *conv) call(op string, args ...expr.Expr) expr.Expr {
	if !c.build {
		return nil
	}
	return expr.NewCall(op, expr.Boolean, args...)
}

func (c *conv) compare(cmp *pb.Comparison) (expr.Expr, error) {
	op := compareOps[cmp.GetOp()]
	if op == "" {
		return nil, plan.Errorf("unknown comparison %v", cmp.GetOp())
	}
	c.key.WriteString("(" + op + " ")
	col, err := c.attr(cmp.GetAttribute())
	if err != nil {
		return nil, err
	}
	if isNull(cmp.GetValue()) {
		c.key.WriteString(" null)")
		switch op {
		case "=":
			return c.call("is_null", col), nil
		case "<>":
			return c.call("is_not_null", col), nil
		}
		return c.call("and", &expr.Lit{V: expr.BoolValue(false)}), nil
	}
	v, err := c.param(cmp.GetValue())
	c.key.WriteString(")")
	if err != nil {
		return nil, err
	}
	if op == "<>" {
		return c.call("not", c.call("is_true", c.call("=", col, v))), nil
	}
	return c.call(op, col, v), nil
}

func (c *conv) between(b *pb.Between) (expr.Expr, error) {
	c.key.WriteString("(between ")
	col, err := c.attr(b.GetAttribute())
	if err != nil {
		return nil, err
	}
	lo, err := c.param(b.GetFrom())
	if err != nil {
		return nil, err
	}
	hi, err := c.param(b.GetTo())
	if err != nil {
		return nil, err
	}
	c.key.WriteString(")")
	return c.call("between", col, lo, hi), nil
}

func (c *conv) in(in *pb.InList) (expr.Expr, error) {
	if len(in.GetValues()) == 0 {
		return nil, plan.Errorf("IN needs values")
	}
	if len(in.GetValues()) > predicate.MaxOperands {
		return nil, plan.Errorf("IN lists more than %d values", predicate.MaxOperands)
	}
	c.key.WriteString("(in ")
	col, err := c.attr(in.GetAttribute())
	if err != nil {
		return nil, err
	}
	var args []expr.Expr
	if c.build {
		args = make([]expr.Expr, 1, 1+len(in.GetValues()))
		args[0] = col
	}
	for _, v := range in.GetValues() {
		p, err := c.param(v)
		if err != nil {
			return nil, err
		}
		if c.build {
			args = append(args, p)
		}
	}
	c.key.WriteString(")")
	return c.call("in", args...), nil
}

var matchKinds = map[pb.MatchKind]string{pb.MatchKind_MATCH_KIND_LIKE: "like", pb.MatchKind_MATCH_KIND_ILIKE: "ilike", pb.MatchKind_MATCH_KIND_REGEX: "regex"}

func (c *conv) match(m *pb.Match) (expr.Expr, error) {
	kind := matchKinds[m.GetKind()]
	if kind == "" {
		return nil, plan.Errorf("unknown match kind %v", m.Kind)
	}
	c.key.WriteString("(" + kind + " ")
	col, err := c.attr(m.GetAttribute())
	if err != nil {
		return nil, err
	}
	c.key.WriteString(" " + strconv.Quote(m.GetPattern()) + ")")
	if !c.build {
		return nil, nil
	}
	pattern := m.Pattern
	if kind == "regex" {
		pattern = "^(?:" + pattern + ")$" // Java's String.matches: the whole value
	}
	e := c.call(kind, col, &expr.Lit{V: expr.StringValue(pattern)})
	if _, err := expr.Compile(e); err != nil {
		return nil, plan.Errorf("invalid pattern %q: %v", m.Pattern, err)
	}
	return e, nil
}

// logical lowers AND or OR, flattening nested calls of the same operator.
func (c *conv) logical(op string, ops []*pb.Predicate, depth int) (expr.Expr, error) {
	if len(ops) == 0 {
		return nil, plan.Errorf("%s needs operands", strings.ToUpper(op))
	}
	if len(ops) > predicate.MaxOperands {
		return nil, plan.Errorf("%s has more than %d operands", strings.ToUpper(op), predicate.MaxOperands)
	}
	c.key.WriteString("(" + op)
	var args []expr.Expr
	for _, o := range ops {
		c.key.WriteString(" ")
		e, err := c.predicate(o, depth+1)
		if err != nil {
			return nil, err
		}
		if ce, ok := e.(*expr.Call); ok && ce.Op == op {
			args = append(args, ce.Args...)
		} else {
			args = append(args, e)
		}
	}
	c.key.WriteString(")")
	if len(args) == 1 {
		return args[0], nil
	}
	return c.call(op, args...), nil
}

// sql lowers a sql("...") string predicate.
func (c *conv) sql(text string, depth int) (expr.Expr, error) {
	p, err := predicate.ParseSQL(text)
	if err != nil {
		return nil, plan.Errorf("%v", err)
	}
	pq, err := predicate.ToProto(p, nil)
	if err != nil {
		return nil, plan.Errorf("%v", err)
	}
	return c.predicate(pq, depth+1)
}
