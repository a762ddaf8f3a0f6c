package predicate

import (
	"errors"
	"fmt"
	"math"
	"time"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// ErrInvalid reports a predicate that cannot be encoded or decoded.
var ErrInvalid = errors.New("predicate: invalid")

// MaxDepth bounds the nesting of predicates (and, or, not, paging).
const MaxDepth = 100

// MaxOperands bounds the operands of one AND/OR and the values of one IN.
const MaxOperands = 100000

// Encoder serializes values that are not SQL scalars (objects compared with
// __key or this, partition keys) into Data. The client passes its
// serialization service.
type Encoder func(v any) ([]byte, error)

// ObjectData is a serialized object (Data) inside a decoded predicate.
type ObjectData []byte

// ValueToProto converts a Go value to an API value.
func ValueToProto(v any, enc Encoder) (*pb.QueryValue, error) {
	q := &pb.QueryValue{}
	switch x := v.(type) {
	case nil:
		q.Type, q.Null = pb.SqlType_SQL_TYPE_NULL, true
	case bool:
		q.Type = pb.SqlType_SQL_TYPE_BOOLEAN
		if x {
			q.I = 1
		}
	case int8:
		q.Type, q.I = pb.SqlType_SQL_TYPE_TINYINT, int64(x)
	case int16:
		q.Type, q.I = pb.SqlType_SQL_TYPE_SMALLINT, int64(x)
	case int32:
		q.Type, q.I = pb.SqlType_SQL_TYPE_INTEGER, int64(x)
	case int:
		q.Type, q.I = pb.SqlType_SQL_TYPE_BIGINT, int64(x)
	case int64:
		q.Type, q.I = pb.SqlType_SQL_TYPE_BIGINT, x
	case uint8:
		q.Type, q.I = pb.SqlType_SQL_TYPE_SMALLINT, int64(x)
	case uint16:
		q.Type, q.I = pb.SqlType_SQL_TYPE_INTEGER, int64(x)
	case uint32:
		q.Type, q.I = pb.SqlType_SQL_TYPE_BIGINT, int64(x)
	case uint:
		if uint64(x) > math.MaxInt64 {
			return nil, fmt.Errorf("%w: %d is out of the BIGINT range", ErrInvalid, x)
		}
		q.Type, q.I = pb.SqlType_SQL_TYPE_BIGINT, int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return nil, fmt.Errorf("%w: %d is out of the BIGINT range", ErrInvalid, x)
		}
		q.Type, q.I = pb.SqlType_SQL_TYPE_BIGINT, int64(x)
	case float32:
		q.Type, q.F = pb.SqlType_SQL_TYPE_REAL, float64(x)
	case float64:
		q.Type, q.F = pb.SqlType_SQL_TYPE_DOUBLE, x
	case string:
		q.Type, q.S = pb.SqlType_SQL_TYPE_VARCHAR, x
	case time.Time:
		q.Type, q.I = pb.SqlType_SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE, x.UnixMicro()
	case ObjectData:
		q.Type, q.Data = pb.SqlType_SQL_TYPE_OBJECT, x
	case *pb.QueryValue:
		return x, nil
	default:
		if enc == nil {
			return nil, fmt.Errorf("%w: cannot encode a %T without a serializer", ErrInvalid, v)
		}
		d, err := enc(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		q.Type, q.Data = pb.SqlType_SQL_TYPE_OBJECT, d
	}
	return q, nil
}

// ValueFromProto converts an API value to a Go value: nil, bool, int8,
// int16, int32, int64, float32, float64, string, time.Time or ObjectData.
func ValueFromProto(q *pb.QueryValue) (any, error) {
	if q == nil || q.Null {
		return nil, nil
	}
	switch q.Type {
	case pb.SqlType_SQL_TYPE_NULL:
		return nil, nil
	case pb.SqlType_SQL_TYPE_BOOLEAN:
		return q.I != 0, nil
	case pb.SqlType_SQL_TYPE_TINYINT:
		return int8(q.I), nil
	case pb.SqlType_SQL_TYPE_SMALLINT:
		return int16(q.I), nil
	case pb.SqlType_SQL_TYPE_INTEGER:
		return int32(q.I), nil
	case pb.SqlType_SQL_TYPE_BIGINT:
		return q.I, nil
	case pb.SqlType_SQL_TYPE_REAL:
		return float32(q.F), nil
	case pb.SqlType_SQL_TYPE_DOUBLE:
		return q.F, nil
	case pb.SqlType_SQL_TYPE_VARCHAR, pb.SqlType_SQL_TYPE_DECIMAL, pb.SqlType_SQL_TYPE_JSON:
		return q.S, nil
	case pb.SqlType_SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE, pb.SqlType_SQL_TYPE_TIMESTAMP:
		return time.UnixMicro(q.I).UTC(), nil
	case pb.SqlType_SQL_TYPE_OBJECT:
		return ObjectData(q.Data), nil
	}
	return nil, fmt.Errorf("%w: value of type %v", ErrInvalid, q.Type)
}

// ToProto converts a predicate to the API's tree; enc serializes object
// values (nil when there are none).
func ToProto(p Predicate, enc Encoder) (*pb.Predicate, error) { return toProto(p, enc, 0) }

func toProto(p Predicate, enc Encoder, depth int) (*pb.Predicate, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrInvalid, MaxDepth)
	}
	val := func(v any) (*pb.QueryValue, error) { return ValueToProto(v, enc) }
	switch x := p.(type) {
	case nil:
		return nil, fmt.Errorf("%w: nil predicate", ErrInvalid)
	case *Comparison:
		if x.Op < OpEqual || x.Op > OpLessEqual {
			return nil, fmt.Errorf("%w: operator %d", ErrInvalid, x.Op)
		}
		v, err := val(x.Value)
		if err != nil {
			return nil, err
		}
		return &pb.Predicate{Kind: &pb.Predicate_Compare{Compare: &pb.Comparison{Attribute: x.Attribute, Op: pb.CompareOp(x.Op), Value: v}}}, nil
	case *BetweenPredicate:
		from, err := val(x.From)
		if err != nil {
			return nil, err
		}
		to, err := val(x.To)
		if err != nil {
			return nil, err
		}
		return &pb.Predicate{Kind: &pb.Predicate_Between{Between: &pb.Between{Attribute: x.Attribute, From: from, To: to}}}, nil
	case *InPredicate:
		in := &pb.InList{Attribute: x.Attribute}
		for _, v := range x.Values {
			q, err := val(v)
			if err != nil {
				return nil, err
			}
			in.Values = append(in.Values, q)
		}
		return &pb.Predicate{Kind: &pb.Predicate_In{In: in}}, nil
	case *MatchPredicate:
		if x.Kind < MatchLike || x.Kind > MatchRegex {
			return nil, fmt.Errorf("%w: match kind %d", ErrInvalid, x.Kind)
		}
		return &pb.Predicate{Kind: &pb.Predicate_Match{Match: &pb.Match{Attribute: x.Attribute, Kind: pb.MatchKind(x.Kind), Pattern: x.Pattern}}}, nil
	case *AndPredicate, *OrPredicate:
		var ops []Predicate
		if a, ok := x.(*AndPredicate); ok {
			ops = a.Operands
		} else {
			ops = x.(*OrPredicate).Operands
		}
		o := &pb.Operands{}
		for _, op := range ops {
			q, err := toProto(op, enc, depth+1)
			if err != nil {
				return nil, err
			}
			o.Operands = append(o.Operands, q)
		}
		if _, ok := x.(*AndPredicate); ok {
			return &pb.Predicate{Kind: &pb.Predicate_And{And: o}}, nil
		}
		return &pb.Predicate{Kind: &pb.Predicate_Or{Or: o}}, nil
	case *NotPredicate:
		q, err := toProto(x.Operand, enc, depth+1)
		if err != nil {
			return nil, err
		}
		return &pb.Predicate{Kind: &pb.Predicate_Not{Not: q}}, nil
	case *ConstPredicate:
		return &pb.Predicate{Kind: &pb.Predicate_Constant{Constant: x.Value}}, nil
	case *SQLPredicate:
		return &pb.Predicate{Kind: &pb.Predicate_Sql{Sql: x.Text}}, nil
	case *PagingPredicate:
		pp := &pb.PagingPredicate{PageSize: int32(x.PageSize), Page: int32(x.Page)}
		if x.PageSize <= 0 || x.Page < 0 || x.PageSize > math.MaxInt32 || x.Page > math.MaxInt32 {
			return nil, fmt.Errorf("%w: page %d of size %d", ErrInvalid, x.Page, x.PageSize)
		}
		if x.Inner != nil {
			q, err := toProto(x.Inner, enc, depth+1)
			if err != nil {
				return nil, err
			}
			pp.Inner = q
		}
		for _, s := range x.Sort {
			pp.Sort = append(pp.Sort, &pb.SortKey{Attribute: s.Attribute, Descending: s.Descending})
		}
		return &pb.Predicate{Kind: &pb.Predicate_Paging{Paging: pp}}, nil
	case *PartitionPredicate:
		if enc == nil {
			return nil, fmt.Errorf("%w: a partition predicate needs a serializer for its key", ErrInvalid)
		}
		d, err := enc(x.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		pp := &pb.PartitionPredicate{PartitionKey: d}
		if x.Inner != nil {
			q, err := toProto(x.Inner, enc, depth+1)
			if err != nil {
				return nil, err
			}
			pp.Inner = q
		}
		return &pb.Predicate{Kind: &pb.Predicate_Partition{Partition: pp}}, nil
	}
	return nil, fmt.Errorf("%w: unknown predicate %T", ErrInvalid, p)
}

