package plan

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/query/expr"
)

// ErrBadFragment reports a fragment whose wire form is invalid.
var ErrBadFragment = errors.New("plan: invalid fragment")

// maxExprDepth bounds the nesting of decoded expressions.
const maxExprDepth = 200

// ValueToProto converts a value to its API form.
func ValueToProto(v expr.Value) *pb.QueryValue {
	q := &pb.QueryValue{Type: pb.SqlType(v.T)}
	switch {
	case v.IsNull():
		q.Type, q.Null = pb.SqlType_SQL_TYPE_NULL, true
	case v.T.IsFloat():
		q.F = v.F
	case v.T == expr.Varchar || v.T == expr.JSON:
		q.S = string(v.B)
	case v.T == expr.Object:
		q.Data = v.B
	case v.T == expr.List:
		q.Type, q.Null = pb.SqlType_SQL_TYPE_NULL, true
	default:
		q.I = v.I
	}
	if v.T == expr.Decimal {
		q.S = expr.FormatFloat(v.F)
	}
	return q
}

// ValueFromProto converts an API value.
func ValueFromProto(q *pb.QueryValue) (expr.Value, error) {
	if q == nil || q.Null || q.Type == pb.SqlType_SQL_TYPE_NULL {
		return expr.NullValue, nil
	}
	t := expr.Type(q.Type)
	if t == expr.Unknown || t > expr.JSON {
		return expr.NullValue, fmt.Errorf("value of unknown type %d", q.Type)
	}
	switch {
	case t == expr.Decimal:
		return expr.Cast(expr.StringValue(q.S), expr.Decimal)
	case t.IsFloat():
		return expr.Value{T: t, F: q.F}, nil
	case t == expr.Varchar || t == expr.JSON:
		return expr.Value{T: t, B: []byte(q.S)}, nil
	case t == expr.Object:
		return expr.Value{T: t, B: q.Data}, nil
	case t == expr.Boolean:
		return expr.BoolValue(q.I != 0), nil
	}
	return expr.Value{T: t, I: q.I}, nil
}

// ExprToProto converts an expression.
func ExprToProto(e expr.Expr) *pb.Expr {
	switch x := e.(type) {
	case nil:
		return nil
	case *expr.Col:
		return &pb.Expr{Op: "col", Index: int32(x.Index), Name: x.Name, Type: pb.SqlType(x.T)}
	case *expr.Lit:
		return &pb.Expr{Op: "lit", Value: ValueToProto(x.V)}
	case *expr.Param:
		return &pb.Expr{Op: "param", Index: int32(x.Index), Type: pb.SqlType(x.T)}
	case *expr.Call:
		p := &pb.Expr{Op: "call", Name: x.Op, Type: pb.SqlType(x.T)}
		for _, a := range x.Args {
			p.Args = append(p.Args, ExprToProto(a))
		}
		return p
	}
	return nil
}

// ExprFromProto converts an expression, checking column and parameter
// indexes against the given bounds.
func ExprFromProto(p *pb.Expr, cols, params int) (expr.Expr, error) {
	return exprFromProto(p, cols, params, 0)
}

func exprFromProto(p *pb.Expr, cols, params, depth int) (expr.Expr, error) {
	if p == nil {
		return nil, nil
	}
	if depth > maxExprDepth {
		return nil, fmt.Errorf("%w: expression nests deeper than %d", ErrBadFragment, maxExprDepth)
	}
	t := expr.Type(p.Type)
	if t > expr.JSON {
		return nil, fmt.Errorf("%w: type %d", ErrBadFragment, p.Type)
	}
	switch p.Op {
	case "col":
		if p.Index < 0 || int(p.Index) >= cols {
			return nil, fmt.Errorf("%w: column %d of %d", ErrBadFragment, p.Index, cols)
		}
		return &expr.Col{Index: int(p.Index), Name: p.Name, T: t}, nil
	case "lit":
		v, err := ValueFromProto(p.Value)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
		}
		return &expr.Lit{V: v}, nil
	case "param":
		if p.Index < 0 || int(p.Index) >= params {
			return nil, fmt.Errorf("%w: parameter %d of %d", ErrBadFragment, p.Index, params)
		}
		return &expr.Param{Index: int(p.Index), T: t}, nil
	case "call":
		c := &expr.Call{Op: p.Name, T: t}
		for _, a := range p.Args {
			if a == nil {
				return nil, fmt.Errorf("%w: missing argument", ErrBadFragment)
			}
			x, err := exprFromProto(a, cols, params, depth+1)
			if err != nil {
				return nil, err
			}
			c.Args = append(c.Args, x)
		}
		if _, err := expr.Compile(c); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
		}
		return c, nil
	}
	return nil, fmt.Errorf("%w: unknown node %q", ErrBadFragment, p.Op)
}

