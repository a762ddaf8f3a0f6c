package predicate

import (
	"fmt"
	"strconv"
	"strings"
)

// SyntaxError is a problem in predicate SQL at byte Offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("predicate SQL at offset %d: %s", e.Offset, e.Msg)
}

// Unwrap makes SyntaxError match ErrInvalid.
func (e *SyntaxError) Unwrap() error { return ErrInvalid }

// maxSQLLength bounds predicate SQL text.
const maxSQLLength = 1 << 20

// ParseSQL parses Hazelcast's predicate SQL:
//
//	cond    := or
//	or      := and (OR and)*
//	and     := not (AND not)*
//	not     := NOT not | '(' cond ')' | TRUE | FALSE | attr [test]
//	test    := op value | [NOT] BETWEEN value AND value | [NOT] IN (value, ...)
//	         | [NOT] LIKE 'p' | [NOT] ILIKE 'p' | [NOT] REGEX 'p' | IS [NOT] NULL
//	op      := = | == | != | <> | < | <= | > | >=
//	value   := 'string' | number | TRUE | FALSE | NULL
//
// An attribute alone is true when the attribute is true. Keywords are
// case-insensitive; attributes are paths (a.b, arr[0], arr[any].x, __key).
func ParseSQL(text string) (Predicate, error) {
	if len(text) > maxSQLLength {
		return nil, &SyntaxError{Msg: "predicate is too long"}
	}
	p := &sqlParser{s: text}
	p.advance()
	if p.tok.kind == tkEOF {
		return nil, &SyntaxError{Msg: "empty predicate"}
	}
	pred, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tkEOF {
		return nil, p.fail("unexpected %q", p.tok.text)
	}
	return pred, nil
}

type tkKind int

const (
	tkEOF tkKind = iota
	tkWord
	tkString
	tkNumber
	tkSymbol
)

type tk struct {
	kind tkKind
	text string
	val  string
	pos  int
}

type sqlParser struct {
	s   string
	i   int
	tok tk
	err error
}

