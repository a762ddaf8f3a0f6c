package predicate

import (
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

// Aggregator is one of Hazelcast's aggregators (Aggregators.count(),
// longSum("value"), ...). Map.Aggregate runs it over the entries a
// predicate selects.
type Aggregator struct {
	Kind      pb.AggregatorKind
	Attribute string
}

func agg(k pb.AggregatorKind, attr string) Aggregator { return Aggregator{Kind: k, Attribute: attr} }

// Count counts entries; with an attribute it counts the entries where the
// attribute is not null.
func Count(attribute ...string) Aggregator {
	a := agg(pb.AggregatorKind_AGGREGATOR_KIND_COUNT, "")
	if len(attribute) > 0 {
		a.Attribute = attribute[0]
	}
	return a
}

// Distinct returns the distinct values of an attribute (a []any).
func Distinct(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_DISTINCT, attribute)
}

// IntegerSum sums an int attribute (result int64).
func IntegerSum(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_INTEGER_SUM, attribute)
}

// LongSum sums a long attribute (result int64).
func LongSum(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_LONG_SUM, attribute)
}

// DoubleSum sums a double attribute (result float64).
func DoubleSum(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_DOUBLE_SUM, attribute)
}

// FixedPointSum sums any integer attribute (result int64).
func FixedPointSum(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_FIXED_POINT_SUM, attribute)
}

// FloatingPointSum sums any numeric attribute (result float64).
func FloatingPointSum(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_FLOATING_POINT_SUM, attribute)
}

// IntegerAvg averages an int attribute (result float64).
func IntegerAvg(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_INTEGER_AVG, attribute)
}

// LongAvg averages a long attribute (result float64).
func LongAvg(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_LONG_AVG, attribute)
}

// DoubleAvg averages a double attribute (result float64).
func DoubleAvg(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_DOUBLE_AVG, attribute)
}

// NumberAvg averages any numeric attribute (result float64).
func NumberAvg(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_NUMBER_AVG, attribute)
}

// Min returns the smallest value of an attribute.
func Min(attribute string) Aggregator { return agg(pb.AggregatorKind_AGGREGATOR_KIND_MIN, attribute) }

// Max returns the largest value of an attribute.
func Max(attribute string) Aggregator { return agg(pb.AggregatorKind_AGGREGATOR_KIND_MAX, attribute) }

// MinBy returns the entry whose attribute is smallest.
func MinBy(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_MIN_BY, attribute)
}

// MaxBy returns the entry whose attribute is largest.
func MaxBy(attribute string) Aggregator {
	return agg(pb.AggregatorKind_AGGREGATOR_KIND_MAX_BY, attribute)
}

// ToProto converts the aggregator.
func (a Aggregator) ToProto() *pb.Aggregator {
	return &pb.Aggregator{Kind: a.Kind, Attribute: a.Attribute}
}

// Projection selects attributes of each entry (Hazelcast's
// Projections.singleAttribute / multiAttribute).
type Projection struct {
	Attributes []string
}

// SingleAttribute projects one attribute: each result is its value.
func SingleAttribute(attribute string) Projection { return Projection{Attributes: []string{attribute}} }

// MultiAttribute projects several attributes: each result is a []any.
func MultiAttribute(attributes ...string) Projection { return Projection{Attributes: attributes} }
