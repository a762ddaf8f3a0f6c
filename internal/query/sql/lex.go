package sql

import (
	"strconv"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// tokKind classifies a token of the pre-pass lexer.
type tokKind uint8

const (
	tWord tokKind = iota + 1
	tString
	tQuoted // "identifier" or `identifier`
	tNumber
	tSymbol
	tParam
)

type token struct {
	kind tokKind
	text string // the source text of the token
	val  string // identifier or string contents, unescaped
	pos  int
}

func (t token) is(word string) bool { return t.kind == tWord && strings.EqualFold(t.text, word) }

// lex splits a statement into tokens, skipping spaces and comments. It
// reports unterminated strings, identifiers and comments.
func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, plan.ErrorAt(s, i, "unterminated comment")
			}
			i += end + 4
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			var b strings.Builder
			closed := false
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				if c == '\'' && s[j] == '\\' && false {
					j++
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				what := "string literal"
				if c != '\'' {
					what = "quoted identifier"
				}
				return nil, plan.ErrorAt(s, i, "unterminated %s", what)
			}
			k := tString
			if c != '\'' {
				k = tQuoted
			}
			out = append(out, token{kind: k, text: s[i:j], val: b.String(), pos: i})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			out = append(out, token{kind: tWord, text: s[i:j], val: s[i:j], pos: i})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				((s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E'))) {
				j++
			}
			out = append(out, token{kind: tNumber, text: s[i:j], val: s[i:j], pos: i})
			i = j
		case c == '?':
			out = append(out, token{kind: tParam, text: "?", pos: i})
			i++
		default:
			n := 1
			if i+1 < len(s) {
				switch s[i : i+2] {
				case "||", "<=", ">=", "<>", "!=", "==":
					n = 2
				}
			}
			out = append(out, token{kind: tSymbol, text: s[i : i+n], val: s[i : i+n], pos: i})
			i += n
		}
	}
	return out, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// prepared is a statement rewritten for vitess: double-quoted identifiers
// in backticks, Hazelcast's cast types replaced by CHAR(1000+i) with the
// original type in types[i], || as << (concatenation), SINK as INSERT,
// and table functions, TABLE(name(args)), as the table __table_function_i
// with the call in funcs[i].
type prepared struct {
	text      string
	types     []expr.Type
	overwrite bool
	funcs     []tableCall
	// segments map offsets of text back to the original statement.
	segs []segment
}

type segment struct{ out, in int }

// tableCall is a table function in FROM: TABLE(name(args)).
type tableCall struct {
	name string
	args []token
	pos  int
}

const tableFuncPrefix = "__table_function_"

// tableFunc returns the table function a table name stands for.
func (p *prepared) tableFunc(name string) (tableCall, bool) {
	if !strings.HasPrefix(name, tableFuncPrefix) {
		return tableCall{}, false
	}
	i, err := strconv.Atoi(name[len(tableFuncPrefix):])
	if err != nil || i < 0 || i >= len(p.funcs) {
		return tableCall{}, false
	}
	return p.funcs[i], true
}

// tableFunction reads TABLE(name(args)) at toks[i] (TABLE): it returns the
// call and the index of its closing parenthesis.
func tableFunction(toks []token, i int) (tableCall, int, bool) {
	if i+4 >= len(toks) || !toks[i].is("TABLE") || toks[i+1].text != "(" || toks[i+2].kind != tWord || toks[i+3].text != "(" {
		return tableCall{}, 0, false
	}
	call := tableCall{name: strings.ToLower(toks[i+2].text), pos: toks[i+2].pos}
	for j := i + 4; j+1 < len(toks); j++ {
		if toks[j].text == ")" {
			if toks[j+1].text != ")" {
				return tableCall{}, 0, false
			}
			return call, j + 1, true
		}
		if toks[j].text == "(" {
			return tableCall{}, 0, false
		}
		call.args = append(call.args, toks[j])
	}
	return tableCall{}, 0, false
}

// origin maps an offset of the rewritten text to the original statement.
func (p *prepared) origin(off int) int {
	in := off
	for _, s := range p.segs {
		if s.out <= off {
			in = s.in + (off - s.out)
		}
	}
	return in
}

