package plan

import (
	"github.com/atolldb/atoll/internal/query/expr"
)

// Node is a plan node. Plans are immutable once built; rules build new
// nodes instead of changing old ones.
type Node interface {
	// Output describes the rows the node produces.
	Output() []Column
	// Inputs returns the child nodes.
	Inputs() []Node
}

// Column is an output column.
type Column struct {
	Name string
	Type expr.Type
}

// ScanCol is an attribute a scan reads from each entry.
type ScanCol struct {
	// Path: __key, __key.f, this, f, a.b, arr[0], arr[any].x, or for
	// JSON_VALUE pushed into the scan "$.a.b" with JSON set.
	Path string
	// Type converts the value (Unknown: keep the data's own type; Object:
	// the serialized Data of __key/this).
	Type expr.Type
	// Format is the mapping's value format ("json-flat" reads JSON fields),
	// empty for Predicate API queries.
	Format string
	// JSON: Path is a JSON path into the value's JSON document.
	JSON bool
	// Strict: the attribute must exist in the value's type (a Predicate
	// API attribute); a Compact, Portable or IDS type without such a field
	// in any version fails the query, as an unknown column fails SQL.
	// JSON documents have no type, and their missing fields are NULL.
	Strict bool
}

// Scan reads the entries of a map on every member: the leaf of every
// query. Filter and Project are expressions over Cols. With Index set the
// entries come from an index lookup instead of a full scan.
type Scan struct {
	Table   string // the name the query used (mapping or map)
	Map     string
	Cols    []ScanCol
	Filter  expr.Expr
	Project []expr.Expr
	Names   []string
	Index   *IndexLookup
	// PartitionKey restricts the scan to the partition of this serialized
	// key (PartitionPredicate, or __key = constant).
	PartitionKey []byte
}

// IndexLookup replaces a scan's full read with an index lookup. Equals
// lists the values of an equality or IN; otherwise Low/High bound a range.
type IndexLookup struct {
	Index         IndexInfo
	Equals        []expr.Expr
	Low, High     expr.Expr
	LowInclusive  bool
	HighInclusive bool
	// Cond is the condition the lookup answers (for EXPLAIN); it stays in
	// the scan's filter too, which makes stale index entries harmless.
	Cond expr.Expr
}

func (s *Scan) Output() []Column {
	out := make([]Column, len(s.Project))
	for i, e := range s.Project {
		out[i] = Column{Name: s.Names[i], Type: e.Type()}
	}
	return out
}
func (s *Scan) Inputs() []Node { return nil }

// Filter keeps the rows for which Cond is TRUE.
type Filter struct {
	Input Node
	Cond  expr.Expr
}

func (f *Filter) Output() []Column { return f.Input.Output() }
func (f *Filter) Inputs() []Node   { return []Node{f.Input} }

// Project computes new columns from each row.
type Project struct {
	Input Node
	Exprs []expr.Expr
	Names []string
}

func (p *Project) Output() []Column {
	out := make([]Column, len(p.Exprs))
	for i, e := range p.Exprs {
		out[i] = Column{Name: p.Names[i], Type: e.Type()}
	}
	return out
}
func (p *Project) Inputs() []Node { return []Node{p.Input} }

// AggCall is one aggregate function. Func: count (Arg nil: COUNT(*)), sum,
// avg, min, max, min_by, max_by (Arg is the returned value, By the
// compared one).
type AggCall struct {
	Func     string
	Arg      expr.Expr
	By       expr.Expr
	Distinct bool
	T        expr.Type
}

func (a AggCall) String() string {
	s := upper(a.Func) + "("
	if a.Distinct {
		s += "DISTINCT "
	}
	switch {
	case a.Arg == nil:
		s += "*"
	case a.By != nil:
		s += a.Arg.String() + ", " + a.By.String()
	default:
		s += a.Arg.String()
	}
	return s + ")"
}

// Aggregate groups its input by GroupBy and computes Aggs; the output is
// the group keys followed by the aggregates.
type Aggregate struct {
	Input   Node
	GroupBy []expr.Expr
	Aggs    []AggCall
	Names   []string // group key names then aggregate names
}

