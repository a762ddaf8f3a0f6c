// Package predicate builds Hazelcast-style predicates, aggregators and
// projections for queries on Atoll maps, and converts them to and from the
// API's protobuf tree (pkg/client sends them; members decode them).
//
//	p := predicate.And(
//		predicate.Equal("active", true),
//		predicate.GreaterThan("age", 30),
//		predicate.Like("name", "J%"),
//	)
//	people, err := m.ValuesWithPredicate(ctx, p)
//
// Attributes are paths into the key or the value: "__key", "__key.id",
// "this", "name", "address.city", "tags[0]", "orders[any].amount". Values
// are Go scalars (bool, integers, floats, string, time.Time) or, compared
// with __key or this, objects that the client serializes.
//
// Predicates follow Hazelcast's two-valued logic: a comparison with a
// missing or null attribute is false (Equal(attr, nil) matches null), and
// Not inverts that. SQL statements use SQL's three-valued logic instead.
package predicate

import (
	"fmt"
	"strings"
)

// Predicate is a condition on map entries. Build one with the functions of
// this package; the interface is sealed.
type Predicate interface {
	String() string
	sealed()
}

// CompareOp is a comparison operator.
type CompareOp int

// Comparison operators.
const (
	OpEqual CompareOp = iota + 1
	OpNotEqual
	OpGreater
	OpGreaterEqual
	OpLess
	OpLessEqual
)

var opText = map[CompareOp]string{OpEqual: "=", OpNotEqual: "!=", OpGreater: ">", OpGreaterEqual: ">=", OpLess: "<", OpLessEqual: "<="}

// MatchKind is LIKE, ILIKE or REGEX.
type MatchKind int

// Pattern match kinds.
const (
	MatchLike MatchKind = iota + 1
	MatchILike
	MatchRegex
)

var matchText = map[MatchKind]string{MatchLike: "LIKE", MatchILike: "ILIKE", MatchRegex: "REGEX"}

// Comparison compares an attribute with a value.
type Comparison struct {
	Attribute string
	Op        CompareOp
	Value     any
}

// BetweenPredicate matches From <= attribute <= To.
type BetweenPredicate struct {
	Attribute string
	From, To  any
}

// InPredicate matches an attribute equal to one of Values.
type InPredicate struct {
	Attribute string
	Values    []any
}

// MatchPredicate matches a string attribute against a pattern.
type MatchPredicate struct {
	Attribute string
	Kind      MatchKind
	Pattern   string
}

// AndPredicate matches when every operand does.
type AndPredicate struct{ Operands []Predicate }

// OrPredicate matches when any operand does.
type OrPredicate struct{ Operands []Predicate }

// NotPredicate inverts its operand.
type NotPredicate struct{ Operand Predicate }

// ConstPredicate matches every entry (true) or none.
type ConstPredicate struct{ Value bool }

// SQLPredicate is Hazelcast's predicate SQL, parsed on the member.
type SQLPredicate struct{ Text string }

// SortKey orders a paging predicate's results.
type SortKey struct {
	Attribute  string
	Descending bool
}

// PagingPredicate returns one page of the entries its inner predicate
// matches, ordered by Sort (by key when empty). Page numbers start at 0.
type PagingPredicate struct {
	Inner    Predicate
	PageSize int
	Page     int
	Sort     []SortKey
}

// PartitionPredicate restricts Inner to the partition that owns Key.
type PartitionPredicate struct {
	Key   any
	Inner Predicate
}

func (*Comparison) sealed()         {}
func (*BetweenPredicate) sealed()   {}
func (*InPredicate) sealed()        {}
func (*MatchPredicate) sealed()     {}
func (*AndPredicate) sealed()       {}
func (*OrPredicate) sealed()        {}
func (*NotPredicate) sealed()       {}
func (*ConstPredicate) sealed()     {}
func (*SQLPredicate) sealed()       {}
func (*PagingPredicate) sealed()    {}
func (*PartitionPredicate) sealed() {}

func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	}
	return fmt.Sprint(v)
}

