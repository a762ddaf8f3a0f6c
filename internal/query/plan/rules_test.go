package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/query/expr"
)

// scanOf returns a scan of map m projecting its columns: __key (typed
// keyType) then the named value columns.
func scanOf(m string, keyType expr.Type, cols ...string) *Scan {
	s := &Scan{Table: m, Map: m}
	all := append([]string{"__key"}, cols...)
	for i, c := range all {
		t := expr.BigInt
		if i == 0 {
			t = keyType
		}
		s.Cols = append(s.Cols, ScanCol{Path: c, Type: t})
		s.Project = append(s.Project, &expr.Col{Index: i, Name: m + "." + c, T: t})
		s.Names = append(s.Names, c)
	}
	return s
}

func col(i int, name string) *expr.Col { return &expr.Col{Index: i, Name: name, T: expr.BigInt} }
func lit(i int64) *expr.Lit            { return &expr.Lit{V: expr.BigIntValue(i)} }
func cmp(op string, a, b expr.Expr) expr.Expr {
	return expr.NewCall(op, expr.Boolean, a, b)
}

type fixedStats map[string]int64

func (s fixedStats) EntryCount(m string) int64 {
	if n, ok := s[m]; ok {
		return n
	}
	return -1
}

// explainLogical prints a logical tree (scans with their filters).
func explainLogical(n Node) string {
	var b strings.Builder
	var walk func(n Node, d int)
	walk = func(n Node, d int) {
		b.WriteString(strings.Repeat("  ", d))
		switch x := n.(type) {
		case *Scan:
			b.WriteString("Scan[" + x.Table)
			if x.Filter != nil {
				b.WriteString(" filter=" + x.Filter.String())
			}
			b.WriteString(" cols=" + exprList(x.Project) + "]")
		case *Filter:
			b.WriteString("Filter[" + x.Cond.String() + "]")
		case *Project:
			b.WriteString("Project[" + exprList(x.Exprs) + "]")
		case *Join:
			s := "Join[" + x.Kind.String()
			if x.Cond != nil {
				s += " on " + x.Cond.String()
			}
			b.WriteString(s + "]")
		default:
			b.WriteString(strings.TrimPrefix(strings.TrimPrefix(typeName(n), "*plan."), "plan."))
		}
		b.WriteString("\n")
		for _, in := range n.Inputs() {
			walk(in, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func typeName(n Node) string {
	switch n.(type) {
	case *Aggregate:
		return "Aggregate"
	case *Sort:
		return "Sort"
	}
	return "?"
}

func TestRuleFoldConstants(t *testing.T) {
	s := scanOf("a", expr.BigInt, "x")
	s.Filter = cmp("=", col(1, "x"), expr.NewCall("+", expr.BigInt, lit(1), lit(2)))
	j := &Join{Left: s, Right: scanOf("b", expr.BigInt), Kind: JoinInner, Cond: cmp("=", lit(1), lit(1))}
	got := explainLogical(foldConstants(j, &Planning{}))
	require.Equal(t, "Join[INNER]\n  Scan[a filter=x = 3 cols=a.__key, a.x]\n  Scan[b cols=b.__key]\n", got)
}

func TestRulePushFilters(t *testing.T) {
	a := func() *Scan { return scanOf("a", expr.BigInt, "x") } // a.__key, a.x
	b := func() *Scan { return scanOf("b", expr.BigInt, "y") } // b.__key, b.y
	cases := []struct {
		name string
		in   Node
		want string
	}{
		{"inner: each side's conjuncts filter it, both sides' stay in the condition",
			&Filter{Input: &Join{Left: a(), Right: b(), Kind: JoinInner},
				Cond: expr.And(cmp(">", col(1, "a.x"), lit(5)), cmp("<", col(3, "b.y"), lit(7)), cmp("=", col(0, "a.__key"), col(3, "b.y")))},
			"Join[INNER on a.__key = b.y]\n  Scan[a filter=a.x > 5 cols=a.__key, a.x]\n  Scan[b filter=b.y < 7 cols=b.__key, b.y]\n"},
		{"left: WHERE on the preserved side filters it, on the NULL-supplying side stays above",
			&Filter{Input: &Join{Left: a(), Right: b(), Kind: JoinLeft, Cond: cmp("=", col(0, "a.__key"), col(3, "b.y"))},
				Cond: expr.And(cmp(">", col(1, "a.x"), lit(5)), cmp("<", col(3, "b.y"), lit(7)))},
			"Filter[b.y < 7]\n  Join[LEFT on a.__key = b.y]\n    Scan[a filter=a.x > 5 cols=a.__key, a.x]\n    Scan[b cols=b.__key, b.y]\n"},
		{"left: ON on the NULL-supplying side filters it, on the preserved side stays in the condition",
			&Join{Left: a(), Right: b(), Kind: JoinLeft,
				Cond: expr.And(cmp("=", col(0, "a.__key"), col(3, "b.y")), cmp(">", col(1, "a.x"), lit(5)), cmp("<", col(3, "b.y"), lit(7)))},
			"Join[LEFT on (a.__key = b.y) AND (a.x > 5)]\n  Scan[a cols=a.__key, a.x]\n  Scan[b filter=b.y < 7 cols=b.__key, b.y]\n"},
		{"anti: ON on the left side stays, on the right side filters it",
			&Join{Left: a(), Right: b(), Kind: JoinAnti,
				Cond: expr.And(cmp("=", col(0, "a.__key"), col(3, "b.y")), cmp(">", col(1, "a.x"), lit(5)), cmp("<", col(3, "b.y"), lit(7)))},
			"Join[ANTI on (a.__key = b.y) AND (a.x > 5)]\n  Scan[a cols=a.__key, a.x]\n  Scan[b filter=b.y < 7 cols=b.__key, b.y]\n"},
		{"semi: ON on the left side filters it",
			&Join{Left: a(), Right: b(), Kind: JoinSemi,
				Cond: expr.And(cmp("=", col(0, "a.__key"), col(3, "b.y")), cmp(">", col(1, "a.x"), lit(5)))},
			"Join[SEMI on a.__key = b.y]\n  Scan[a filter=a.x > 5 cols=a.__key, a.x]\n  Scan[b cols=b.__key, b.y]\n"},
		{"through a projection into a scan",
			&Filter{Input: &Project{Input: a(), Exprs: []expr.Expr{col(1, "x")}, Names: []string{"x"}}, Cond: cmp(">", col(0, "x"), lit(1))},
			"Project[x]\n  Scan[a filter=a.x > 1 cols=a.__key, a.x]\n"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, explainLogical(pushFilters(c.in, &Planning{})), c.name)
	}
}

func TestRulePruneColumns(t *testing.T) {
	// SELECT a.x FROM a JOIN b ON a.__key = b.__key: b's y is read by
	// nothing, a's key only by the condition.
	j := &Join{Left: scanOf("a", expr.BigInt, "x", "z"), Right: scanOf("b", expr.BigInt, "y"), Kind: JoinInner,
		Cond: cmp("=", col(0, "a.__key"), col(3, "b.__key"))}
	p := &Project{Input: j, Exprs: []expr.Expr{col(1, "a.x")}, Names: []string{"x"}}
	got := explainLogical(pruneColumns(p, &Planning{}))
	require.Equal(t, "Project[a.x]\n  Join[INNER on a.__key = b.__key]\n    Scan[a cols=a.__key, a.x]\n    Scan[b cols=b.__key]\n", got)
	// The pruned projection's column references follow the new positions.
	pj := pruneColumns(p, &Planning{}).(*Project).Input.(*Join)
	require.Equal(t, []int{0, 2}, expr.Columns(pj.Cond), "columns the condition reads")
}

func TestRuleMergeProjections(t *testing.T) {
	s := scanOf("a", expr.BigInt, "x")
	inner := &Project{Input: s, Exprs: []expr.Expr{expr.NewCall("+", expr.BigInt, col(1, "x"), lit(1))}, Names: []string{"x1"}}
	outer := &Project{Input: &Filter{Input: inner, Cond: cmp(">", col(0, "x1"), lit(0))}, Exprs: []expr.Expr{col(0, "x1")}, Names: []string{"y"}}
	got := explainLogical(mergeProjections(outer, &Planning{}))
	require.Equal(t, "Project[x1]\n  Filter[x1 > 0]\n    Scan[a cols=a.x + 1]\n", got)
}

func TestRuleChooseIndexes(t *testing.T) {
	s := scanOf("a", expr.BigInt, "x")
	s.Filter = cmp("=", col(1, "x"), lit(4))
	cat := &MemCatalog{I: map[string][]IndexInfo{"a": {{Name: "a_x", Map: "a", Type: IndexHash, Attribute: "x"}}}}
	got := chooseIndexes(&Join{Left: s, Right: scanOf("b", expr.BigInt), Kind: JoinInner}, &Planning{Catalog: cat})
	ix := got.(*Join).Left.(*Scan).Index
	require.NotNil(t, ix, "an index is chosen")
	require.Equal(t, "a_x", ix.Index.Name)
}

func TestRulePlanJoins(t *testing.T) {
	stats := fixedStats{"small": 20, "mid": 5000, "big": 1000000}
	eq := func(l, r int) expr.Expr { return cmp("=", col(l, "l"), col(r, "r")) }
	cases := []struct {
		name                 string
		j                    *Join
		buildRight           bool
		strategy             Strategy
		leftMoves, rightMove string
	}{
		{"a small side is broadcast, and builds", &Join{Left: scanOf("big", expr.BigInt, "s"), Right: scanOf("small", expr.BigInt), Kind: JoinInner, Cond: eq(1, 2)},
			true, Broadcast, "", "broadcast"},
		{"the smaller side builds even when it is the left", &Join{Left: scanOf("mid", expr.BigInt), Right: scanOf("big", expr.BigInt, "m"), Kind: JoinInner, Cond: eq(0, 2)},
			false, Repartition, "", "by r as BIGINT"},
		{"key to key is colocated", &Join{Left: scanOf("big", expr.BigInt), Right: scanOf("mid", expr.BigInt), Kind: JoinInner, Cond: eq(0, 1)},
			true, Colocated, "", ""},
		{"keys of different types are not colocated: the smaller side moves", &Join{Left: scanOf("big", expr.BigInt), Right: scanOf("mid", expr.Integer), Kind: JoinInner, Cond: eq(0, 1)},
			true, Repartition, "", "by r as BIGINT"},
		{"neither side partitioned on its key: both move", &Join{Left: scanOf("big", expr.BigInt, "x"), Right: scanOf("mid", expr.BigInt, "y"), Kind: JoinInner, Cond: eq(1, 3)},
			true, Repartition, "by l as UNKNOWN", "by r as UNKNOWN"},
		{"the preserved side of a left join is never broadcast", &Join{Left: scanOf("small", expr.BigInt), Right: scanOf("big", expr.BigInt, "s"), Kind: JoinLeft, Cond: eq(0, 2)},
			false, Repartition, "", "by r as BIGINT"},
		{"a nested loop broadcasts", &Join{Left: scanOf("big", expr.BigInt), Right: scanOf("mid", expr.BigInt), Kind: JoinInner, Cond: cmp("<", col(0, "l"), col(1, "r"))},
			true, Broadcast, "", "broadcast"},
		{"a hint wins: the large side moves to the small one's placement", &Join{Left: scanOf("big", expr.BigInt, "s"), Right: scanOf("small", expr.BigInt), Kind: JoinInner, Cond: eq(1, 2), Hint: Repartition},
			true, Repartition, "by l as BIGINT", ""},
	}
	moveText := func(m *Move) string {
		switch {
		case m == nil:
			return ""
		case m.Broadcast:
			return "broadcast"
		}
		return "by " + exprList(m.Keys) + " as " + strings.ToUpper(m.HashType.String())
	}
	for _, c := range cases {
		p := &Planning{Options: Options{Stats: stats, BroadcastRows: 100}}
		jp := planJoins(c.j, p).(*Join).Plan
		assert.Equal(t, c.buildRight, jp.BuildRight, "%s: build right", c.name)
		assert.Equal(t, c.strategy, jp.Strategy, "%s: strategy", c.name)
		assert.Equal(t, c.leftMoves, moveText(jp.LeftMove), "%s: left input's move", c.name)
		assert.Equal(t, c.rightMove, moveText(jp.RightMove), "%s: right input's move", c.name)
	}
}

func TestRuleCountNonNull(t *testing.T) {
	// a.__key, a.x, b.__key, b.y
	left := func(kind JoinKind) *Join {
		return &Join{Left: scanOf("a", expr.BigInt, "x"), Right: scanOf("b", expr.BigInt, "y"), Kind: kind,
			Cond: cmp("=", col(0, "a.__key"), col(3, "b.y"))}
	}
	agg := func(j *Join, c int) *Aggregate {
		return &Aggregate{Input: j, Aggs: []AggCall{{Func: "count", Arg: col(c, "c"), T: expr.BigInt}}, Names: []string{"n"}}
	}
	cases := []struct {
		name string
		in   *Aggregate
		want string
	}{
		{"a key of the preserved side: COUNT(*)", agg(left(JoinLeft), 0), "COUNT(*)"},
		{"a key of the NULL-supplying side: its join key", agg(left(JoinLeft), 2), "COUNT(b.y)"},
		{"a key of an inner join's side: COUNT(*)", agg(left(JoinInner), 2), "COUNT(*)"},
		{"a column that may be NULL stays", agg(left(JoinLeft), 1), "COUNT(c)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, countNonNull(c.in, &Planning{}).(*Aggregate).Aggs[0].String(), c.name)
	}
}

// TestStale: a cached plan is planned again once a map it was made for has
// grown or shrunk by more than a factor of 8 (its join strategies may no
// longer fit), not before.
func TestStale(t *testing.T) {
	p := Build(context.Background(), &Join{Left: scanOf("a", expr.BigInt), Right: scanOf("b", expr.BigInt, "x"), Kind: JoinInner,
		Cond: cmp("=", col(0, "a.__key"), col(2, "b.x"))}, nil, nil, "query", Options{Stats: fixedStats{"a": 1000, "b": 50}})
	require.Equal(t, int64(1000), p.Estimates["a"])
	require.Equal(t, int64(50), p.Estimates["b"])
	for _, c := range []struct {
		now   fixedStats
		stale bool
	}{
		{fixedStats{"a": 1000, "b": 50}, false},
		{fixedStats{"a": 7000, "b": 100}, false},
		{fixedStats{"a": 9000, "b": 50}, true},
		{fixedStats{"a": 1000, "b": 1000}, true},
		{fixedStats{"a": 100, "b": 50}, true},
		{fixedStats{}, false}, // unknown now: keep the plan
	} {
		assert.Equal(t, c.stale, Stale(p, c.now), "made for %v, now %v: stale", p.Estimates, c.now)
	}
}