func (a *Aggregate) Output() []Column {
	out := make([]Column, 0, len(a.GroupBy)+len(a.Aggs))
	for i, g := range a.GroupBy {
		out = append(out, Column{Name: a.Names[i], Type: g.Type()})
	}
	for i, ag := range a.Aggs {
		out = append(out, Column{Name: a.Names[len(a.GroupBy)+i], Type: ag.T})
	}
	return out
}
func (a *Aggregate) Inputs() []Node { return []Node{a.Input} }

// SortKey orders by an input column.
type SortKey struct {
	Col  int
	Desc bool
}

// Sort orders its input (NULLs first ascending, last descending).
type Sort struct {
	Input Node
	Keys  []SortKey
}

func (s *Sort) Output() []Column { return s.Input.Output() }
func (s *Sort) Inputs() []Node   { return []Node{s.Input} }

// Limit skips Offset rows and passes at most Limit rows (nil: no limit).
type Limit struct {
	Input  Node
	Limit  expr.Expr
	Offset expr.Expr
}

func (l *Limit) Output() []Column { return l.Input.Output() }
func (l *Limit) Inputs() []Node   { return []Node{l.Input} }

// Distinct removes duplicate rows.
type Distinct struct{ Input Node }

func (d *Distinct) Output() []Column { return d.Input.Output() }
func (d *Distinct) Inputs() []Node   { return []Node{d.Input} }

// UnionAll concatenates its inputs' rows.
type UnionAll struct{ Ins []Node }

func (u *UnionAll) Output() []Column { return u.Ins[0].Output() }
func (u *UnionAll) Inputs() []Node   { return u.Ins }

// JoinKind is the kind of a join. RIGHT joins are LEFT joins with their
// inputs swapped (the front end swaps them); CROSS joins and comma joins
// are inner joins without a condition.
type JoinKind uint8

// Join kinds.
const (
	// JoinInner keeps the pairs of rows for which Cond is TRUE.
	JoinInner JoinKind = iota + 1
	// JoinLeft keeps the inner join's pairs and every left row that has
	// none, with NULLs for the right columns.
	JoinLeft
	// JoinSemi keeps each left row that has at least one right row for
	// which Cond is TRUE (EXISTS, IN); its output is the left columns.
	JoinSemi
	// JoinAnti keeps each left row that has none (NOT EXISTS, NOT IN).
	JoinAnti
)

func (k JoinKind) String() string {
	switch k {
	case JoinInner:
		return "INNER"
	case JoinLeft:
		return "LEFT"
	case JoinSemi:
		return "SEMI"
	case JoinAnti:
		return "ANTI"
	}
	return "?"
}

// Join combines the rows of two inputs. Cond is an expression over the
// left input's columns followed by the right input's (nil: every pair).
// The output is the left columns then the right ones; semi and anti joins
// output the left columns only. Rules split Cond into equality keys (a
// hash join) and a residual condition (a nested loop when no key is left).
type Join struct {
	Left, Right Node
	Kind        JoinKind
	Cond        expr.Expr
	// NullAware marks an anti join that stands for NOT IN (subquery):
	// InLeft NOT IN (InRight of the right rows for which Cond holds). A
	// left row is kept when every such right row compares FALSE: a NULL on
	// either side is unknown and drops the row, and an empty subquery keeps
	// every row. InLeft reads the left columns, InRight the output of both
	// inputs (as Cond).
	NullAware       bool
	InLeft, InRight expr.Expr
	// Hint forces a physical strategy (a query hint), "" to let the
	// planner choose.
	Hint Strategy
	// Plan is set by the plan-joins rule.
	Plan *JoinPlan
}

func (j *Join) Output() []Column {
	l := j.Left.Output()
	if j.Kind == JoinSemi || j.Kind == JoinAnti {
		return l
	}
	return append(append([]Column(nil), l...), j.Right.Output()...)
}
func (j *Join) Inputs() []Node { return []Node{j.Left, j.Right} }

// Strategy is how a join's rows meet on the members.
type Strategy string

// Join strategies.
const (
	// Colocated: both inputs are partitioned on the join key; every member
	// joins its own partitions and no row moves.
	Colocated Strategy = "colocated"
	// Broadcast: every member receives the whole build side (a small one)
	// and joins it with its own rows of the other side.
	Broadcast Strategy = "broadcast"
	// Repartition: rows move to the member that owns the partition of
	// their join key; when one side is already partitioned on the key,
	// only the other side moves.
	Repartition Strategy = "repartition"
	// Coordinator: an input is computed on the coordinator (an aggregate,
	// a sort, a union, constant rows), so the join runs there too.
	Coordinator Strategy = "coordinator"
)

