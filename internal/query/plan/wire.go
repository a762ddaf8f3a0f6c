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
	return p
}

// UnmarshalFragment decodes and validates a fragment's wire form. Index
// lookups name the index; indexes resolves the name to its description (nil
// when the member has no such index).
func UnmarshalFragment(b []byte, indexes func(mapName, index string) (IndexInfo, bool)) (*Fragment, error) {
	var p pb.Fragment
	if err := proto.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
	}
	return FragmentFromProto(&p, indexes)
}

// FragmentFromProto converts and validates a fragment.
func FragmentFromProto(p *pb.Fragment, indexes func(mapName, index string) (IndexInfo, bool)) (*Fragment, error) {
	if p.Map == "" {
		return nil, fmt.Errorf("%w: no map", ErrBadFragment)
	}
	f := &Fragment{Map: p.Map, Table: p.Map, CountOnly: p.CountOnly, Limit: p.Limit, PartitionKey: p.PartitionKey}
	for _, c := range p.Columns {
		if c == nil || c.Type > pb.SqlType_SQL_TYPE_JSON {
			return nil, fmt.Errorf("%w: bad scan column", ErrBadFragment)
		}
		f.Cols = append(f.Cols, ScanCol{Path: c.Path, Type: expr.Type(c.Type), Format: c.Format, JSON: c.Json, Strict: c.Strict})
	}
	for _, q := range p.Params {
		v, err := ValueFromProto(q)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadFragment, err)
		}
		f.Params = append(f.Params, v)
	}
	nc, np := len(f.Cols), len(f.Params)
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
	if len(f.Out) != want {
		return nil, fmt.Errorf("%w: %d output types for %d columns", ErrBadFragment, len(f.Out), want)
	}
	return f, nil
}
