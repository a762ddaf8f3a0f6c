package exec

import (
	"math/bits"
	"sync"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// A hash join: the build input's rows go into a table keyed by their join
// keys; each row of the probe input looks its keys up and meets the rows
// it finds. The table and its matching rules are shared by the
// coordinator's HashJoin and the join fragments members run.
//
// Join kinds, with the side that builds:
//
//	kind   build  a probe row with matches      without      at the end
//	inner  either emit each pair                 -            -
//	left   right  emit each pair                 emit, NULLs  -
//	left   left   emit each pair, mark the match -            emit unmarked build rows, NULLs
//	semi   right  emit the probe row once        -            -
//	semi   left   mark the matches               -            emit marked build rows
//	anti   right  -                              emit it      -
//	anti   left   mark the matches               -            emit unmarked build rows
//
// A NULL key matches nothing. A pair must also meet the residual
// condition. NOT IN (a null-aware anti join, the right side builds): a
// probe row is dropped when a build row it meets on the other keys has the
// IN key equal or NULL, or when its own IN key is NULL and it meets any.

// joinSpec is what a join does, in the terms of both joins' plans.
type joinSpec struct {
	kind                plan.JoinKind
	leftKeys, rightKeys []expr.Expr
	residual            expr.Expr
	nullAware           bool
	buildRight          bool
	leftWidth           int
	rightWidth          int
}

// joinTable is a join's build side, built once and then probed by many
// goroutines (each with its own prober).
type joinTable struct {
	spec   joinSpec
	mem    *MemoryAccount
	keyFns []expr.Fn // build keys over a build row
	// keyCol[i] >= 0: key i is that column of the build row.
	keyCol   []int
	probeFns []expr.Fn
	probeCol []int
	residual expr.Fn

	rows [][]expr.Value
	// intKeys: one integer key on both sides, looked up in a direct-address
	// table when the keys span a range at most a few times their number
	// (surrogate keys), else in ints. The table is a bitmap of the range
	// (bit i: key dense0+i is here) with the count of keys before each
	// word, so a key's rank among the keys present indexes dense (its head
	// row): on a member holding part of the keys, only its own keys take
	// a slot, and the bitmap stays small enough for the nearest cache.
	intKeys    bool
	ints       map[int64]int32
	denseBits  []uint64
	denseRanks []int32 // keys present before each word of denseBits
	dense      []int32
	dense0     int64
	strs       map[string]int32
	next       []int32 // the next row with the same key, -1 at the end
	unique     bool    // no two rows share a key: chains have one row
	// nullRows are build rows whose IN key is NULL (NOT IN only).
	nullRows []int32
	// inTable: the build row's keys were all non-NULL, so it is in the
	// index (NOT IN also needs the rows it meets on the other keys).
	reserved int64

	mu      sync.Mutex
	marks   []bool // rows marked by some probe (build-side kinds)
	probers []*prober
}

func compileKeys(es []expr.Expr) ([]expr.Fn, []int, error) {
	fns := make([]expr.Fn, len(es))
	cols := make([]int, len(es))
	for i, e := range es {
		f, err := expr.Compile(e)
		if err != nil {
			return nil, nil, plan.Errorf("%v", err)
		}
		fns[i] = f
		cols[i] = -1
		if c, ok := e.(*expr.Col); ok {
			cols[i] = c.Index
		}
	}
	return fns, cols, nil
}

func newJoinTable(spec joinSpec, mem *MemoryAccount) (*joinTable, error) {
	t := &joinTable{spec: spec, mem: mem}
	bk, pk := spec.leftKeys, spec.rightKeys
	if spec.buildRight {
		bk, pk = pk, bk
	}
	var err error
	if t.keyFns, t.keyCol, err = compileKeys(bk); err != nil {
		return nil, err
	}
	if t.probeFns, t.probeCol, err = compileKeys(pk); err != nil {
		return nil, err
	}
	if spec.residual != nil {
		if t.residual, err = expr.Compile(spec.residual); err != nil {
			return nil, plan.Errorf("%v", err)
		}
	}
	t.intKeys = len(bk) == 1 && bk[0].Type().IsInteger() && pk[0].Type().IsInteger()
	return t, nil
}

// add adds build rows (they must stay valid: the table keeps them),
// reserving heldBytes for them: what their values and the bytes they
// alias take, beyond the table's own row headers, reserved here.
func (t *joinTable) add(rows [][]expr.Value, heldBytes int64) error {
	if len(rows) == 0 {
		return nil
	}
	n := heldBytes + headerGrowth(cap(t.rows), len(t.rows)+len(rows))
	if err := t.mem.Reserve("join hash table", n); err != nil {
		return err
	}
	t.reserved += n
	t.rows = append(t.rows, rows...)
	return nil
}

// headerGrowth is what appending to a list of rows of capacity c until it
// holds n costs in row headers, counting the spare room append leaves (it
// doubles small slices and grows large ones by about a quarter).
func headerGrowth(c, n int) int64 {
	if n <= c {
		return 0
	}
	nc := c
	switch {
	case n > 2*c:
		nc = n
	case c < 256:
		nc = 2 * c
	default:
		for nc < n {
			nc += (nc + 3*256) / 4
		}
	}
	return int64(nc-c) * sliceBytes
}

// build indexes the rows by key.
func (t *joinTable) build() error {
	n := len(t.rows)
	t.next = make([]int32, n)
	t.unique = true
	env := &expr.Env{}
	if t.intKeys {
		if err := t.chooseDense(env); err != nil {
			return err
		}
		if t.dense == nil {
			t.ints = make(map[int64]int32, n)
		}
	} else {
		t.strs = make(map[string]int32, n)
	}
	keys := make([]expr.Value, len(t.keyFns))
	var buf []byte
	var keyBytes int64
	for i := n - 1; i >= 0; i-- { // chains keep the rows' order
		t.next[i] = -1
		row := t.rows[i]
		nullKey := false
		for k := range keys {
			keys[k] = t.key(k, row, env)
			if keys[k].IsNull() {
				if k == 0 && t.spec.nullAware {
					continue
				}
				nullKey = true
			}
		}
		if nullKey {
			continue // matches nothing (NOT IN: not in any row's subquery)
		}
		if t.spec.nullAware && keys[0].IsNull() {
			t.nullRows = append(t.nullRows, int32(i))
			continue
		}
		if t.dense != nil {
			d, _ := t.denseSlot(keys[0].I)
			t.next[i] = t.dense[d]
			t.unique = t.unique && t.next[i] < 0
			t.dense[d] = int32(i)
			continue
		}
		if t.intKeys {
			if h, ok := t.ints[keys[0].I]; ok {
				t.next[i] = h
				t.unique = false
			}
			t.ints[keys[0].I] = int32(i)
			continue
		}
		var ok bool
		buf, ok = hashKeys(buf[:0], keys)
		if !ok {
			continue
		}
		if h, ok := t.strs[string(buf)]; ok {
			t.next[i] = h
			t.unique = false
		} else {
			keyBytes += int64(len(buf))
		}
		t.strs[string(buf)] = int32(i)
	}
	if env.Err != nil {
		return env.Err
	}
	if t.spec.nullAware {
		// Reverse: rows in their order.
		for i, j := 0, len(t.nullRows)-1; i < j; i, j = i+1, j-1 {
			t.nullRows[i], t.nullRows[j] = t.nullRows[j], t.nullRows[i]
		}
	}
	// The chains, and the map of keys (none for a direct-address table).
	idx := int64(n) * 4
	switch {
	case t.ints != nil:
		idx += int64(n) * mapEntryBytes
	case t.strs != nil:
		idx += int64(n)*mapEntryBytes + keyBytes
	}
	if t.buildMarks() {
		idx += int64(n)
	}
	if err := t.mem.Reserve("join hash table", idx); err != nil {
		return err
	}
	t.reserved += idx
	if t.buildMarks() {
		t.marks = make([]bool, n)
	}
	return nil
}

// chooseDense sizes the direct-address table of integer keys when their
// range is at most four times the rows (and one row at least).
func (t *joinTable) chooseDense(env *expr.Env) error {
	lo, hi, n := int64(0), int64(0), 0
	for _, row := range t.rows {
		v := t.key(0, row, env)
		if v.IsNull() || !v.T.IsInteger() {
			continue
		}
		if n == 0 || v.I < lo {
			lo = v.I
		}
		if n == 0 || v.I > hi {
			hi = v.I
		}
		n++
	}
	if env.Err != nil {
		return env.Err
	}
	span := uint64(hi - lo)
	if n == 0 || hi < lo || span >= uint64(4*n) || span >= 1<<31 {
		return nil
	}
	words := int64(span)/64 + 1
	if err := t.mem.Reserve("join hash table", words*12); err != nil {
		return err
	}
	t.reserved += words * 12
	t.denseBits, t.denseRanks, t.dense0 = make([]uint64, words), make([]int32, words), lo
	for _, row := range t.rows {
		if v := t.key(0, row, env); !v.IsNull() && v.T.IsInteger() {
			d := uint64(v.I - lo)
			t.denseBits[d/64] |= 1 << (d % 64)
		}
	}
	keys := int32(0)
	for w, b := range t.denseBits {
		t.denseRanks[w] = keys
		keys += int32(bits.OnesCount64(b))
	}
	if err := t.mem.Reserve("join hash table", int64(keys)*4); err != nil {
		return err
	}
	t.reserved += int64(keys) * 4
	t.dense = make([]int32, keys)
	for i := range t.dense {
		t.dense[i] = -1
	}
	return env.Err
}

// denseSlot returns integer key k's slot in dense, and whether the table
// holds it.
func (t *joinTable) denseSlot(k int64) (int32, bool) {
	d := uint64(k - t.dense0)
	w := d / 64
	if w >= uint64(len(t.denseBits)) {
		return 0, false
	}
	b, bit := t.denseBits[w], uint64(1)<<(d%64)
	return t.denseRanks[w] + int32(bits.OnesCount64(b&(bit-1))), b&bit != 0
}

// release returns the table's memory.
func (t *joinTable) release() {
	t.mem.Release(t.reserved)
	t.reserved = 0
	t.rows, t.ints, t.strs, t.next, t.dense = nil, nil, nil, nil, nil
	t.denseBits, t.denseRanks = nil, nil
}

func (t *joinTable) key(k int, row []expr.Value, env *expr.Env) expr.Value {
	if c := t.keyCol[k]; c >= 0 {
		return row[c]
	}
	return t.keyFns[k](&expr.Row{Cols: row, Env: env})
}

// hashKeys appends the keys' hash keys, each with its length.
func hashKeys(buf []byte, keys []expr.Value) ([]byte, bool) {
	for _, v := range keys {
		at := len(buf)
		buf = append(buf, 0, 0)
		var ok bool
		if buf, ok = expr.AppendHashKey(buf, v); !ok {
			return buf, false
		}
		l := len(buf) - at - 2
		buf[at], buf[at+1] = byte(l>>8), byte(l)
	}
	return buf, true
}

// buildMarks reports whether probes mark the build rows they meet.
func (t *joinTable) buildMarks() bool {
	return !t.spec.buildRight && t.spec.kind != plan.JoinInner
}

// prober probes the table for one goroutine.
type prober struct {
	t     *joinTable
	env   expr.Env
	keys  []expr.Value
	buf   []byte
	pair  []expr.Value
	nulls []expr.Value // NULLs of the other side's width
	marks []bool       // build rows this prober met (build-side kinds)
	// fresh: each emitted row is a new slice (the coordinator keeps rows);
	// otherwise the same buffer is reused and the consumer copies.
	fresh bool
	// onPair, when set, takes the pairs of inner and left joins instead of
	// emit: the probe row and the build row's index (a group join).
	onPair func(probe []expr.Value, build int32) error
}

func (t *joinTable) newProber(params []expr.Value, fresh bool) *prober {
	p := &prober{t: t, keys: make([]expr.Value, len(t.probeFns)), fresh: fresh}
	p.env.Params = params
	p.pair = make([]expr.Value, t.spec.leftWidth+t.spec.rightWidth)
	w := t.spec.rightWidth
	if !t.spec.buildRight {
		w = t.spec.leftWidth
	}
	p.nulls = make([]expr.Value, w)
	if t.buildMarks() {
		p.marks = make([]bool, len(t.rows))
	}
	t.mu.Lock()
	t.probers = append(t.probers, p)
	t.mu.Unlock()
	return p
}

// combine writes left ++ right into the pair buffer (or a new slice).
func (p *prober) combine(left, right []expr.Value) []expr.Value {
	out := p.pair
	if p.fresh {
		out = make([]expr.Value, len(left)+len(right))
	}
	copy(out, left)
	copy(out[len(left):], right)
	return out
}

func (p *prober) leftRight(probe, build []expr.Value) ([]expr.Value, []expr.Value) {
	if p.t.spec.buildRight {
		return probe, build
	}
	return build, probe
}

// meets reports whether a probe row and a build row meet the residual
// condition.
func (p *prober) meets(probe, build []expr.Value) bool {
	if p.t.residual == nil {
		return true
	}
	l, r := p.leftRight(probe, build)
	row := p.combine(l, r)
	ok := expr.Truth(p.t.residual(&expr.Row{Cols: row, Env: &p.env}))
	return ok
}

// first returns the first build row with the probe row's keys (-1: none)
// and whether a key was NULL.
func (p *prober) first(row []expr.Value) (int32, bool) {
	t := p.t
	for k := range p.keys {
		if c := t.probeCol[k]; c >= 0 {
			p.keys[k] = row[c]
		} else {
			p.keys[k] = t.probeFns[k](&expr.Row{Cols: row, Env: &p.env})
		}
		if p.keys[k].IsNull() {
			return -1, true
		}
	}
	if len(p.keys) == 0 {
		if len(t.rows) == 0 {
			return -1, false
		}
		return 0, false // nested loop: every row, in order
	}
	if t.intKeys {
		v := p.keys[0]
		if !v.T.IsInteger() {
			return -1, false
		}
		if t.dense != nil {
			d, ok := t.denseSlot(v.I)
			if !ok {
				return -1, false
			}
			return t.dense[d], false
		}
		h, ok := t.ints[v.I]
		if !ok {
			return -1, false
		}
		return h, false
	}
	var ok bool
	p.buf, ok = hashKeys(p.buf[:0], p.keys)
	if !ok {
		return -1, false
	}
	h, found := t.strs[string(p.buf)]
	if !found {
		return -1, false
	}
	return h, false
}

// nextOf follows the chain of rows with equal keys (every row for a
// nested loop).
func (p *prober) nextOf(i int32) int32 {
	switch {
	case len(p.keys) == 0:
		if int(i)+1 < len(p.t.rows) {
			return i + 1
		}
		return -1
	case p.t.unique:
		return -1
	}
	return p.t.next[i]
}

// probe joins one probe row and passes each output row to emit.
func (p *prober) probe(row []expr.Value, emit func([]expr.Value) error) error {
	t := p.t
	if t.spec.nullAware {
		return p.probeNotIn(row, emit)
	}
	first, _ := p.first(row)
	found := false
	for i := first; i >= 0; i = p.nextOf(i) {
		// The build row is read only when needed: with a group join and no
		// residual condition, a probe touches the key index alone.
		if t.residual != nil && !p.meets(row, t.rows[i]) {
			if p.env.Err != nil {
				return p.env.Err
			}
			continue
		}
		found = true
		switch {
		case t.spec.kind == plan.JoinInner || t.spec.kind == plan.JoinLeft:
			if p.onPair != nil { // the group join counts the pairs itself
				if err := p.onPair(row, i); err != nil {
					return err
				}
				continue
			}
			if p.marks != nil {
				p.marks[i] = true
			}
			l, r := p.leftRight(row, t.rows[i])
			if err := emit(p.combine(l, r)); err != nil {
				return err
			}
		case p.marks != nil: // semi or anti, the left side builds
			p.marks[i] = true
		}
		if t.spec.buildRight && (t.spec.kind == plan.JoinSemi || t.spec.kind == plan.JoinAnti) {
			break
		}
	}
	if p.env.Err != nil {
		return p.env.Err
	}
	if !t.spec.buildRight {
		return nil
	}
	switch {
	case t.spec.kind == plan.JoinSemi && found, t.spec.kind == plan.JoinAnti && !found:
		return emit(p.own(row))
	case t.spec.kind == plan.JoinLeft && !found:
		return emit(p.combine(row, p.nulls))
	}
	return nil
}

// own returns a probe row as an output row of a semi or anti join.
func (p *prober) own(row []expr.Value) []expr.Value {
	if p.fresh {
		return append([]expr.Value(nil), row...)
	}
	return row
}

// probeNotIn is the probe of NOT IN: keys[0] is the IN comparison.
func (p *prober) probeNotIn(row []expr.Value, emit func([]expr.Value) error) error {
	t := p.t
	// The other keys are the subquery's correlation: a NULL there meets no
	// row, so the row's subquery is empty and NOT IN is TRUE.
	for k := 1; k < len(p.keys); k++ {
		v := p.probeKey(k, row)
		if v.IsNull() {
			return emit(p.own(row))
		}
	}
	in := p.probeKey(0, row)
	if in.IsNull() {
		// NULL NOT IN (S) is TRUE only for an empty S.
		for i := range t.rows {
			if p.sameOthers(row, t.rows[i]) && p.meets(row, t.rows[i]) {
				return p.env.Err
			}
		}
		if p.env.Err != nil {
			return p.env.Err
		}
		return emit(p.own(row))
	}
	first, _ := p.first(row)
	for i := first; i >= 0; i = p.nextOf(i) {
		if p.meets(row, t.rows[i]) {
			return p.env.Err
		}
	}
	for _, i := range t.nullRows {
		if p.sameOthers(row, t.rows[i]) && p.meets(row, t.rows[i]) {
			return p.env.Err
		}
	}
	if p.env.Err != nil {
		return p.env.Err
	}
	return emit(p.own(row))
}

func (p *prober) probeKey(k int, row []expr.Value) expr.Value {
	if c := p.t.probeCol[k]; c >= 0 {
		return row[c]
	}
	return p.t.probeFns[k](&expr.Row{Cols: row, Env: &p.env})
}

// sameOthers reports whether a probe row and a build row have equal keys
// besides the first (NOT IN's correlation keys).
func (p *prober) sameOthers(row, build []expr.Value) bool {
	for k := 1; k < len(p.keys); k++ {
		pv, bv := p.probeKey(k, row), p.t.key(k, build, &p.env)
		if pv.IsNull() || bv.IsNull() || !expr.Equal(pv, bv) {
			return false
		}
	}
	return true
}

// finish emits what the build side owes at the end: its unmatched rows
// (left and anti joins) or its matched ones (semi joins), once every
// prober is done.
func (t *joinTable) finish(emit func([]expr.Value) error, fresh bool) error {
	if !t.buildMarks() {
		return nil
	}
	for _, p := range t.probers {
		for i, m := range p.marks {
			if m {
				t.marks[i] = true
			}
		}
	}
	nulls := make([]expr.Value, t.spec.rightWidth)
	pair := make([]expr.Value, t.spec.leftWidth+t.spec.rightWidth)
	for i, row := range t.rows {
		marked := t.marks[i]
		switch {
		case t.spec.kind == plan.JoinLeft && !marked:
			out := pair
			if fresh {
				out = make([]expr.Value, len(pair))
			}
			copy(out, row)
			copy(out[len(row):], nulls)
			if err := emit(out); err != nil {
				return err
			}
		case t.spec.kind == plan.JoinSemi && marked, t.spec.kind == plan.JoinAnti && !marked:
			if err := emit(row); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- The coordinator's HashJoin --------------------------------------------------------

// coordinatorJoin runs a HashJoin on the coordinator: it reads the build
// input whole, then streams the probe input through the table.
type coordinatorJoin struct {
	t      *joinTable
	p      *prober
	probe  rowIter
	queue  [][]expr.Value
	pos    int
	ended  bool
	closed bool
}

func (q *query) hashJoin(x *plan.HashJoin) (rowIter, error) {
	spec := joinSpec{kind: x.Kind, leftKeys: x.LeftKeys, rightKeys: x.RightKeys, residual: x.Residual,
		nullAware: x.NullAware, buildRight: x.BuildRight, leftWidth: len(x.Left.Output()), rightWidth: len(x.Right.Output())}
	t, err := newJoinTable(spec, q.mem)
	if err != nil {
		return nil, err
	}
	buildNode, probeNode := x.Left, x.Right
	if x.BuildRight {
		buildNode, probeNode = x.Right, x.Left
	}
	bi, err := q.build(buildNode)
	if err != nil {
		return nil, err
	}
	// The table goes on the query's list first, so that it is released
	// however its build ends.
	q.tables = append(q.tables, t)
	var rows [][]expr.Value
	var held int64
	for {
		r, err := bi.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			break
		}
		rows = append(rows, r)
		held += rowCost(bi, r) - sliceBytes
		if len(rows) == 1024 {
			if err := t.add(rows, held); err != nil {
				return nil, err
			}
			rows, held = nil, 0
		}
	}
	if err := t.add(rows, held); err != nil {
		return nil, err
	}
	if err := t.build(); err != nil {
		return nil, err
	}
	pi, err := q.build(probeNode)
	if err != nil {
		return nil, err
	}
	return &coordinatorJoin{t: t, p: t.newProber(q.params, true), probe: pi}, nil
}

func (c *coordinatorJoin) Next() ([]expr.Value, error) {
	for c.pos >= len(c.queue) {
		if c.closed {
			return nil, nil
		}
		c.queue, c.pos = c.queue[:0], 0
		push := func(r []expr.Value) error {
			c.queue = append(c.queue, r)
			return nil
		}
		if c.ended {
			c.closed = true
			if err := c.t.finish(push, true); err != nil {
				return nil, err
			}
			continue
		}
		r, err := c.probe.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			c.ended = true
			continue
		}
		if err := c.p.probe(r, push); err != nil {
			return nil, err
		}
	}
	r := c.queue[c.pos]
	c.pos++
	return r, nil
}
