// Package predicate is the Predicate API front end: it lowers a
// PredicateQuery (keySet/values/entrySet with a predicate, aggregate,
// project, paging) to the same logical plan the SQL front end produces for
// the equivalent statement. Every value of the predicate becomes a
// parameter, so queries that differ only in their values share one cached
// plan, as SQL statements with ? do.
package predicate

import (
	"encoding/hex"
	"fmt"
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
// values taken from its predicate.
func (p *Planner) Plan(q *pb.PredicateQuery) (*plan.Physical, []expr.Value, error) {
	if q == nil || q.Map == "" {
		return nil, nil, plan.Errorf("predicate query names no map")
	}
	c := &conv{q: q}
	if err := c.run(); err != nil {
		return nil, nil, err
	}
	var version uint64
	if p.Catalog != nil {
		version = p.Catalog.Version()
	}
	types := make([]expr.Type, len(c.params))
	for i, v := range c.params {
		types[i] = v.T
	}
	key := plan.Key("predicate", c.key.String(), types, version)
	if ph, ok := p.Cache.Get(key, version); ok {
		return ph, c.params, nil
	}
	b := &conv{q: q, build: true}
	if err := b.run(); err != nil {
		return nil, nil, err
	}
	ph := plan.Build(b.root, p.Catalog, types, "query")
	p.Cache.Put(key, version, ph)
	return ph, c.params, nil
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
		c.scan.Cols = append(c.scan.Cols, plan.ScanCol{Path: path, Type: t})
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
	return &expr.Param{Index: len(c.params) - 1, T: v.T}, nil
}

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
	pred := q.Predicate
	var paging *pb.PagingPredicate
	// Unwrap paging and partition predicates at the top.
	for pred != nil {
		switch k := pred.Kind.(type) {
		case *pb.Predicate_Paging:
			if paging != nil || k.Paging == nil {
				return plan.Errorf("a paging predicate cannot nest")
			}
			paging = k.Paging
			if paging.PageSize <= 0 || paging.Page < 0 {
				return plan.Errorf("a paging predicate needs a positive page size and a page >= 0")
			}
			pred = paging.Inner
			continue
		case *pb.Predicate_Partition:
			if k.Partition == nil || len(k.Partition.PartitionKey) < 8 {
				return plan.Errorf("a partition predicate needs a serialized key")
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
	// The output first, so that column order matches the SQL twin's.
	var out []expr.Expr
	var names []string
	var aggs []plan.AggCall
	distinct := false
	if c.build {
		switch q.Result {
		case pb.PredicateResult_PREDICATE_RESULT_KEYS:
			out, names = []expr.Expr{c.col("__key", expr.Object)}, []string{"__key"}
		case pb.PredicateResult_PREDICATE_RESULT_VALUES:
			out, names = []expr.Expr{c.col("this", expr.Object)}, []string{"this"}
		case pb.PredicateResult_PREDICATE_RESULT_ENTRIES:
			out, names = []expr.Expr{c.col("__key", expr.Object), c.col("this", expr.Object)}, []string{"__key", "this"}
		case pb.PredicateResult_PREDICATE_RESULT_PROJECT:
			if len(q.Projection) == 0 {
				return plan.Errorf("a projection needs attributes")
			}
			for _, a := range q.Projection {
				if a == "" {
					return plan.Errorf("empty projection attribute")
				}
				out = append(out, c.col(a, expr.Unknown))
				names = append(names, plan.NormalizePath(a))
			}
		case pb.PredicateResult_PREDICATE_RESULT_AGGREGATE:
			var err error
			if aggs, out, names, distinct, err = c.aggregator(q.Aggregator); err != nil {
				return err
			}
		default:
			return plan.Errorf("unknown predicate query result %v", q.Result)
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
		var err error
		if cond, err = c.predicate(pred, 0); err != nil {
			return err
		}
	}
	if paging != nil {
		c.key.WriteString("|page")
		for _, s := range paging.Sort {
			if s == nil {
				return plan.Errorf("empty sort key")
			}
			fmt.Fprintf(&c.key, ",%s:%v", s.Attribute, s.Descending)
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
		if len(aggs) > 0 || distinct {
			return plan.Errorf("a paging predicate cannot be used with an aggregation")
		}
		// Sort keys are output columns, or hidden columns projected away.
		width := len(out)
		var keys []plan.SortKey
		sortCols := paging.Sort
		if len(sortCols) == 0 {
			sortCols = []*pb.SortKey{{Attribute: "__key"}}
		}
		for _, s := range sortCols {
			e := c.col(s.Attribute, expr.Unknown)
			out = append(out, e)
			names = append(names, "$sort")
			keys = append(keys, plan.SortKey{Col: len(out) - 1, Desc: s.Descending})
		}
		// The condition reads the scan's columns (c.col), not its output
		// (which the sort keys extend): it is the scan's own filter.
		c.scan.Project, c.scan.Names, c.scan.Filter = out, names, cond
		var n plan.Node = &plan.Sort{Input: c.scan, Keys: keys}
		n = &plan.Limit{Input: n, Limit: limit, Offset: offset}
		keep := make([]expr.Expr, width)
		for i := range keep {
			keep[i] = &expr.Col{Index: i, Name: names[i], T: out[i].Type()}
		}
		c.root = &plan.Project{Input: n, Exprs: keep, Names: names[:width]}
		return nil
	}
	if !c.build {
		return nil
	}
	c.scan.Project, c.scan.Names, c.scan.Filter = out, names, cond
	var n plan.Node = c.scan
	switch {
	case distinct:
		n = &plan.Distinct{Input: n}
	case len(aggs) > 0:
		an := make([]string, len(aggs))
		for i, a := range aggs {
			an[i] = a.String()
		}
		n = &plan.Aggregate{Input: n, Aggs: aggs, Names: an}
	}
	c.root = n
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
// p passes NOT p.
func (c *conv) predicate(q *pb.Predicate, depth int) (expr.Expr, error) {
	if q == nil {
		return nil, plan.Errorf("empty predicate")
	}
	if depth > predicate.MaxDepth {
		return nil, plan.Errorf("predicate nests deeper than %d", predicate.MaxDepth)
	}
	call := func(op string, args ...expr.Expr) expr.Expr {
		if !c.build {
			return nil
		}
		return expr.NewCall(op, expr.Boolean, args...)
	}
	switch k := q.Kind.(type) {
	case *pb.Predicate_Compare:
		cmp := k.Compare
		op := compareOps[cmp.GetOp()]
		if op == "" {
			return nil, plan.Errorf("unknown comparison %v", cmp.GetOp())
		}
		c.key.WriteString("(" + op + " ")
		col, err := c.attr(cmp.Attribute)
		if err != nil {
			return nil, err
		}
		if isNull(cmp.Value) {
			c.key.WriteString(" null)")
			switch op {
			case "=":
				return call("is_null", col), nil
			case "<>":
				return call("is_not_null", col), nil
			}
			return call("and", &expr.Lit{V: expr.BoolValue(false)}), nil
		}
		v, err := c.param(cmp.Value)
		c.key.WriteString(")")
		if err != nil {
			return nil, err
		}
		if op == "<>" {
			return call("not", call("is_true", call("=", col, v))), nil
		}
		return call(op, col, v), nil
	case *pb.Predicate_Between:
		b := k.Between
		c.key.WriteString("(between ")
		col, err := c.attr(b.Attribute)
		if err != nil {
			return nil, err
		}
		lo, err := c.param(b.From)
		if err != nil {
			return nil, err
		}
		hi, err := c.param(b.To)
		if err != nil {
			return nil, err
		}
		c.key.WriteString(")")
		return call("between", col, lo, hi), nil
	case *pb.Predicate_In:
		in := k.In
		if len(in.Values) == 0 {
			return nil, plan.Errorf("IN needs values")
		}
		if len(in.Values) > predicate.MaxOperands {
			return nil, plan.Errorf("IN lists more than %d values", predicate.MaxOperands)
		}
		c.key.WriteString("(in ")
		col, err := c.attr(in.Attribute)
		if err != nil {
			return nil, err
		}
		args := []expr.Expr{col}
		for _, v := range in.Values {
			p, err := c.param(v)
			if err != nil {
				return nil, err
			}
			args = append(args, p)
		}
		c.key.WriteString(")")
		return call("in", args...), nil
	case *pb.Predicate_Match:
		m := k.Match
		kind := map[pb.MatchKind]string{pb.MatchKind_MATCH_KIND_LIKE: "like", pb.MatchKind_MATCH_KIND_ILIKE: "ilike", pb.MatchKind_MATCH_KIND_REGEX: "regex"}[m.Kind]
		if kind == "" {
			return nil, plan.Errorf("unknown match kind %v", m.Kind)
		}
		c.key.WriteString("(" + kind + " ")
		col, err := c.attr(m.Attribute)
		if err != nil {
			return nil, err
		}
		c.key.WriteString(" " + strconv.Quote(m.Pattern) + ")")
		pattern := m.Pattern
		if kind == "regex" {
			pattern = "^(?:" + pattern + ")$" // Java's String.matches: the whole value
		}
		e := call(kind, col, &expr.Lit{V: expr.StringValue(pattern)})
		if c.build {
			if _, err := expr.Compile(e); err != nil {
				return nil, plan.Errorf("invalid pattern %q: %v", m.Pattern, err)
			}
		}
		return e, nil
	case *pb.Predicate_And, *pb.Predicate_Or:
		op, ops := "and", []*pb.Predicate(nil)
		if a, ok := k.(*pb.Predicate_And); ok {
			ops = a.And.GetOperands()
		} else {
			op, ops = "or", k.(*pb.Predicate_Or).Or.GetOperands()
		}
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
		return call(op, args...), nil
	case *pb.Predicate_Not:
		c.key.WriteString("(not ")
		e, err := c.predicate(k.Not, depth+1)
		if err != nil {
			return nil, err
		}
		c.key.WriteString(")")
		return call("not", call("is_true", e)), nil
	case *pb.Predicate_Constant:
		c.key.WriteString(strconv.FormatBool(k.Constant))
		if !c.build {
			return nil, nil
		}
		return &expr.Lit{V: expr.BoolValue(k.Constant)}, nil
	case *pb.Predicate_Sql:
		p, err := predicate.ParseSQL(k.Sql)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		pq, err := predicate.ToProto(p, nil)
		if err != nil {
			return nil, plan.Errorf("%v", err)
		}
		return c.predicate(pq, depth+1)
	case *pb.Predicate_Paging:
		return nil, plan.Errorf("a paging predicate must be the outermost predicate")
	case *pb.Predicate_Partition:
		return nil, plan.Errorf("a partition predicate must be the outermost predicate")
	}
	return nil, plan.Errorf("empty predicate")
}