func aggToProto(a AggCall) *pb.AggCall {
	return &pb.AggCall{Func: a.Func, Arg: ExprToProto(a.Arg), By: ExprToProto(a.By), Distinct: a.Distinct, Type: pb.SqlType(a.T)}
}

var aggFuncs = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true, "min_by": true, "max_by": true}

// MarshalFragment returns the fragment's wire form (a pb.Fragment).
func MarshalFragment(f *Fragment) ([]byte, error) {
	return proto.Marshal(FragmentToProto(f))
}

// FragmentToProto converts a fragment.
func FragmentToProto(f *Fragment) *pb.Fragment {
	p := &pb.Fragment{Map: f.Map, Filter: ExprToProto(f.Filter), CountOnly: f.CountOnly, Limit: f.Limit}
	if j := f.Join; j != nil {
		pj := &pb.FragmentJoin{Kind: int32(j.Kind), Left: FragmentToProto(j.Left), Right: FragmentToProto(j.Right),
			Residual: ExprToProto(j.Residual), NullAware: j.NullAware, BuildRight: j.BuildRight, Strategy: string(j.Strategy),
			LeftMove: exchangeToProto(j.LeftMove), RightMove: exchangeToProto(j.RightMove)}
		// The inputs read the statement's parameters from the top fragment.
		pj.Left.Params, pj.Right.Params = nil, nil
		for _, e := range j.LeftKeys {
			pj.LeftKeys = append(pj.LeftKeys, ExprToProto(e))
		}
		for _, e := range j.RightKeys {
			pj.RightKeys = append(pj.RightKeys, ExprToProto(e))
		}
		p.Join = pj
	}
	for _, c := range f.Cols {
		p.Columns = append(p.Columns, &pb.ScanColumn{Path: c.Path, Type: pb.SqlType(c.Type), Format: c.Format, Json: c.JSON, Strict: c.Strict})
	}
	for _, e := range f.Project {
		p.Project = append(p.Project, ExprToProto(e))
	}
	for _, e := range f.GroupBy {
		p.GroupBy = append(p.GroupBy, ExprToProto(e))
	}
	for _, a := range f.Aggs {
		p.Aggs = append(p.Aggs, aggToProto(a))
	}
	if f.Index != nil {
		ix := &pb.IndexLookup{Index: f.Index.Index.Name, Low: ExprToProto(f.Index.Low), LowInclusive: f.Index.LowInclusive,
			High: ExprToProto(f.Index.High), HighInclusive: f.Index.HighInclusive}
		for _, e := range f.Index.Equals {
			ix.Equals = append(ix.Equals, ExprToProto(e))
		}
		p.Index = ix
	}
	for _, v := range f.Params {
		p.Params = append(p.Params, ValueToProto(v))
	}
	for _, c := range f.Out {
		p.OutputTypes = append(p.OutputTypes, pb.SqlType(c.Type))
	}
	for _, k := range f.Sort {
		s := int32(k.Col + 1)
		if k.Desc {
			s = -s
		}
		p.Sort = append(p.Sort, s)
	}
	p.PartitionKey = f.PartitionKey
	p.Final = f.Final
	if f.Post != nil {
		pp := &pb.FragmentPost{Filter: ExprToProto(f.Post.Filter)}
		for _, e := range f.Post.Project {
			pp.Project = append(pp.Project, ExprToProto(e))
		}
		for _, e := range f.Post.GroupBy {
			pp.GroupBy = append(pp.GroupBy, ExprToProto(e))
		}
		for _, a := range f.Post.Aggs {
			pp.Aggs = append(pp.Aggs, aggToProto(a))
		}
		p.Post = pp
	}
	return p
}