func (p *sqlParser) fail(format string, args ...any) error {
	return &SyntaxError{Offset: p.tok.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *sqlParser) advance() {
	s := p.s
	for p.i < len(s) && (s[p.i] == ' ' || s[p.i] == '\t' || s[p.i] == '\n' || s[p.i] == '\r') {
		p.i++
	}
	start := p.i
	if p.i >= len(s) {
		p.tok = tk{kind: tkEOF, pos: start}
		return
	}
	c := s[p.i]
	switch {
	case c == '\'' || c == '"':
		var b strings.Builder
		j := p.i + 1
		for ; j < len(s); j++ {
			if s[j] == c {
				if j+1 < len(s) && s[j+1] == c {
					b.WriteByte(c)
					j++
					continue
				}
				break
			}
			b.WriteByte(s[j])
		}
		if j >= len(s) {
			p.tok = tk{kind: tkSymbol, text: "unterminated string", pos: start}
			p.err = &SyntaxError{Offset: start, Msg: "unterminated string"}
			p.i = len(s)
			return
		}
		p.i = j + 1
		p.tok = tk{kind: tkString, text: s[start:p.i], val: b.String(), pos: start}
	case c >= '0' && c <= '9' || ((c == '-' || c == '.') && p.i+1 < len(s) && (s[p.i+1] >= '0' && s[p.i+1] <= '9' || s[p.i+1] == '.')):
		j := p.i + 1
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
			((s[j] == '-' || s[j] == '+') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
			j++
		}
		p.i = j
		p.tok = tk{kind: tkNumber, text: s[start:j], val: s[start:j], pos: start}
	case c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		j := p.i
		depth := 0
		for j < len(s) {
			ch := s[j]
			if ch == '[' {
				depth++
			} else if ch == ']' && depth > 0 {
				depth--
			} else if depth == 0 && !(ch == '_' || ch == '$' || ch == '.' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch >= 0x80) {
				break
			}
			j++
		}
		p.i = j
		p.tok = tk{kind: tkWord, text: s[start:j], val: s[start:j], pos: start}
	default:
		n := 1
		if p.i+1 < len(s) {
			switch s[p.i : p.i+2] {
			case "<=", ">=", "<>", "!=", "==":
				n = 2
			}
		}
		p.i += n
		p.tok = tk{kind: tkSymbol, text: s[start:p.i], val: s[start:p.i], pos: start}
	}
}

func (p *sqlParser) isWord(w string) bool {
	return p.tok.kind == tkWord && strings.EqualFold(p.tok.text, w)
}

func (p *sqlParser) or(depth int) (Predicate, error) {
	if depth > MaxDepth {
		return nil, p.fail("nested deeper than %d", MaxDepth)
	}
	first, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	ops := []Predicate{first}
	for p.isWord("OR") {
		p.advance()
		x, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		ops = append(ops, x)
	}
	if len(ops) == 1 {
		return first, nil
	}
	return Or(ops...), nil
}

func (p *sqlParser) and(depth int) (Predicate, error) {
	first, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	ops := []Predicate{first}
	for p.isWord("AND") {
		p.advance()
		x, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		ops = append(ops, x)
	}
	if len(ops) == 1 {
		return first, nil
	}
	return And(ops...), nil
}

func (p *sqlParser) not(depth int) (Predicate, error) {
	if p.err != nil {
		return nil, p.err
	}
	if depth > MaxDepth {
		return nil, p.fail("nested deeper than %d", MaxDepth)
	}
	switch {
	case p.isWord("NOT"):
		p.advance()
		x, err := p.not(depth + 1)
		if err != nil {
			return nil, err
		}
		return Not(x), nil
	case p.tok.kind == tkSymbol && p.tok.text == "(":
		p.advance()
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.tok.text != ")" {
			return nil, p.fail("expected ')'")
		}
		p.advance()
		return x, nil
	case p.isWord("TRUE"):
		p.advance()
		return True(), nil
	case p.isWord("FALSE"):
		p.advance()
		return False(), nil
	case p.tok.kind != tkWord:
		if p.tok.kind == tkEOF {
			return nil, p.fail("unexpected end of predicate")
		}
		return nil, p.fail("expected an attribute, found %q", p.tok.text)
	}
	attr := p.tok.val
	p.advance()
	return p.test(attr)
}

func (p *sqlParser) test(attr string) (Predicate, error) {
	if p.err != nil {
		return nil, p.err
	}
	negate := func(x Predicate, not bool) Predicate {
		if not {
			return Not(x)
		}
		return x
	}
	if p.tok.kind == tkSymbol {
		op := map[string]CompareOp{"=": OpEqual, "==": OpEqual, "!=": OpNotEqual, "<>": OpNotEqual, "<": OpLess,
			"<=": OpLessEqual, ">": OpGreater, ">=": OpGreaterEqual}[p.tok.text]
		if op == 0 {
			if p.tok.text == ")" {
				return Equal(attr, true), nil
			}
			return nil, p.fail("unexpected %q", p.tok.text)
		}
		p.advance()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return &Comparison{Attribute: attr, Op: op, Value: v}, nil
	}
	if p.isWord("IS") {
		p.advance()
		not := false
		if p.isWord("NOT") {
			not = true
			p.advance()
		}
		if !p.isWord("NULL") {
			return nil, p.fail("expected NULL after IS")
		}
		p.advance()
		if not {
			return NotEqual(attr, nil), nil
		}
		return Equal(attr, nil), nil
	}
	not := false
	if p.isWord("NOT") {
		not = true
		p.advance()
	}
	switch {
	case p.isWord("BETWEEN"):
		p.advance()
		from, err := p.value()
		if err != nil {
			return nil, err
		}
		if !p.isWord("AND") {
			return nil, p.fail("expected AND in BETWEEN")
		}
		p.advance()
		to, err := p.value()
		if err != nil {
			return nil, err
		}
		return negate(Between(attr, from, to), not), nil
	case p.isWord("IN"):
		p.advance()
		if p.tok.text != "(" {
			return nil, p.fail("expected '(' after IN")
		}
		p.advance()
		var vals []any
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			if len(vals) > MaxOperands {
				return nil, p.fail("IN lists more than %d values", MaxOperands)
			}
			if p.tok.text == "," {
				p.advance()
				continue
			}
			if p.tok.text != ")" {
				return nil, p.fail("expected ',' or ')' in IN")
			}
			p.advance()
			break
		}
		return negate(In(attr, vals...), not), nil
	case p.isWord("LIKE"), p.isWord("ILIKE"), p.isWord("REGEX"):
		kind := map[string]MatchKind{"LIKE": MatchLike, "ILIKE": MatchILike, "REGEX": MatchRegex}[strings.ToUpper(p.tok.text)]
		p.advance()
		if p.tok.kind != tkString {
			return nil, p.fail("expected a quoted pattern")
		}
		pat := p.tok.val
		p.advance()
		return negate(&MatchPredicate{Attribute: attr, Kind: kind, Pattern: pat}, not), nil
	}
	if not {
		return nil, p.fail("expected BETWEEN, IN, LIKE, ILIKE or REGEX after NOT")
	}
	// A bare attribute: a boolean test.
	if p.tok.kind == tkEOF || p.isWord("AND") || p.isWord("OR") {
		return Equal(attr, true), nil
	}
	return nil, p.fail("expected an operator after %s, found %q", attr, p.tok.text)
}

func (p *sqlParser) value() (any, error) {
	if p.err != nil {
		return nil, p.err
	}
	t := p.tok
	switch {
	case t.kind == tkString:
		p.advance()
		return t.val, nil
	case t.kind == tkNumber:
		p.advance()
		if n, err := strconv.ParseInt(t.val, 10, 64); err == nil {
			return n, nil
		}
		f, err := strconv.ParseFloat(t.val, 64)
		if err != nil {
			return nil, &SyntaxError{Offset: t.pos, Msg: "invalid number " + t.val}
		}
		return f, nil
	case p.isWord("TRUE"):
		p.advance()
		return true, nil
	case p.isWord("FALSE"):
		p.advance()
		return false, nil
	case p.isWord("NULL"):
		p.advance()
		return nil, nil
	case t.kind == tkWord:
		// Hazelcast accepts unquoted words as strings (name = John).
		p.advance()
		return t.val, nil
	}
	if t.kind == tkEOF {
		return nil, p.fail("expected a value, found the end")
	}
	return nil, p.fail("expected a value, found %q", t.text)
}