// Hints are a statement's optimizer hints (/*+ NAME(value) ... */).
type Hints struct {
	// Strategy forces every join's strategy when it can apply.
	Strategy Strategy
	// BatchBytes, VectorSize and MemoryLimit override the member's join
	// exchange settings and per-query memory limit (0: the member's).
	BatchBytes, VectorSize, MemoryLimit int64
}

// Values produces constant rows.
type Values struct {
	Rows  [][]expr.Expr
	Names []string
}

func (v *Values) Output() []Column {
	out := make([]Column, len(v.Names))
	for i := range v.Names {
		t := expr.Unknown
		if len(v.Rows) > 0 {
			t = v.Rows[0][i].Type()
		}
		out[i] = Column{Name: v.Names[i], Type: t}
	}
	return out
}
func (v *Values) Inputs() []Node { return nil }

// ExchangeStats reads every member's join exchange counters, one row per
// member (the table function exchange_stats); with Clear each member
// resets them once read.
type ExchangeStats struct{ Clear bool }

// ExchangeStatsColumns are the columns of ExchangeStats: the member's
// address, then its counters.
var ExchangeStatsColumns = []Column{
	{Name: "member", Type: expr.Varchar},
	{Name: "messages_sent", Type: expr.BigInt}, {Name: "messages_received", Type: expr.BigInt},
	{Name: "bytes_sent", Type: expr.BigInt}, {Name: "bytes_received", Type: expr.BigInt},
	{Name: "rows_shipped", Type: expr.BigInt}, {Name: "write_block_us", Type: expr.BigInt},
	{Name: "scheduling_wait_us", Type: expr.BigInt},
}

func (e *ExchangeStats) Output() []Column { return ExchangeStatsColumns }
func (e *ExchangeStats) Inputs() []Node   { return nil }

// ---- Statements that change data or metadata ---------------------------------

// Insert writes its source's rows into a map through a mapping; with
// Overwrite (SINK INTO) existing keys are replaced, otherwise they fail.
type Insert struct {
	Mapping   *Mapping
	Columns   []MappingColumn // target columns, in source column order
	Source    Node
	Overwrite bool
}

func (i *Insert) Output() []Column { return nil }
func (i *Insert) Inputs() []Node   { return []Node{i.Source} }

// Update sets columns of the entries its scan finds. The scan projects
// __key (Object) then the current value (Object) then each new value.
type Update struct {
	Mapping *Mapping
	Scan    *Scan
	Set     []MappingColumn
}

func (u *Update) Output() []Column { return nil }
func (u *Update) Inputs() []Node   { return []Node{u.Scan} }

// Delete removes the entries its scan finds (the scan projects __key as Object).
type Delete struct {
	Mapping *Mapping
	Scan    *Scan
}

func (d *Delete) Output() []Column { return nil }
func (d *Delete) Inputs() []Node   { return []Node{d.Scan} }

// CreateMapping adds or replaces a mapping.
type CreateMapping struct {
	Mapping     *Mapping
	OrReplace   bool
	IfNotExists bool
}

func (c *CreateMapping) Output() []Column { return nil }
func (c *CreateMapping) Inputs() []Node   { return nil }

// DropMapping removes a mapping.
type DropMapping struct {
	Name     string
	IfExists bool
}

func (d *DropMapping) Output() []Column { return nil }
func (d *DropMapping) Inputs() []Node   { return nil }

// CreateIndex adds an index to a map.
type CreateIndex struct {
	Index       IndexInfo
	IfNotExists bool
}

func (c *CreateIndex) Output() []Column { return nil }
func (c *CreateIndex) Inputs() []Node   { return nil }

// ShowMappings lists the mappings (one VARCHAR column, name).
type ShowMappings struct{}

func (ShowMappings) Output() []Column { return []Column{{Name: "name", Type: expr.Varchar}} }
func (ShowMappings) Inputs() []Node   { return nil }

// Explain returns its input's plan as rows of text.
type Explain struct{ Input Node }

func (e *Explain) Output() []Column { return []Column{{Name: "plan", Type: expr.Varchar}} }
func (e *Explain) Inputs() []Node   { return []Node{e.Input} }

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}
