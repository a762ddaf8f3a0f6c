package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Indexes maintains the member's query indexes. An index is kept per
// partition (so a partition dropped after a migration, or imported, only
// touches its own part) and follows the store's change events: ADDED and
// UPDATED (from writes, Import and ApplyRecord) index the new value,
// REMOVED, EVICTED and EXPIRED remove the key, CLEARED and DROPPED empty
// the partition's part. Lookups return keys; the rows are read from the
// store afterwards and the scan's filter is applied again, so an index
// entry of an entry that expired but was not removed yet is harmless.
//
// Lock order: the store's partition lock, then an index part's lock.
// Lookups take only the part's lock and release it before reading the
// store.
type Indexes struct {
	ser *serialization.Service

	mu   sync.Mutex
	maps map[string]*mapIndexes
}

type mapIndexes struct {
	store *store.Map
	list  atomic.Pointer[[]*index]
}

// OnEvent implements store.Observer.
func (mi *mapIndexes) OnEvent(e store.Event) {
	l := mi.list.Load()
	if l == nil {
		return
	}
	for _, ix := range *l {
		ix.apply(e)
	}
}

type index struct {
	info  plan.IndexInfo
	col   plan.ScanCol
	ser   *serialization.Service
	parts []*partIndex

	// where counts, per index key, the entries of each partition that
	// hold it: an equality lookup visits only those partitions.
	wmu   sync.Mutex
	where map[string]*whereEntry
}

// whereEntry counts the entries holding one index key: inline for one
// partition (unique values, the common case), in a map for several.
type whereEntry struct {
	pid  int32
	n    int32
	more map[int32]int32
}

func (n *index) count(ik string, pid int32, d int32) {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	w := n.where[ik]
	switch {
	case w == nil:
		if d > 0 {
			n.where[ik] = &whereEntry{pid: pid, n: d}
		}
	case w.more == nil && w.pid == pid:
		if w.n += d; w.n <= 0 {
			delete(n.where, ik)
		}
	default:
		if w.more == nil {
			w.more = map[int32]int32{w.pid: w.n}
		}
		if c := w.more[pid] + d; c > 0 {
			w.more[pid] = c
		} else {
			delete(w.more, pid)
			if len(w.more) == 0 {
				delete(n.where, ik)
			}
		}
	}
}

// eqPartitions marks the partitions holding any of the equality keys.
func (n *index) eqPartitions(lk *lookupKeys, mark []bool) {
	n.wmu.Lock()
	defer n.wmu.Unlock()
	for _, k := range lk.eq {
		w := n.where[k]
		switch {
		case w == nil:
		case w.more == nil:
			if int(w.pid) < len(mark) {
				mark[w.pid] = true
			}
		default:
			for pid := range w.more {
				if int(pid) < len(mark) {
					mark[pid] = true
				}
			}
		}
	}
}

type partIndex struct {
	ix     *index
	pid    int32
	mu     sync.RWMutex
	acc    *accessor
	keyVal map[string]string
	hash   map[string]map[string]struct{}
	sorted *sortedSet
}

// NewIndexes returns an empty index manager.
func NewIndexes(ser *serialization.Service) *Indexes {
	return &Indexes{ser: ser, maps: map[string]*mapIndexes{}}
}

