package plan

import (
	"github.com/atolldb/atoll/internal/query/expr"
)

// JoinPlan is how a join runs, as the plan-joins rule decides it.
type JoinPlan struct {
	// LeftKeys[i] = RightKeys[i] are the equality keys (LeftKeys read the
	// left input's columns, RightKeys the right's); none makes a nested
	// loop. For a NOT IN anti join the first pair is the IN comparison.
	LeftKeys, RightKeys []expr.Expr
	// Residual is the rest of the condition, over the left columns then
	// the right ones (nil: none).
	Residual expr.Expr
	// BuildRight: the hash table holds the right input's rows (else the
	// left's) and the other input probes it.
	BuildRight bool
	Strategy   Strategy
	// LeftMove and RightMove say how each input's rows travel between
	// members (nil: they stay where they are).
	LeftMove, RightMove *Move
	// EstLeft and EstRight estimate the inputs' rows (-1: unknown).
	EstLeft, EstRight int64
}

// Move is how an input of a join travels through an exchange.
type Move struct {
	// Broadcast sends every row to every member; otherwise each row goes
	// to the owner of the partition of its key.
	Broadcast bool
	// Keys are the columns a row's partition is computed from.
	Keys []expr.Expr
	// HashType: the rows go where the other input's map keeps a key of
	// this type with the same value (Hazelcast's serialization of it);
	// Unknown: a hash of the values that both inputs share.
	HashType expr.Type
}

// unknownRows is the estimate of a map of unknown size: large, so that
// the planner never broadcasts it.
const unknownRows = 1 << 40

// planJoins plans every join bottom-up: keys, build side, strategy.
func planJoins(n Node, p *Planning) Node {
	return bottomUp(n, func(n Node) Node {
		j, ok := n.(*Join)
		if !ok {
			return n
		}
		nj := *j
		nj.Plan = p.planJoin(j)
		return &nj
	})
}

func (p *Planning) planJoin(j *Join) *JoinPlan {
	nl := len(j.Left.Output())
	jp := &JoinPlan{EstLeft: p.estimate(j.Left), EstRight: p.estimate(j.Right)}
	if j.NullAware {
		jp.LeftKeys = append(jp.LeftKeys, j.InLeft)
		jp.RightKeys = append(jp.RightKeys, j.InRight)
	}
	for _, c := range expr.Conjuncts(j.Cond) {
		if l, r, ok := equiKey(c, nl); ok {
			jp.LeftKeys = append(jp.LeftKeys, l)
			jp.RightKeys = append(jp.RightKeys, shift(r, -nl))
			continue
		}
		jp.Residual = expr.And(jp.Residual, c)
	}
	// The build side: the smaller input that may build. Building the
	// preserved input of an outer, semi or anti join means marking its
	// rows as they match and emitting them at the end.
	leftMayBuild := !j.NullAware
	jp.BuildRight = !leftMayBuild || jp.EstRight <= jp.EstLeft
	hint := j.Hint
	if hint == "" {
		hint = p.Options.Hints.Strategy
	}
	if !distributable(j.Left) || !distributable(j.Right) || hint == Coordinator {
		jp.Strategy = Coordinator
		return jp
	}
	// A build side that every member holds whole must not be the preserved
	// side: each member would emit its unmatched rows.
	broadcastable := func(buildRight bool) bool { return buildRight || j.Kind == JoinInner }
	broadcast := func() {
		jp.Strategy = Broadcast
		if !broadcastable(jp.BuildRight) {
			jp.BuildRight = true
		}
		if jp.BuildRight {
			jp.RightMove = &Move{Broadcast: true}
		} else {
			jp.LeftMove = &Move{Broadcast: true}
		}
	}
	// Nested loops and NOT IN need the whole other input on every member.
	if len(jp.LeftKeys) == 0 || j.NullAware {
		broadcast()
		return jp
	}
	lp, lok := partitioning(j.Left)
	rp, rok := partitioning(j.Right)
	colocated := -1
	for i := range jp.LeftKeys {
		lc, ok1 := jp.LeftKeys[i].(*expr.Col)
		rc, ok2 := jp.RightKeys[i].(*expr.Col)
		if ok1 && ok2 && lok && rok && lc.Index == lp.col && rc.Index == rp.col && lp.hash == rp.hash {
			colocated = i
			break
		}
	}
	build := jp.EstLeft
	if jp.BuildRight {
		build = jp.EstRight
	}
	switch {
	case hint == Broadcast:
		broadcast()
		return jp
	case colocated >= 0 && hint != Repartition:
		jp.Strategy = Colocated
		return jp
	case hint != Repartition && hint != Colocated && build <= p.broadcastRows() && broadcastable(jp.BuildRight):
		broadcast()
		return jp
	}
	jp.Strategy = Repartition
	// When one input is partitioned on its key, only the other moves, to
	// where that input keeps its rows; the smaller input moves if both are.
	leftStays, rightStays := -1, -1
	for i := range jp.LeftKeys {
		if lc, ok := jp.LeftKeys[i].(*expr.Col); ok && lok && lc.Index == lp.col && lp.hash != expr.Unknown && leftStays < 0 {
			leftStays = i
		}
		if rc, ok := jp.RightKeys[i].(*expr.Col); ok && rok && rc.Index == rp.col && rp.hash != expr.Unknown && rightStays < 0 {
			rightStays = i
		}
	}
	switch {
	case leftStays >= 0 && (rightStays < 0 || jp.EstRight <= jp.EstLeft):
		jp.RightMove = &Move{Keys: []expr.Expr{jp.RightKeys[leftStays]}, HashType: lp.hash}
	case rightStays >= 0:
		jp.LeftMove = &Move{Keys: []expr.Expr{jp.LeftKeys[rightStays]}, HashType: rp.hash}
	default:
		jp.LeftMove = &Move{Keys: jp.LeftKeys}
		jp.RightMove = &Move{Keys: jp.RightKeys}
	}
	return jp
}