func exchangeToProto(x *Exchange) *pb.Exchange {
	if x == nil {
		return nil
	}
	p := &pb.Exchange{Id: x.ID, Broadcast: x.Broadcast, HashType: pb.SqlType(x.HashType)}
	for _, e := range x.Keys {
		p.Keys = append(p.Keys, ExprToProto(e))
	}
	return p
}

// maxJoinDepth bounds the nesting of decoded joins.
const maxJoinDepth = 32

// UnmarshalFragment decodes and validates a fragment's wire form. Index
// lookups name the index; indexes resolves the name to its description (nil
// when the member has no such index). params, when not empty, are the
// parameter values of a fragment marshalled without them
// (RunFragmentRequest.params).
func UnmarshalFragment(b []byte, params []*pb.QueryValue, indexes func(mapName, index string) (IndexInfo, bool)) (*Fragment, error) {
	var p pb.Fragment
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
	}
	if len(params) > 0 {
		if len(p.Params) > 0 {
			return nil, fmt.Errorf("%w: parameters both in the fragment and beside it", ErrBadFragment)
		}
		p.Params = params
	}
	return FragmentFromProto(&p, indexes)
}

// ParamsFromProto decodes parameter values.
func ParamsFromProto(qs []*pb.QueryValue) ([]expr.Value, error) {
	var params []expr.Value
	for _, q := range qs {
		v, err := ValueFromProto(q)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
		}
		params = append(params, v)
	}
	return params, nil
}

// FragmentFromProto converts and validates a fragment.
func FragmentFromProto(p *pb.Fragment, indexes func(mapName, index string) (IndexInfo, bool)) (*Fragment, error) {
	params, err := ParamsFromProto(p.Params)
	if err != nil {
		return nil, err
	}
	return fragmentFromProto(p, indexes, params, 0)
}