// Ensure makes sure the index exists on the map's store, building it
// from the store's entries when it is new. attach installs the store
// observer (maps.Map.SetIndexObserver).
func (ix *Indexes) Ensure(st *store.Map, info plan.IndexInfo, attach func(store.Observer)) error {
	if strings.Contains(info.Attribute, "[") {
		return plan.Errorf("index %s: attributes with [any] or [n] cannot be indexed", info.Name)
	}
	col := plan.ScanCol{Path: info.Attribute}
	if _, err := newAccessor(col, ix.ser); err != nil {
		return plan.Errorf("index %s: %v", info.Name, err)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	mi := ix.maps[info.Map]
	if mi == nil || mi.store != st {
		mi = &mapIndexes{store: st}
		empty := []*index{}
		mi.list.Store(&empty)
		ix.maps[info.Map] = mi
		attach(mi)
	}
	for _, have := range *mi.list.Load() {
		if have.info.Name == info.Name {
			return nil
		}
	}
	n := &index{info: info, col: col, ser: ix.ser, parts: make([]*partIndex, st.PartitionCount()), where: map[string]*whereEntry{}}
	for i := range n.parts {
		n.parts[i] = n.newPart(int32(i))
	}
	// Publish first, then scan: events and the scan both run under the
	// partition lock and inserts are idempotent, so every entry is indexed
	// exactly once whatever their order.
	cur := *mi.list.Load()
	next := append(append([]*index(nil), cur...), n)
	mi.list.Store(&next)
	for pid := 0; pid < st.PartitionCount(); pid++ {
		part := n.parts[pid]
		if err := st.ScanKV(int32(pid), func(k, v []byte) bool {
			part.upsert(k, v)
			return true
		}); err != nil {
			return err
		}
	}
	return nil
}

// Lookup returns the index called name on a map's current store.
func (ix *Indexes) lookup(mapName, name string, st *store.Map) *index {
	ix.mu.Lock()
	mi := ix.maps[mapName]
	ix.mu.Unlock()
	if mi == nil || mi.store != st {
		return nil
	}
	for _, i := range *mi.list.Load() {
		if i.info.Name == name {
			return i
		}
	}
	return nil
}

// Has reports whether the map's current store has the index.
func (ix *Indexes) Has(mapName, name string, st *store.Map) bool {
	return ix.lookup(mapName, name, st) != nil
}

func (n *index) newPart(pid int32) *partIndex {
	acc, _ := newAccessor(n.col, n.ser)
	p := &partIndex{acc: acc, keyVal: map[string]string{}, ix: n, pid: pid}
	if n.info.Type == plan.IndexHash {
		p.hash = map[string]map[string]struct{}{}
	} else {
		p.sorted = &sortedSet{}
	}
	return p
}

func (n *index) apply(e store.Event) {
	if int(e.Partition) >= len(n.parts) || e.Partition < 0 {
		return
	}
	p := n.parts[e.Partition]
	switch e.Type {
	case store.EventAdded, store.EventUpdated:
		p.upsert(e.Key, e.NewValue)
	case store.EventRemoved, store.EventEvicted, store.EventExpired:
		p.mu.Lock()
		p.remove(string(e.Key))
		p.mu.Unlock()
	case store.EventCleared, store.EventDropped:
		np := n.newPart(e.Partition)
		p.mu.Lock()
		for _, ik := range p.keyVal {
			n.count(ik, e.Partition, -1)
		}
		p.keyVal, p.hash, p.sorted = np.keyVal, np.hash, np.sorted
		p.mu.Unlock()
	}
}

// ikey computes an entry's index key. The accessor is used under the
// store's partition lock, which serializes its use.
func (p *partIndex) ikey(k, v []byte, t plan.IndexType) string {
	val, err := p.acc.read(k, v)
	if err != nil {
		val = expr.NullValue
	}
	if t == plan.IndexHash {
		hk, ok := expr.HashKey(val)
		if !ok {
			return "\x00"
		}
		return hk
	}
	return string(sortKey(nil, val))
}

func (p *partIndex) upsert(k, v []byte) {
	ik := p.ikey(k, v, p.ix.info.Type)
	key := string(k)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.keyVal[key]; ok {
		if old == ik {
			return
		}
		p.remove(key)
	}
	p.keyVal[key] = ik
	p.ix.count(ik, p.pid, 1)
	if p.hash != nil {
		set := p.hash[ik]
		if set == nil {
			set = map[string]struct{}{}
			p.hash[ik] = set
		}
		set[key] = struct{}{}
	} else {
		p.sorted.insert(sortedEntry(ik, key))
	}
}

// remove drops key; p.mu is held.
func (p *partIndex) remove(key string) {
	old, ok := p.keyVal[key]
	if !ok {
		return
	}
	delete(p.keyVal, key)
	p.ix.count(old, p.pid, -1)
	if p.hash != nil {
		if set := p.hash[old]; set != nil {
			delete(set, key)
			if len(set) == 0 {
				delete(p.hash, old)
			}
		}
		return
	}
	p.sorted.remove(sortedEntry(old, key))
}

// sortedEntry is the index key, the entry key and the index key's length
// (2 bytes), so entries order by index key then key.
func sortedEntry(ik, key string) string {
	var n [2]byte
	binary.BigEndian.PutUint16(n[:], uint16(len(ik)))
	return ik + key + string(n[:])
}

func entryKey(e string) string {
	n := int(binary.BigEndian.Uint16([]byte(e[len(e)-2:])))
	return e[n : len(e)-2]
}

// sortKey appends an order-preserving encoding of v: NULL < booleans <
// numbers < strings < temporal values < objects; numbers of any type by
// value; strings and objects escaped and terminated so that no key is a
// prefix of another.
func sortKey(dst []byte, v expr.Value) []byte {
	switch {
	case v.IsNull() || v.T == expr.List:
		return append(dst, 0)
	case v.T == expr.Boolean:
		return append(dst, 1, byte(v.I))
	case v.T.IsNumeric():
		f := v.Float()
		var i int64
		if v.T.IsInteger() {
			i = v.I
		} else if f >= math.MaxInt64 {
			i = math.MaxInt64
		} else if f <= math.MinInt64 {
			i = math.MinInt64
		} else {
			i = int64(f)
		}
		bits := math.Float64bits(f)
		if f < 0 || (f == 0 && math.Signbit(f)) {
			bits = ^bits
		} else {
			bits |= 1 << 63
		}
		if f == 0 {
			bits = 1 << 63
		}
		dst = append(dst, 2)
		dst = binary.BigEndian.AppendUint64(dst, bits)
		return binary.BigEndian.AppendUint64(dst, uint64(i)^(1<<63))
	case v.T == expr.Varchar || v.T == expr.JSON:
		return escaped(append(dst, 3), v.B)
	case v.T.IsTemporal():
		dst = append(dst, 4)
		us := v.I
		switch v.T {
		case expr.Date:
			us *= 86400e6
		case expr.Time:
			us /= 1000
		}
		return binary.BigEndian.AppendUint64(dst, uint64(us)^(1<<63))
	}
	return escaped(append(dst, 5), v.B)
}

func escaped(dst, b []byte) []byte {
	for _, c := range b {
		if c == 0 {
			dst = append(dst, 0, 0xff)
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, 0, 0)
}

// lookupValues appends to dst the values whose index keys equal v's: v
// itself, and for a string that reads as a number (or a number) the other
// form, since predicates compare "30" and 30 as equal.
func lookupValues(dst []expr.Value, v expr.Value) []expr.Value {
	dst = append(dst, v)
	switch {
	case v.T == expr.Varchar:
		if n, err := expr.Cast(v, expr.Double); err == nil {
			dst = append(dst, n)
		}
	case v.T.IsInteger():
		dst = append(dst, expr.StringValue(strconv.FormatInt(v.I, 10)))
	}
	return dst
}

// lookupKeys are a lookup's index keys, computed once per fragment.
type lookupKeys struct {
	eq           []string // equality: the index keys of every value
	lo, hi       string
	hasLo, hasHi bool
	loInc, hiInc bool
}

// fewValues is how many equality values prepare dedupes the keys of by
// comparing each key with those before it; longer IN lists take a set.
const fewValues = 8

// prepare computes the index keys of a lookup.
func (n *index) prepare(eq []expr.Value, lo, hi *expr.Value, loInc, hiInc bool) *lookupKeys {
	lk := &lookupKeys{loInc: loInc, hiInc: hiInc}
	if eq != nil {
		lk.eq = make([]string, 0, 2*len(eq))
		var seen map[string]bool
		if len(eq) > fewValues {
			seen = make(map[string]bool, 2*len(eq))
		}
		var forms [2]expr.Value
		var kb [32]byte // a numeric key's bytes, copied into its string
		for _, v0 := range eq {
			for _, v := range lookupValues(forms[:0], v0) {
				if v.IsNull() {
					continue
				}
				var k string
				if n.info.Type == plan.IndexHash {
					hk, ok := expr.HashKey(v)
					if !ok {
						continue
					}
					k = hk
				} else {
					k = string(sortKey(kb[:0], v))
				}
				if seen != nil {
					if seen[k] {
						continue
					}
					seen[k] = true
				} else if slices.Contains(lk.eq, k) {
					continue
				}
				lk.eq = append(lk.eq, k)
			}
		}
		return lk
	}
	if lo != nil {
		lk.lo, lk.hasLo = string(sortKey(nil, *lo)), true
	}
	if hi != nil {
		lk.hi, lk.hasHi = string(sortKey(nil, *hi)), true
	}
	return lk
}

// keys appends to out the keys of partition pid that the lookup selects.
func (n *index) keys(pid int32, lk *lookupKeys, out []string) []string {
	if int(pid) >= len(n.parts) || pid < 0 {
		return out
	}
	p := n.parts[pid]
	p.mu.RLock()
	defer p.mu.RUnlock()
	if lk.eq != nil {
		for _, k := range lk.eq {
			if p.hash != nil {
				for key := range p.hash[k] {
					out = append(out, key)
				}
				continue
			}
			p.sorted.scan(k, true, func(e string) bool {
				if !strings.HasPrefix(e, k) {
					return false
				}
				out = append(out, entryKey(e))
				return true
			})
		}
		return out
	}
	if p.sorted == nil {
		return out
	}
	from := "\x01" // after NULL
	if lk.hasLo {
		from = lk.lo
	}
	p.sorted.scan(from, true, func(e string) bool {
		if lk.hasLo && !lk.loInc && strings.HasPrefix(e, from) {
			return true
		}
		if lk.hasHi {
			if strings.HasPrefix(e, lk.hi) {
				if !lk.hiInc {
					return false
				}
			} else if e > lk.hi {
				return false
			}
		}
		out = append(out, entryKey(e))
		return true
	})
	return out
}

// sortedSet is an ordered set of strings in chunks of at most maxChunk,
// so inserts move at most a chunk.
type sortedSet struct {
	chunks [][]string
}

const maxChunk = 512

func (s *sortedSet) chunkFor(e string) int {
	i := sort.Search(len(s.chunks), func(i int) bool {
		c := s.chunks[i]
		return c[len(c)-1] >= e
	})
	if i == len(s.chunks) && i > 0 {
		i--
	}
	return i
}

func (s *sortedSet) insert(e string) {
	if len(s.chunks) == 0 {
		s.chunks = [][]string{{e}}
		return
	}
	ci := s.chunkFor(e)
	c := s.chunks[ci]
	j := sort.SearchStrings(c, e)
	if j < len(c) && c[j] == e {
		return
	}
	c = append(c, "")
	copy(c[j+1:], c[j:])
	c[j] = e
	if len(c) > maxChunk {
		half := len(c) / 2
		right := append([]string(nil), c[half:]...)
		s.chunks = append(s.chunks, nil)
		copy(s.chunks[ci+2:], s.chunks[ci+1:])
		s.chunks[ci] = c[:half:half]
		s.chunks[ci+1] = right
		return
	}
	s.chunks[ci] = c
}

func (s *sortedSet) remove(e string) {
	if len(s.chunks) == 0 {
		return
	}
	ci := s.chunkFor(e)
	c := s.chunks[ci]
	j := sort.SearchStrings(c, e)
	if j >= len(c) || c[j] != e {
		return
	}
	c = append(c[:j], c[j+1:]...)
	if len(c) == 0 {
		s.chunks = append(s.chunks[:ci], s.chunks[ci+1:]...)
		return
	}
	s.chunks[ci] = c
}

// scan calls fn for the entries >= from (or > from) in order until fn
// returns false.
func (s *sortedSet) scan(from string, inclusive bool, fn func(string) bool) {
	if len(s.chunks) == 0 {
		return
	}
	ci := s.chunkFor(from)
	j := sort.SearchStrings(s.chunks[ci], from)
	for ; ci < len(s.chunks); ci, j = ci+1, 0 {
		c := s.chunks[ci]
		for ; j < len(c); j++ {
			if !inclusive && c[j] == from {
				continue
			}
			if !fn(c[j]) {
				return
			}
		}
	}
}

// size returns the number of entries (tests).
func (s *sortedSet) size() int {
	n := 0
	for _, c := range s.chunks {
		n += len(c)
	}
	return n
}

var sprintf = fmt.Sprintf