func (p *Planning) broadcastRows() int64 {
	if p.Options.BroadcastRows > 0 {
		return p.Options.BroadcastRows
	}
	return DefaultBroadcastRows
}

// equiKey splits l = r where l reads only the left input (nl columns) and
// r only the right one, or the other way round.
func equiKey(c expr.Expr, nl int) (l, r expr.Expr, ok bool) {
	call, isCall := c.(*expr.Call)
	if !isCall || call.Op != "=" || len(call.Args) != 2 {
		return nil, nil, false
	}
	a, b := call.Args[0], call.Args[1]
	switch sa, sb := sideOf(a, nl), sideOf(b, nl); {
	case sa == sideLeft && sb == sideRight:
		return a, b, true
	case sa == sideRight && sb == sideLeft:
		return b, a, true
	}
	return nil, nil, false
}

// distributable reports whether every member can run n over its own
// partitions: scans, filters and projections of them, and joins of such
// inputs (aggregates, sorts, limits, DISTINCT, unions and constant rows
// need all rows in one place).
func distributable(n Node) bool {
	switch x := n.(type) {
	case *Scan:
		return true
	case *Filter:
		return distributable(x.Input)
	case *Project:
		return distributable(x.Input)
	case *Join:
		return x.Plan != nil && x.Plan.Strategy != Coordinator
	}
	return false
}

// partitionCol says that a node's rows are placed by one of its columns:
// each member holds only the rows whose value of col lies in a partition
// it owns, by Hazelcast's serialization of the value as hash (Unknown: the
// value hash an exchange uses when both inputs move).
type partitionCol struct {
	col  int
	hash expr.Type
}

func partitioning(n Node) (partitionCol, bool) {
	switch x := n.(type) {
	case *Scan:
		for i, e := range x.Project {
			c, ok := e.(*expr.Col)
			if !ok || c.Index >= len(x.Cols) {
				continue
			}
			sc := x.Cols[c.Index]
			if sc.Path == "__key" && !sc.JSON && sc.Type != expr.Object && sc.Type != expr.Unknown && sc.Type != expr.JSON {
				return partitionCol{col: i, hash: sc.Type}, true
			}
		}
	case *Filter:
		return partitioning(x.Input)
	case *Project:
		pc, ok := partitioning(x.Input)
		if !ok {
			return pc, false
		}
		for i, e := range x.Exprs {
			if c, isCol := e.(*expr.Col); isCol && c.Index == pc.col {
				return partitionCol{col: i, hash: pc.hash}, true
			}
		}
	case *Join:
		jp := x.Plan
		if jp == nil {
			return partitionCol{}, false
		}
		nl := len(x.Left.Output())
		leftOnly := x.Kind == JoinSemi || x.Kind == JoinAnti
		// An input that did not move keeps its placement; a moved one is
		// placed by its keys when it moved to the other's placement.
		if jp.LeftMove == nil {
			if pc, ok := partitioning(x.Left); ok {
				return pc, true
			}
		} else if !jp.LeftMove.Broadcast && len(jp.LeftMove.Keys) == 1 {
			if c, ok := jp.LeftMove.Keys[0].(*expr.Col); ok {
				return partitionCol{col: c.Index, hash: jp.LeftMove.HashType}, true
			}
		}
		if leftOnly {
			return partitionCol{}, false
		}
		if jp.RightMove == nil {
			if pc, ok := partitioning(x.Right); ok {
				return partitionCol{col: nl + pc.col, hash: pc.hash}, true
			}
		} else if !jp.RightMove.Broadcast && len(jp.RightMove.Keys) == 1 {
			if c, ok := jp.RightMove.Keys[0].(*expr.Col); ok {
				return partitionCol{col: nl + c.Index, hash: jp.RightMove.HashType}, true
			}
		}
	}
	return partitionCol{}, false
}

// estimate guesses how many rows n produces, from the maps' entry counts.
func (p *Planning) estimate(n Node) int64 {
	switch x := n.(type) {
	case *Scan:
		rows := int64(unknownRows)
		if p.Options.Stats != nil {
			if c := p.Options.Stats.EntryCount(x.Map); c >= 0 {
				rows = c
				if p.estimates == nil {
					p.estimates = map[string]int64{}
				}
				p.estimates[x.Map] = c
			}
		}
		switch {
		case x.PartitionKey != nil:
			rows = rows/271 + 1
		case x.Filter != nil:
			rows = rows/4 + 1
		}
		return rows
	case *Filter:
		return p.estimate(x.Input)/4 + 1
	case *Join:
		l, r := p.estimate(x.Left), p.estimate(x.Right)
		switch {
		case x.Kind == JoinSemi || x.Kind == JoinAnti:
			return l
		case x.Plan != nil && len(x.Plan.LeftKeys) == 0:
			return min(l*max(r, 1), unknownRows)
		}
		return max(l, r)
	case *Aggregate:
		if len(x.GroupBy) == 0 {
			return 1
		}
		return p.estimate(x.Input)/10 + 1
	case *Limit:
		in := p.estimate(x.Input)
		if l, ok := constInt(x.Limit); ok {
			return min(in, l)
		}
		return in
	case *Values:
		return int64(len(x.Rows))
	case *UnionAll:
		var s int64
		for _, in := range x.Ins {
			s = min(s+p.estimate(in), unknownRows)
		}
		return s
	case *ExchangeStats:
		return 16
	}
	ins := n.Inputs()
	if len(ins) == 1 {
		return p.estimate(ins[0])
	}
	return unknownRows
}
