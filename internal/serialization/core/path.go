package core

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// Sink receives what a path selects: the one value of a single path (V),
// or each value of a path with [any] (handed to Each).
type Sink struct {
	V    FieldValue
	Each func(FieldValue) error
}

// Emit hands v on.
func (s *Sink) Emit(v FieldValue) error {
	if s.Each != nil {
		return s.Each(v)
	}
	s.V = v
	return nil
}

// MaxPlans bounds the plans a node keeps (schemas and class versions of
// one field are few; past the bound, plans are compiled per read).
const MaxPlans = 64

// Plans is a path node's compiled plans, one per schema, class or layout
// met, published copy-on-write so that reads take no lock. The first plan
// is also kept on its own: the values of a map are mostly of one type,
// and the read's fast path finds its plan with one load.
type Plans[P any] struct {
	first atomic.Pointer[P]
	list  atomic.Pointer[[]*P]
}

// First returns the first plan added, or nil.
func (ps *Plans[P]) First() *P { return ps.first.Load() }

// List returns the plans added, in order.
func (ps *Plans[P]) List() []*P {
	if l := ps.list.Load(); l != nil {
		return *l
	}
	return nil
}

// Add publishes p (beyond MaxPlans, it does nothing).
func (ps *Plans[P]) Add(p *P) {
	for {
		old := ps.list.Load()
		var cur []*P
		if old != nil {
			cur = *old
		}
		if len(cur) >= MaxPlans {
			return
		}
		next := append(cur[:len(cur):len(cur)], p)
		if ps.list.CompareAndSwap(old, &next) {
			ps.first.CompareAndSwap(nil, next[0])
			return
		}
	}
}

// PathStep is one step of an attribute path: a field name, optionally
// indexed with a position or with [any].
type PathStep struct {
	Name  string
	Index int  // -1: none
	Any   bool // [any] or [*]
}

// Items returns the range [from, to) of the items of an array of count
// items that the step selects: all of them for [any], the one at its index
// otherwise (none when the array is shorter).
func (st PathStep) Items(count int) (from, to int) {
	if st.Any {
		return 0, count
	}
	if st.Index < 0 || st.Index >= count {
		return 0, 0
	}
	return st.Index, st.Index + 1
}

// ParseAttributePath splits an attribute path ("a.b", "arr[0]",
// "arr[any].x") into steps. An empty path has no steps: it reads the whole
// value.
func ParseAttributePath(p string) ([]PathStep, error) {
	if p == "" {
		return nil, nil
	}
	var steps []PathStep
	for _, part := range splitAttributePath(p) {
		st := PathStep{Name: part, Index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 {
			if !strings.HasSuffix(part, "]") {
				return nil, fmt.Errorf("bad attribute path %q", p)
			}
			st.Name = part[:i]
			switch inner := strings.TrimSpace(part[i+1 : len(part)-1]); inner {
			case "any", "*":
				st.Any = true
			default:
				n, err := strconv.Atoi(inner)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("bad index in attribute path %q", p)
				}
				st.Index = n
			}
		}
		if st.Name == "" && len(steps) == 0 && st.Index < 0 && !st.Any {
			return nil, fmt.Errorf("bad attribute path %q", p)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// splitAttributePath splits on the dots outside brackets.
func splitAttributePath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// MaxDepth bounds the nesting of objects a decoder follows, so that hostile
// input cannot exhaust the stack.
const MaxDepth = 256

// Encoding is the state that one serialization (a ToData call) shares
// between the formats it writes.
type Encoding struct {
	Base       int  // where the Data starts in the output: Portable positions count from it
	WithSchema bool // Compact objects carry their schemas (type -56)
	Depth      int  // objects nested so far
}

// Budget bounds the work of one deserialization (a ToObject call): how
// deep objects nest, and the bytes of nested objects decoded against the
// size of the Data, since offsets that point many fields at the same
// bytes could otherwise make a decoded value exponentially larger than
// its Data.
type Budget struct {
	Depth  int
	Nested int
	Size   int // the Data's size
}

// PathOptions are what the nodes of one field reader share.
type PathOptions struct {
	// Strict: a field that no version of the value's type has is an
	// *UnknownFieldError, not a null.
	Strict bool
	// ToData serializes a nested object that a path ends at, as a Data of
	// its own.
	ToData func(v any) (Data, error)
}

// NotAnObject is what a step after the first of steps reads in a field of
// the given kind that holds no object: nothing, or for a strict reader an
// UnknownFieldError.
func (o *PathOptions) NotAnObject(steps []PathStep, field, kind string) error {
	if o.Strict && len(steps) > 1 {
		next := steps[1].Name
		return &UnknownFieldError{Field: next, Reason: "field " + strconv.Quote(field) + " is " + kind + ", which has no field " + strconv.Quote(next)}
	}
	return nil
}

// NestedData returns a nested object as a value of its own: its Data.
func (o *PathOptions) NestedData(v any) (FieldValue, error) {
	d, err := o.ToData(v)
	if err != nil {
		return FieldValue{}, err
	}
	return FieldValue{Kind: ValueObject, B: d}, nil
}

// ObjectReader reads the steps of a path that are left at an object of
// any format: what a writeObject field holds.
type ObjectReader interface {
	// Object reads them from the object of type typ whose payload starts
	// at buf[p] and ends by buf[limit], depth objects deep.
	Object(buf []byte, p, limit int, typ int32, depth int, out *Sink) error
}