func fragmentFromProto(p *pb.Fragment, indexes func(mapName, index string) (IndexInfo, bool), params []expr.Value, depth int) (*Fragment, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: missing fragment", ErrBadFragment)
	}
	if depth > maxJoinDepth {
		return nil, fmt.Errorf("%w: joins nest deeper than %d", ErrBadFragment, maxJoinDepth)
	}
	if p.Map == "" && p.Join == nil {
		return nil, fmt.Errorf("%w: no map", ErrBadFragment)
	}
	f := &Fragment{Map: p.Map, Table: p.Map, CountOnly: p.CountOnly, Limit: p.Limit, PartitionKey: p.PartitionKey, Params: params}
	if p.Join != nil {
		if p.Map != "" || len(p.Columns) > 0 || p.CountOnly || p.Index != nil || p.PartitionKey != nil {
			return nil, fmt.Errorf("%w: a join fragment reads no map", ErrBadFragment)
		}
		j, err := joinFromProto(p.Join, indexes, params, depth)
		if err != nil {
			return nil, err
		}
		f.Join = j
	}
	for _, c := range p.Columns {
		if c == nil || c.Type > pb.SqlType_SQL_TYPE_JSON {
			return nil, fmt.Errorf("%w: bad scan column", ErrBadFragment)
		}
		f.Cols = append(f.Cols, ScanCol{Path: c.Path, Type: expr.Type(c.Type), Format: c.Format, JSON: c.Json, Strict: c.Strict})
	}
	nc, np := f.SourceWidth(), len(f.Params)
	var err error
	conv := func(e *pb.Expr) expr.Expr {
		if err != nil {
			return nil
		}
		var x expr.Expr
		x, err = ExprFromProto(e, nc, np)
		return x
	}
	f.Filter = conv(p.Filter)
	for _, e := range p.Project {
		if e == nil {
			return nil, fmt.Errorf("%w: empty projection", ErrBadFragment)
		}
		f.Project = append(f.Project, conv(e))
	}
	for _, e := range p.GroupBy {
		if e == nil {
			return nil, fmt.Errorf("%w: empty group key", ErrBadFragment)
		}
		f.GroupBy = append(f.GroupBy, conv(e))
	}
	for _, a := range p.Aggs {
		if a == nil || !aggFuncs[a.Func] || a.Type > pb.SqlType_SQL_TYPE_JSON {
			return nil, fmt.Errorf("%w: bad aggregate", ErrBadFragment)
		}
		ag := AggCall{Func: a.Func, Arg: conv(a.Arg), By: conv(a.By), Distinct: a.Distinct, T: expr.Type(a.Type)}
		if (a.Func == "min_by" || a.Func == "max_by") && (ag.Arg == nil || ag.By == nil) {
			return nil, fmt.Errorf("%w: %s needs two arguments", ErrBadFragment, a.Func)
		}
		if a.Func != "count" && ag.Arg == nil {
			return nil, fmt.Errorf("%w: %s needs an argument", ErrBadFragment, a.Func)
		}
		f.Aggs = append(f.Aggs, ag)
	}
	if p.Index != nil {
		ix := &IndexLookup{LowInclusive: p.Index.LowInclusive, HighInclusive: p.Index.HighInclusive}
		info, ok := IndexInfo{}, false
		if indexes != nil {
			info, ok = indexes(p.Map, p.Index.Index)
		}
		ix.Index = info
		for _, e := range p.Index.Equals {
			if e == nil {
				return nil, fmt.Errorf("%w: empty lookup value", ErrBadFragment)
			}
			ix.Equals = append(ix.Equals, conv(e))
		}
		ix.Low, ix.High = conv(p.Index.Low), conv(p.Index.High)
		// A member that does not know the index (yet) scans instead: the
		// filter holds the lookup's condition.
		if ok {
			f.Index = ix
		}
	}
	if err != nil {
		return nil, err
	}
	for _, t := range p.OutputTypes {
		if t > pb.SqlType_SQL_TYPE_JSON {
			return nil, fmt.Errorf("%w: bad output type", ErrBadFragment)
		}
		f.Out = append(f.Out, Column{Type: expr.Type(t)})
	}
	for _, s := range p.Sort {
		col, desc := int(s), false
		if s < 0 {
			col, desc = int(-s), true
		}
		if col < 1 || col > len(f.Out) {
			return nil, fmt.Errorf("%w: sort column %d", ErrBadFragment, s)
		}
		f.Sort = append(f.Sort, SortKey{Col: col - 1, Desc: desc})
	}
	want := len(f.Project)
	if f.Aggregating() {
		want = len(f.GroupBy)
		for _, a := range f.Aggs {
			want += PartialWidth(a)
		}
	}
	f.Final = p.Final
	if f.Final && (!f.Aggregating() || f.CountOnly || len(f.Sort) > 0 || f.Limit >= 0) {
		return nil, fmt.Errorf("%w: final groups need a plain aggregation", ErrBadFragment)
	}
	if f.Final {
		want = len(f.GroupBy) + len(f.Aggs)
		in := want
		if p.Post != nil {
			post, w, err := postFromProto(p.Post, in, np)
			if err != nil {
				return nil, err
			}
			f.Post, want = post, w
		}
	} else if p.Post != nil {
		return nil, fmt.Errorf("%w: post operators need final groups", ErrBadFragment)
	}
	if len(f.Out) != want {
		return nil, fmt.Errorf("%w: %d output types for %d columns", ErrBadFragment, len(f.Out), want)
	}
	return f, nil
}

// postFromProto converts a fragment's Post over in columns and returns it
// with the width of its output.
func postFromProto(p *pb.FragmentPost, in, params int) (*Post, int, error) {
	post := &Post{}
	var err error
	conv := func(e *pb.Expr, cols int) expr.Expr {
		if err != nil {
			return nil
		}
		var x expr.Expr
		x, err = ExprFromProto(e, cols, params)
		return x
	}
	post.Filter = conv(p.Filter, in)
	if len(p.Project) == 0 {
		return nil, 0, fmt.Errorf("%w: post operators project no column", ErrBadFragment)
	}
	for _, e := range p.Project {
		if e == nil {
			return nil, 0, fmt.Errorf("%w: empty projection", ErrBadFragment)
		}
		post.Project = append(post.Project, conv(e, in))
	}
	w := len(post.Project)
	for _, e := range p.GroupBy {
		if e == nil {
			return nil, 0, fmt.Errorf("%w: empty group key", ErrBadFragment)
		}
		post.GroupBy = append(post.GroupBy, conv(e, w))
	}
	width := w
	if len(p.Aggs) > 0 || len(p.GroupBy) > 0 {
		width = len(post.GroupBy)
	}
	for _, a := range p.Aggs {
		if a == nil || !aggFuncs[a.Func] || a.Type > pb.SqlType_SQL_TYPE_JSON || a.Distinct {
			return nil, 0, fmt.Errorf("%w: bad aggregate", ErrBadFragment)
		}
		ag := AggCall{Func: a.Func, Arg: conv(a.Arg, w), By: conv(a.By, w), T: expr.Type(a.Type)}
		if (a.Func == "min_by" || a.Func == "max_by") && (ag.Arg == nil || ag.By == nil) || a.Func != "count" && ag.Arg == nil {
			return nil, 0, fmt.Errorf("%w: %s needs its arguments", ErrBadFragment, a.Func)
		}
		post.Aggs = append(post.Aggs, ag)
		width += PartialWidth(ag)
	}
	if err != nil {
		return nil, 0, err
	}
	return post, width, nil
}