func (p *Comparison) String() string {
	return p.Attribute + " " + opText[p.Op] + " " + literal(p.Value)
}
func (p *BetweenPredicate) String() string {
	return p.Attribute + " BETWEEN " + literal(p.From) + " AND " + literal(p.To)
}
func (p *InPredicate) String() string {
	parts := make([]string, len(p.Values))
	for i, v := range p.Values {
		parts[i] = literal(v)
	}
	return p.Attribute + " IN (" + strings.Join(parts, ", ") + ")"
}
func (p *MatchPredicate) String() string {
	return p.Attribute + " " + matchText[p.Kind] + " " + literal(p.Pattern)
}
func joinPreds(ps []Predicate, op string) string {
	parts := make([]string, len(ps))
	for i, x := range ps {
		parts[i] = "(" + x.String() + ")"
	}
	return strings.Join(parts, " "+op+" ")
}
func (p *AndPredicate) String() string { return joinPreds(p.Operands, "AND") }
func (p *OrPredicate) String() string  { return joinPreds(p.Operands, "OR") }
func (p *NotPredicate) String() string { return "NOT (" + p.Operand.String() + ")" }
func (p *ConstPredicate) String() string {
	if p.Value {
		return "TRUE"
	}
	return "FALSE"
}
func (p *SQLPredicate) String() string { return p.Text }
func (p *PagingPredicate) String() string {
	s := fmt.Sprintf("PAGE %d SIZE %d", p.Page, p.PageSize)
	if p.Inner != nil {
		s = p.Inner.String() + " " + s
	}
	return s
}
func (p *PartitionPredicate) String() string {
	return fmt.Sprintf("PARTITION OF %v: %s", p.Key, p.Inner)
}

// Equal matches entries whose attribute equals value (Equal(attr, nil)
// matches a null or missing attribute).
func Equal(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpEqual, Value: value}
}

// NotEqual matches entries whose attribute does not equal value.
func NotEqual(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpNotEqual, Value: value}
}

// GreaterThan matches attribute > value.
func GreaterThan(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpGreater, Value: value}
}

// GreaterEqual matches attribute >= value.
func GreaterEqual(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpGreaterEqual, Value: value}
}

// LessThan matches attribute < value.
func LessThan(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpLess, Value: value}
}

// LessEqual matches attribute <= value.
func LessEqual(attribute string, value any) Predicate {
	return &Comparison{Attribute: attribute, Op: OpLessEqual, Value: value}
}

// Between matches from <= attribute <= to.
func Between(attribute string, from, to any) Predicate {
	return &BetweenPredicate{Attribute: attribute, From: from, To: to}
}

// In matches an attribute equal to one of values.
func In(attribute string, values ...any) Predicate {
	return &InPredicate{Attribute: attribute, Values: values}
}

// Like matches a string attribute against a LIKE pattern (% any run, _ one
// character, \ escapes).
func Like(attribute, pattern string) Predicate {
	return &MatchPredicate{Attribute: attribute, Kind: MatchLike, Pattern: pattern}
}

// ILike is Like ignoring case.
func ILike(attribute, pattern string) Predicate {
	return &MatchPredicate{Attribute: attribute, Kind: MatchILike, Pattern: pattern}
}

// Regex matches a string attribute against a regular expression (RE2
// syntax, matching the whole value as Java's String.matches does).
func Regex(attribute, pattern string) Predicate {
	return &MatchPredicate{Attribute: attribute, Kind: MatchRegex, Pattern: pattern}
}

// And matches entries that every predicate matches.
func And(ps ...Predicate) Predicate { return &AndPredicate{Operands: ps} }

// Or matches entries that any predicate matches.
func Or(ps ...Predicate) Predicate { return &OrPredicate{Operands: ps} }

// Not matches entries that p does not match.
func Not(p Predicate) Predicate { return &NotPredicate{Operand: p} }

// True matches every entry.
func True() Predicate { return &ConstPredicate{Value: true} }

// False matches no entry.
func False() Predicate { return &ConstPredicate{Value: false} }

// SQL is a predicate in Hazelcast's predicate SQL syntax, for example
// "active AND age > 30 AND name LIKE 'J%'". The member parses it; ParseSQL
// checks it on the client.
func SQL(text string) Predicate { return &SQLPredicate{Text: text} }

// Paging returns the first page of pageSize entries that inner (nil: all)
// matches. Sort orders them (by key when none is given); NextPage,
// PreviousPage and SetPage move between pages.
func Paging(inner Predicate, pageSize int, sort ...SortKey) *PagingPredicate {
	return &PagingPredicate{Inner: inner, PageSize: pageSize, Sort: sort}
}

// NextPage moves to the next page.
func (p *PagingPredicate) NextPage() *PagingPredicate { p.Page++; return p }

// PreviousPage moves to the previous page (not before the first).
func (p *PagingPredicate) PreviousPage() *PagingPredicate {
	if p.Page > 0 {
		p.Page--
	}
	return p
}

// SetPage moves to page n (0-based).
func (p *PagingPredicate) SetPage(n int) *PagingPredicate { p.Page = n; return p }

// Partition restricts inner to the partition that owns key (Hazelcast's
// PartitionPredicate): only that partition is scanned.
func Partition(key any, inner Predicate) Predicate {
	return &PartitionPredicate{Key: key, Inner: inner}
}