// castTypeLen returns how many tokens from i form a type name, and the type.
func castType(toks []token, i int) (int, expr.Type, bool) {
	if i >= len(toks) || toks[i].kind != tWord {
		return 0, 0, false
	}
	w := strings.ToUpper(toks[i].text)
	n := 1
	switch w {
	case "DOUBLE":
		if i+1 < len(toks) && toks[i+1].is("PRECISION") {
			n = 2
		}
	case "TIMESTAMP":
		if i+3 < len(toks) && toks[i+1].is("WITH") && toks[i+2].is("TIME") && toks[i+3].is("ZONE") {
			n, w = 4, "TIMESTAMP WITH TIME ZONE"
		}
	case "CHARACTER":
		if i+1 < len(toks) && toks[i+1].is("VARYING") {
			n, w = 2, "VARCHAR"
		}
	}
	t, ok := expr.ParseType(w)
	if !ok {
		return 0, 0, false
	}
	// Optional (precision[, scale]).
	if j := i + n; j < len(toks) && toks[j].text == "(" {
		k := j + 1
		for k < len(toks) && toks[k].text != ")" {
			if toks[k].kind != tNumber && toks[k].text != "," {
				return n, t, true
			}
			k++
		}
		if k < len(toks) {
			n = k - i + 1
		}
	}
	return n, t, true
}

// Limits on statements: they bound the work (and the recursion) one
// statement can cause.
const (
	maxTokens = 100_000
	maxDepth  = 200
	// maxExprDepth bounds the nesting of an expression's operators
	// (a chain of 1 + 1 + ..., NOT NOT ..., CASE in CASE), which the
	// planner and every row's evaluation walk recursively.
	maxExprDepth = 1000
)

// checkLimits rejects statements with too many tokens or too deep nesting.
func checkLimits(s string, toks []token) error {
	if len(toks) > maxTokens {
		return plan.Errorf("statement has more than %d tokens", maxTokens)
	}
	depth := 0
	for _, t := range toks {
		switch t.text {
		case "(":
			if depth++; depth > maxDepth {
				return plan.ErrorAt(s, t.pos, "parentheses nest deeper than %d", maxDepth)
			}
		case ")":
			depth--
		}
	}
	return nil
}

// prepare rewrites a statement for vitess.
func prepare(s string) (*prepared, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	if err := checkLimits(s, toks); err != nil {
		return nil, err
	}
	p := &prepared{}
	var b strings.Builder
	last := 0 // end of the copied original text
	emit := func(from, to int, repl string) {
		b.WriteString(s[last:from])
		p.segs = append(p.segs, segment{out: b.Len(), in: from})
		b.WriteString(repl)
		p.segs = append(p.segs, segment{out: b.Len(), in: to})
		last = to
	}
	// Function names by parenthesis depth: CAST(... AS T), JSON_VALUE(... RETURNING T).
	var stack []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case i == 0 && t.is("SINK"):
			emit(t.pos, t.pos+len(t.text), "INSERT")
			p.overwrite = true
		case t.is("FULL") && i+1 < len(toks) && (toks[i+1].is("OUTER") || toks[i+1].is("JOIN")):
			return nil, plan.ErrorAt(s, t.pos, "FULL OUTER JOIN is not supported (as in Hazelcast): use a LEFT JOIN and a RIGHT JOIN with UNION ALL")
		case t.is("TABLE") && i > 0 && (toks[i-1].is("FROM") || toks[i-1].is("JOIN") || toks[i-1].text == ","):
			call, end, ok := tableFunction(toks, i)
			if !ok {
				continue
			}
			emit(t.pos, toks[end].pos+1, tableFuncPrefix+strconv.Itoa(len(p.funcs)))
			p.funcs = append(p.funcs, call)
			i = end
		case t.kind == tQuoted && t.text[0] == '"':
			emit(t.pos, t.pos+len(t.text), "`"+strings.ReplaceAll(t.val, "`", "``")+"`")
		case t.kind == tSymbol && t.text == "||":
			emit(t.pos, t.pos+2, "<<")
		case t.kind == tSymbol && t.text == "==":
			emit(t.pos, t.pos+2, "=")
		case t.kind == tSymbol && t.text == "(":
			name := ""
			if i > 0 && toks[i-1].kind == tWord {
				name = strings.ToLower(toks[i-1].text)
			}
			stack = append(stack, name)
		case t.kind == tSymbol && t.text == ")":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case len(stack) > 0 && ((t.is("AS") && stack[len(stack)-1] == "cast") || (t.is("RETURNING") && stack[len(stack)-1] == "json_value")):
			n, typ, ok := castType(toks, i+1)
			if !ok {
				continue
			}
			first, lastTok := toks[i+1], toks[i+n]
			emit(first.pos, lastTok.pos+len(lastTok.text), "CHAR("+strconv.Itoa(1000+len(p.types))+")")
			p.types = append(p.types, typ)
			i += n
		}
	}
	b.WriteString(s[last:])
	p.text = b.String()
	return p, nil
}
