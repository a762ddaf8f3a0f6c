// Package sql is the SQL front end: it parses Hazelcast's SQL dialect with
// vitess's sqlparser (after a pre-pass for the parts vitess does not read:
// double-quoted identifiers, Hazelcast's type names in CAST and
// JSON_VALUE ... RETURNING, || and SINK INTO), reads the statements vitess
// has no syntax for (CREATE/DROP/SHOW MAPPING, CREATE INDEX) with a small
// parser of its own, and converts the statement into a logical plan over
// the catalog's mappings. Errors name the line and column.
package sql

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// Planner turns SQL text into physical plans, through a plan cache.
// It is safe for concurrent use.
type Planner struct {
	Catalog plan.Catalog
	Cache   *plan.Cache
	// Options tune planning (statistics, the broadcast threshold); a
	// statement's hints are added to them.
	Options plan.Options
	parser  *sqlparser.Parser
}

// NewPlanner returns a planner over a catalog; cache may be nil.
func NewPlanner(cat plan.Catalog, cache *plan.Cache) *Planner {
	p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		panic(err) // a fixed, valid version
	}
	return &Planner{Catalog: cat, Cache: cache, parser: p}
}

// Normalize trims a statement and its final semicolon and folds runs of
// white space outside literals, giving the plan cache key.
func Normalize(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	var b strings.Builder
	b.Grow(len(s))
	var quote byte
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			b.WriteByte(c)
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"', '`':
			quote = c
		case ' ', '\t', '\n', '\r':
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Plan plans a statement. paramTypes are the types of the bound parameter
// values (they key the cache: a plan depends on them only through casts).
// Planning stops when ctx ends, or when the timeout it carries
// (plan.WithBuildTimeout) passes, with that context's error.
func (p *Planner) Plan(ctx context.Context, stmt string, paramTypes []expr.Type) (*plan.Physical, error) {
	key, version, ok := p.cacheKey(stmt, paramTypes)
	if !ok {
		return nil, plan.Errorf("empty statement")
	}
	if ph, ok := p.Cache.Get(key, version); ok && !plan.Stale(ph, p.Options.Stats) {
		return ph, nil
	}
	// Parse the statement as written (less a final semicolon), so that
	// error positions refer to the user's text; the cache key is normalized.
	src := strings.TrimRight(stmt, " \t\r\n")
	src = strings.TrimRight(strings.TrimSuffix(src, ";"), " \t\r\n")
	node, params, kind, hints, err := p.parse(src)
	if err != nil {
		return nil, err
	}
	for len(params) < len(paramTypes) {
		params = append(params, expr.Unknown)
	}
	opts := p.Options
	opts.Hints = hints
	bctx, cancel := plan.BuildContext(ctx)
	defer cancel()
	ph := plan.Build(bctx, node, p.Catalog, params, kind, opts)
	if err := bctx.Err(); err != nil {
		return nil, err // a plan whose folding stopped short is not cached
	}
	if kind != "ddl" {
		p.Cache.Put(key, version, ph)
	}
	return ph, nil
}

// Cached returns the plan of stmt when it is cached and not stale,
// without planning it: for a caller that must not spend long on a
// statement it has not seen.
func (p *Planner) Cached(stmt string, paramTypes []expr.Type) (*plan.Physical, bool) {
	key, version, ok := p.cacheKey(stmt, paramTypes)
	if !ok {
		return nil, false
	}
	ph, ok := p.Cache.Peek(key, version)
	if !ok || plan.Stale(ph, p.Options.Stats) {
		return nil, false
	}
	return ph, true
}

// cacheKey returns the plan cache's key of stmt and the catalog version
// it is for; false for an empty statement.
func (p *Planner) cacheKey(stmt string, paramTypes []expr.Type) (string, uint64, bool) {
	text := Normalize(stmt)
	if text == "" {
		return "", 0, false
	}
	var version uint64
	if p.Catalog != nil {
		version = p.Catalog.Version()
	}
	return plan.Key("sql", text, paramTypes, version), version, true
}

var syntaxPos = regexp.MustCompile(`at position (\d+)(?: near '((?:[^']|'')*)')?`)

func (p *Planner) parse(text string) (plan.Node, []expr.Type, string, plan.Hints, error) {
	if n, err := parseDDL(text); err != nil || n != nil {
		if err != nil {
			return nil, nil, "", plan.Hints{}, err
		}
		if ci, ok := n.(*plan.CreateIndex); ok {
			if err := p.resolveIndex(ci); err != nil {
				return nil, nil, "", plan.Hints{}, err
			}
		}
		return n, nil, "ddl", plan.Hints{}, nil
	}
	pre, err := prepare(text)
	if err != nil {
		return nil, nil, "", plan.Hints{}, err
	}
	stmt, _, err := p.parser.Parse2(pre.text)
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		msg = strings.TrimSpace(msg)
		if m := syntaxPos.FindStringSubmatch(msg); m != nil {
			pos, _ := strconv.Atoi(m[1])
			near := strings.ReplaceAll(m[2], "''", "'")
			off := pre.origin(max(0, pos-1-len(near)))
			if near != "" {
				return nil, nil, "", plan.Hints{}, plan.ErrorAt(text, off, "syntax error near '%s'", near)
			}
			return nil, nil, "", plan.Hints{}, plan.ErrorAt(text, off, "syntax error at the end of the statement")
		}
		return nil, nil, "", plan.Hints{}, plan.Errorf("syntax error: %s", msg)
	}
	c := &converter{src: text, pre: pre, cat: p.Catalog}
	node, kind, err := c.statement(stmt)
	if err != nil {
		return nil, nil, "", plan.Hints{}, err
	}
	return node, c.params, kind, c.hints, nil
}

// resolveIndex maps CREATE INDEX on a mapping to its map and attribute path.
func (p *Planner) resolveIndex(ci *plan.CreateIndex) error {
	if p.Catalog == nil {
		return nil
	}
	m, ok := p.Catalog.Mapping(ci.Index.Map)
	if !ok {
		return nil // an IMap without a mapping: index it by name
	}
	ci.Index.Map = m.MapName
	if col, ok := m.Column(ci.Index.Attribute); ok {
		ci.Index.Attribute = col.Path
	}
	return nil
}

// locate finds the first whole-word occurrence of name in the statement
// (outside literals), for error positions.
func locate(src, name string) int {
	toks, err := lex(src)
	if err != nil {
		return -1
	}
	for _, t := range toks {
		if (t.kind == tWord || t.kind == tQuoted) && strings.EqualFold(t.val, name) {
			return t.pos
		}
	}
	return -1
}

func (c *converter) errAt(name string, format string, args ...any) error {
	if off := locate(c.src, name); off >= 0 {
		return plan.ErrorAt(c.src, off, format, args...)
	}
	return plan.Errorf(format, args...)
}

func unsupported(what string) error { return plan.Errorf("%s is not supported", what) }
