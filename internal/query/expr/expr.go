package expr

import (
	"strconv"
	"strings"
)

// Expr is an immutable expression node: *Col, *Lit, *Param or *Call.
type Expr interface {
	// Type is the static result type (Unknown when only the data knows).
	Type() Type
	// String prints the expression as EXPLAIN shows it.
	String() string
}

// Col references column Index of the input row. Name is for EXPLAIN.
type Col struct {
	Index int
	Name  string
	T     Type
}

// Lit is a constant.
type Lit struct {
	V Value
}

// Param is the statement's parameter Index (0-based); T is the type the
// planner inferred for it (Unknown: the bound value's own type).
type Param struct {
	Index int
	T     Type
}

// Call applies an operator or function to its arguments. Op is one of the
// names in the ops table (eval.go); T is the result type.
type Call struct {
	Op   string
	Args []Expr
	T    Type
}

func (c *Col) Type() Type   { return c.T }
func (l *Lit) Type() Type   { return l.V.T }
func (p *Param) Type() Type { return p.T }
func (c *Call) Type() Type  { return c.T }

func (c *Col) String() string {
	if c.Name != "" {
		return c.Name
	}
	return "$" + strconv.Itoa(c.Index)
}

func (l *Lit) String() string { return l.V.SQLLiteral() }

func (p *Param) String() string { return "?" + strconv.Itoa(p.Index+1) }

var infix = map[string]string{
	"and": "AND", "or": "OR", "=": "=", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
	"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "||": "||",
}

func (c *Call) String() string {
	var b strings.Builder
	switch {
	case infix[c.Op] != "" && len(c.Args) >= 2:
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(" " + infix[c.Op] + " ")
			}
			writeOperand(&b, a)
		}
	case c.Op == "not":
		b.WriteString("NOT ")
		writeOperand(&b, c.Args[0])
	case c.Op == "neg":
		b.WriteString("-")
		writeOperand(&b, c.Args[0])
	case c.Op == "is_null" || c.Op == "is_not_null" || c.Op == "is_true" || c.Op == "is_false":
		writeOperand(&b, c.Args[0])
		b.WriteString(" " + strings.ToUpper(strings.ReplaceAll(c.Op, "_", " ")))
	case c.Op == "like" || c.Op == "ilike" || c.Op == "regex":
		writeOperand(&b, c.Args[0])
		b.WriteString(" " + strings.ToUpper(c.Op) + " ")
		writeOperand(&b, c.Args[1])
		if len(c.Args) > 2 {
			b.WriteString(" ESCAPE ")
			writeOperand(&b, c.Args[2])
		}
	case c.Op == "in":
		writeOperand(&b, c.Args[0])
		b.WriteString(" IN (")
		for i, a := range c.Args[1:] {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		b.WriteString(")")
	case c.Op == "between":
		writeOperand(&b, c.Args[0])
		b.WriteString(" BETWEEN ")
		writeOperand(&b, c.Args[1])
		b.WriteString(" AND ")
		writeOperand(&b, c.Args[2])
	case c.Op == "cast":
		b.WriteString("CAST(" + c.Args[0].String() + " AS " + c.T.String() + ")")
	case c.Op == "case":
		b.WriteString("CASE")
		n := len(c.Args)
		for i := 0; i+1 < n; i += 2 {
			b.WriteString(" WHEN " + c.Args[i].String() + " THEN " + c.Args[i+1].String())
		}
		if n%2 == 1 {
			b.WriteString(" ELSE " + c.Args[n-1].String())
		}
		b.WriteString(" END")
	case c.Op == "json_value" || c.Op == "json_query":
		b.WriteString(strings.ToUpper(c.Op) + "(")
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		if c.Op == "json_value" {
			b.WriteString(" RETURNING " + c.T.String())
		}
		b.WriteString(")")
	default:
		b.WriteString(strings.ToUpper(c.Op) + "(")
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		b.WriteString(")")
	}
	return b.String()
}

func writeOperand(b *strings.Builder, e Expr) {
	if c, ok := e.(*Call); ok && (infix[c.Op] != "" || c.Op == "not" || c.Op == "in" || c.Op == "between" || c.Op == "like") {
		b.WriteString("(" + c.String() + ")")
		return
	}
	b.WriteString(e.String())
}

// NewCall builds a call.
func NewCall(op string, t Type, args ...Expr) *Call { return &Call{Op: op, Args: args, T: t} }

// Walk calls fn for e and every sub-expression, parents first, until fn
// returns false for a node (its children are then skipped).
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	if c, ok := e.(*Call); ok {
		for _, a := range c.Args {
			Walk(a, fn)
		}
	}
}

// Rewrite returns e with every node replaced by fn's result, children
// first. fn returns its argument to keep a node.
func Rewrite(e Expr, fn func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	if c, ok := e.(*Call); ok {
		var args []Expr
		for i, a := range c.Args {
			na := Rewrite(a, fn)
			if na != a && args == nil {
				args = make([]Expr, len(c.Args))
				copy(args, c.Args[:i])
			}
			if args != nil {
				args[i] = na
			}
		}
		if args != nil {
			e = &Call{Op: c.Op, Args: args, T: c.T}
		}
	}
	return fn(e)
}

// Columns returns the distinct column indexes e reads, in first-use order.
func Columns(e Expr) []int {
	var out []int
	seen := map[int]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Col); ok && !seen[c.Index] {
			seen[c.Index] = true
			out = append(out, c.Index)
		}
		return true
	})
	return out
}

// IsConstant reports whether e reads no column (parameters are constant).
func IsConstant(e Expr) bool {
	constant := true
	Walk(e, func(x Expr) bool {
		switch c := x.(type) {
		case *Col:
			constant = false
		case *Call:
			if c.Op == "rand" || c.Op == "current_timestamp" || c.Op == "current_date" || c.Op == "current_time" || c.Op == "localtimestamp" {
				constant = false
			}
		}
		return constant
	})
	return constant
}

// HasParams reports whether e contains a parameter.
func HasParams(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if _, ok := x.(*Param); ok {
			found = true
		}
		return !found
	})
	return found
}

// Conjuncts splits an AND tree into its operands.
func Conjuncts(e Expr) []Expr {
	if e == nil {
		return nil
	}
	if c, ok := e.(*Call); ok && c.Op == "and" {
		var out []Expr
		for _, a := range c.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}

// And joins conditions with AND (nil for none).
func And(es ...Expr) Expr {
	var kept []Expr
	for _, e := range es {
		if e != nil {
			kept = append(kept, e)
		}
	}
	switch len(kept) {
	case 0:
		return nil
	case 1:
		return kept[0]
	}
	return &Call{Op: "and", Args: kept, T: Boolean}
}