func joinFromProto(p *pb.FragmentJoin, indexes func(mapName, index string) (IndexInfo, bool), params []expr.Value, depth int) (*FragmentJoin, error) {
	kind := JoinKind(p.Kind)
	if kind < JoinInner || kind > JoinAnti {
		return nil, fmt.Errorf("%w: join kind %d", ErrBadFragment, p.Kind)
	}
	left, err := fragmentFromProto(p.Left, indexes, params, depth+1)
	if err != nil {
		return nil, err
	}
	right, err := fragmentFromProto(p.Right, indexes, params, depth+1)
	if err != nil {
		return nil, err
	}
	if left.Aggregating() || right.Aggregating() || left.CountOnly || right.CountOnly {
		return nil, fmt.Errorf("%w: a join input cannot aggregate", ErrBadFragment)
	}
	switch st := Strategy(p.Strategy); st {
	case Colocated, Broadcast, Repartition:
	default:
		return nil, fmt.Errorf("%w: join strategy %q", ErrBadFragment, p.Strategy)
	}
	j := &FragmentJoin{Kind: kind, Left: left, Right: right, NullAware: p.NullAware, BuildRight: p.BuildRight, Strategy: Strategy(p.Strategy)}
	if len(p.LeftKeys) != len(p.RightKeys) {
		return nil, fmt.Errorf("%w: %d left keys and %d right keys", ErrBadFragment, len(p.LeftKeys), len(p.RightKeys))
	}
	if p.NullAware && (kind != JoinAnti || len(p.LeftKeys) == 0 || !p.BuildRight) {
		return nil, fmt.Errorf("%w: a NOT IN join is an anti join with a key that builds its right input", ErrBadFragment)
	}
	conv := func(e *pb.Expr, cols int) (expr.Expr, error) {
		if e == nil {
			return nil, fmt.Errorf("%w: missing join expression", ErrBadFragment)
		}
		return ExprFromProto(e, cols, len(params))
	}
	for i := range p.LeftKeys {
		l, err := conv(p.LeftKeys[i], len(left.Out))
		if err != nil {
			return nil, err
		}
		r, err := conv(p.RightKeys[i], len(right.Out))
		if err != nil {
			return nil, err
		}
		j.LeftKeys, j.RightKeys = append(j.LeftKeys, l), append(j.RightKeys, r)
	}
	if p.Residual != nil {
		if j.Residual, err = conv(p.Residual, len(left.Out)+len(right.Out)); err != nil {
			return nil, err
		}
	}
	for i, m := range []*pb.Exchange{p.LeftMove, p.RightMove} {
		if m == nil {
			continue
		}
		in := left
		if i == 1 {
			in = right
		}
		x := &Exchange{ID: m.Id, Broadcast: m.Broadcast}
		if m.HashType > pb.SqlType_SQL_TYPE_JSON {
			return nil, fmt.Errorf("%w: bad exchange hash type", ErrBadFragment)
		}
		x.HashType = expr.Type(m.HashType)
		if !m.Broadcast && len(m.Keys) == 0 {
			return nil, fmt.Errorf("%w: an exchange needs keys or broadcast", ErrBadFragment)
		}
		for _, k := range m.Keys {
			e, err := conv(k, len(in.Out))
			if err != nil {
				return nil, err
			}
			x.Keys = append(x.Keys, e)
		}
		if i == 0 {
			j.LeftMove = x
		} else {
			j.RightMove = x
		}
	}
	if (j.Strategy == Colocated) != (j.LeftMove == nil && j.RightMove == nil) {
		return nil, fmt.Errorf("%w: a %s join's exchanges do not match its strategy", ErrBadFragment, j.Strategy)
	}
	return j, nil
}