// FromProto converts and validates an API tree. It never panics: hostile
// input is an error.
func FromProto(q *pb.Predicate) (Predicate, error) { return fromProto(q, 0) }

func fromProto(q *pb.Predicate, depth int) (Predicate, error) {
	if q == nil {
		return nil, fmt.Errorf("%w: empty predicate", ErrInvalid)
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrInvalid, MaxDepth)
	}
	attr := func(a string) error {
		if a == "" {
			return fmt.Errorf("%w: empty attribute", ErrInvalid)
		}
		return nil
	}
	switch k := q.Kind.(type) {
	case *pb.Predicate_Compare:
		c := k.Compare
		if c == nil || c.Op < pb.CompareOp_COMPARE_OP_EQUAL || c.Op > pb.CompareOp_COMPARE_OP_LESS_EQUAL {
			return nil, fmt.Errorf("%w: bad comparison", ErrInvalid)
		}
		if err := attr(c.Attribute); err != nil {
			return nil, err
		}
		v, err := ValueFromProto(c.Value)
		if err != nil {
			return nil, err
		}
		return &Comparison{Attribute: c.Attribute, Op: CompareOp(c.Op), Value: v}, nil
	case *pb.Predicate_Between:
		b := k.Between
		if b == nil {
			return nil, fmt.Errorf("%w: bad between", ErrInvalid)
		}
		if err := attr(b.Attribute); err != nil {
			return nil, err
		}
		from, err := ValueFromProto(b.From)
		if err != nil {
			return nil, err
		}
		to, err := ValueFromProto(b.To)
		if err != nil {
			return nil, err
		}
		return &BetweenPredicate{Attribute: b.Attribute, From: from, To: to}, nil
	case *pb.Predicate_In:
		in := k.In
		if in == nil || len(in.Values) > MaxOperands {
			return nil, fmt.Errorf("%w: bad IN list", ErrInvalid)
		}
		if err := attr(in.Attribute); err != nil {
			return nil, err
		}
		p := &InPredicate{Attribute: in.Attribute}
		for _, v := range in.Values {
			x, err := ValueFromProto(v)
			if err != nil {
				return nil, err
			}
			p.Values = append(p.Values, x)
		}
		return p, nil
	case *pb.Predicate_Match:
		m := k.Match
		if m == nil || m.Kind < pb.MatchKind_MATCH_KIND_LIKE || m.Kind > pb.MatchKind_MATCH_KIND_REGEX {
			return nil, fmt.Errorf("%w: bad pattern match", ErrInvalid)
		}
		if err := attr(m.Attribute); err != nil {
			return nil, err
		}
		return &MatchPredicate{Attribute: m.Attribute, Kind: MatchKind(m.Kind), Pattern: m.Pattern}, nil
	case *pb.Predicate_And, *pb.Predicate_Or:
		var o *pb.Operands
		if a, ok := k.(*pb.Predicate_And); ok {
			o = a.And
		} else {
			o = k.(*pb.Predicate_Or).Or
		}
		if o == nil || len(o.Operands) == 0 || len(o.Operands) > MaxOperands {
			return nil, fmt.Errorf("%w: AND/OR needs 1 to %d operands", ErrInvalid, MaxOperands)
		}
		ops := make([]Predicate, 0, len(o.Operands))
		for _, x := range o.Operands {
			p, err := fromProto(x, depth+1)
			if err != nil {
				return nil, err
			}
			ops = append(ops, p)
		}
		if _, ok := k.(*pb.Predicate_And); ok {
			return &AndPredicate{Operands: ops}, nil
		}
		return &OrPredicate{Operands: ops}, nil
	case *pb.Predicate_Not:
		p, err := fromProto(k.Not, depth+1)
		if err != nil {
			return nil, err
		}
		return &NotPredicate{Operand: p}, nil
	case *pb.Predicate_Constant:
		return &ConstPredicate{Value: k.Constant}, nil
	case *pb.Predicate_Sql:
		return &SQLPredicate{Text: k.Sql}, nil
	case *pb.Predicate_Paging:
		pp := k.Paging
		if pp == nil || pp.PageSize <= 0 || pp.Page < 0 {
			return nil, fmt.Errorf("%w: paging needs a positive page size and a page >= 0", ErrInvalid)
		}
		p := &PagingPredicate{PageSize: int(pp.PageSize), Page: int(pp.Page)}
		if pp.Inner != nil {
			in, err := fromProto(pp.Inner, depth+1)
			if err != nil {
				return nil, err
			}
			p.Inner = in
		}
		for _, s := range pp.Sort {
			if s == nil || s.Attribute == "" {
				return nil, fmt.Errorf("%w: empty sort attribute", ErrInvalid)
			}
			p.Sort = append(p.Sort, SortKey{Attribute: s.Attribute, Descending: s.Descending})
		}
		return p, nil
	case *pb.Predicate_Partition:
		pp := k.Partition
		if pp == nil || len(pp.PartitionKey) < 8 {
			return nil, fmt.Errorf("%w: partition predicate needs a serialized key", ErrInvalid)
		}
		p := &PartitionPredicate{Key: ObjectData(pp.PartitionKey)}
		if pp.Inner != nil {
			in, err := fromProto(pp.Inner, depth+1)
			if err != nil {
				return nil, err
			}
			p.Inner = in
		}
		return p, nil
	}
	return nil, fmt.Errorf("%w: empty predicate", ErrInvalid)
}
