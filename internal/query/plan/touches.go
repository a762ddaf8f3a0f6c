package plan

// TouchKind is how a statement reaches a map.
type TouchKind uint8

// Ways a statement reaches a map.
const (
	// TouchRead: it reads the map's entries (a scan, an index lookup, a
	// join input, the rows an UPDATE or DELETE finds).
	TouchRead TouchKind = iota + 1
	// TouchWrite: it stores entries (INSERT, SINK INTO, UPDATE).
	TouchWrite
	// TouchRemove: it removes entries (DELETE).
	TouchRemove
	// TouchCreate: it creates or replaces a mapping of the map.
	TouchCreate
	// TouchDropMapping: it drops the mapping named Map (whose map the
	// caller looks up in its catalog).
	TouchDropMapping
	// TouchIndex: it adds an index to the map.
	TouchIndex
	// TouchMembers: it reads every member's counters (exchange_stats);
	// Map is empty.
	TouchMembers
)

// Touch is one map a statement reaches, and how.
type Touch struct {
	Map  string
	Kind TouchKind
}

// Touches lists the maps a plan (logical or physical) reaches and how,
// each pair once, in the order the tree first reaches them: what a
// permission check needs of a statement. EXPLAIN reaches what its
// statement would.
func Touches(root Node) []Touch {
	var out []Touch
	seen := map[Touch]bool{}
	add := func(t Touch) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	var frag func(f *Fragment)
	frag = func(f *Fragment) {
		if f == nil {
			return
		}
		if f.Map != "" {
			add(Touch{Map: f.Map, Kind: TouchRead})
		}
		if f.Join != nil {
			frag(f.Join.Left)
			frag(f.Join.Right)
		}
	}
	var walk func(n Node)
	walk = func(n Node) {
		switch x := n.(type) {
		case nil:
			return
		case *Scan:
			add(Touch{Map: x.Map, Kind: TouchRead})
		case *Gather:
			frag(x.Frag)
		case *Insert:
			add(Touch{Map: x.Mapping.MapName, Kind: TouchWrite})
		case *Update:
			add(Touch{Map: x.Mapping.MapName, Kind: TouchWrite})
		case *Delete:
			add(Touch{Map: x.Mapping.MapName, Kind: TouchRemove})
		case *CreateMapping:
			add(Touch{Map: x.Mapping.MapName, Kind: TouchCreate})
		case *DropMapping:
			add(Touch{Map: x.Name, Kind: TouchDropMapping})
		case *CreateIndex:
			add(Touch{Map: x.Index.Map, Kind: TouchIndex})
		case *ExchangeStats:
			add(Touch{Kind: TouchMembers})
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(root)
	return out
}
