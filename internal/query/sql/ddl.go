package sql

import (
	"strconv"
	"strings"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
)

// ddlParser reads the statements vitess does not know: CREATE [OR
// REPLACE] MAPPING, DROP MAPPING, SHOW MAPPINGS and CREATE INDEX.
type ddlParser struct {
	src  string
	toks []token
	i    int
}

func (p *ddlParser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{pos: len(p.src)}
}

func (p *ddlParser) next() token {
	t := p.peek()
	p.i++
	return t
}

func (p *ddlParser) errAt(t token, format string, args ...any) error {
	return plan.ErrorAt(p.src, t.pos, format, args...)
}

func (p *ddlParser) accept(words ...string) bool {
	for k, w := range words {
		if p.i+k >= len(p.toks) || !p.toks[p.i+k].is(w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

func (p *ddlParser) expect(words ...string) error {
	if !p.accept(words...) {
		t := p.peek()
		got := t.text
		if got == "" {
			got = "end of statement"
		}
		return p.errAt(t, "expected %s, found %s", strings.Join(words, " "), got)
	}
	return nil
}

func (p *ddlParser) symbol(s string) error {
	t := p.next()
	if t.text != s {
		got := t.text
		if got == "" {
			got = "end of statement"
		}
		return p.errAt(t, "expected %q, found %s", s, got)
	}
	return nil
}

// name reads an identifier, dropping a public. or partitioned. schema.
func (p *ddlParser) name(what string) (string, error) {
	read := func() (string, error) {
		t := p.next()
		switch t.kind {
		case tWord, tQuoted:
			return t.val, nil
		}
		got := t.text
		if got == "" {
			got = "end of statement"
		}
		return "", p.errAt(t, "expected %s, found %s", what, got)
	}
	n, err := read()
	if err != nil {
		return "", err
	}
	for p.peek().text == "." {
		p.next()
		part, err := read()
		if err != nil {
			return "", err
		}
		if strings.EqualFold(n, "public") || strings.EqualFold(n, "partitioned") || strings.EqualFold(n, "hazelcast") {
			n = part
		} else {
			n += "." + part
		}
	}
	return n, nil
}

func (p *ddlParser) end() error {
	if p.peek().text == ";" {
		p.next()
	}
	if t := p.peek(); t.text != "" {
		return p.errAt(t, "unexpected %s after the statement", t.text)
	}
	return nil
}

// parseDDL returns a statement node when s is one of the statements it
// reads, or nil.
func parseDDL(s string) (plan.Node, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &ddlParser{src: s, toks: toks}
	switch {
	case p.accept("SHOW", "MAPPINGS"), p.accept("SHOW", "TABLES"):
		return plan.ShowMappings{}, p.end()
	case p.accept("DROP", "MAPPING"), p.accept("DROP", "TABLE"), p.accept("DROP", "VIEW"):
		ifExists := p.accept("IF", "EXISTS")
		name, err := p.name("mapping name")
		if err != nil {
			return nil, err
		}
		return &plan.DropMapping{Name: name, IfExists: ifExists}, p.end()
	case p.accept("CREATE", "OR", "REPLACE", "MAPPING"):
		return p.createMapping(true)
	case p.accept("CREATE", "MAPPING"):
		return p.createMapping(false)
	case p.accept("CREATE", "INDEX"):
		return p.createIndex()
	}
	return nil, nil
}

func (p *ddlParser) createMapping(orReplace bool) (plan.Node, error) {
	c := &plan.CreateMapping{OrReplace: orReplace}
	c.IfNotExists = p.accept("IF", "NOT", "EXISTS")
	name, err := p.name("mapping name")
	if err != nil {
		return nil, err
	}
	m := &plan.Mapping{Name: name, MapName: name, Options: map[string]string{}}
	if p.accept("EXTERNAL", "NAME") {
		if m.MapName, err = p.name("map name"); err != nil {
			return nil, err
		}
	}
	type col struct {
		name, ext string
		t         expr.Type
		at        token
	}
	var cols []col
	if p.peek().text == "(" {
		p.next()
		for {
			at := p.peek()
			cn, err := p.name("column name")
			if err != nil {
				return nil, err
			}
			n, t, ok := castType(p.toks, p.i)
			if !ok {
				return nil, p.errAt(p.peek(), "unknown type %s of column %s", p.peek().text, cn)
			}
			p.i += n
			c := col{name: cn, t: t, at: at}
			if p.accept("EXTERNAL", "NAME") {
				ext, err := p.name("external name")
				if err != nil {
					return nil, err
				}
				c.ext = ext
			}
			for _, prev := range cols {
				if prev.name == cn {
					return nil, p.errAt(at, "column %s appears twice", cn)
				}
			}
			cols = append(cols, c)
			if p.peek().text == "," {
				p.next()
				continue
			}
			if err := p.symbol(")"); err != nil {
				return nil, err
			}
			break
		}
	}
	if err := p.expect("TYPE"); err != nil {
		return nil, err
	}
	typTok := p.next()
	if !strings.EqualFold(typTok.val, "IMap") {
		return nil, p.errAt(typTok, "unsupported mapping type %s (only IMap)", typTok.text)
	}
	if p.accept("OPTIONS") {
		if err := p.symbol("("); err != nil {
			return nil, err
		}
		for p.peek().text != ")" {
			k := p.next()
			if k.kind != tString {
				return nil, p.errAt(k, "expected an option name in quotes, found %s", k.text)
			}
			if err := p.symbol("="); err != nil {
				return nil, err
			}
			v := p.next()
			if v.kind != tString {
				return nil, p.errAt(v, "expected an option value in quotes, found %s", v.text)
			}
			m.Options[k.val] = v.val
			if p.peek().text == "," {
				p.next()
			}
		}
		p.next()
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	m.KeyFormat = strings.ToLower(m.Options["keyFormat"])
	m.ValueFormat = strings.ToLower(m.Options["valueFormat"])
	if m.KeyFormat == "" || m.ValueFormat == "" {
		return nil, plan.Errorf("mapping %s needs the options 'keyFormat' and 'valueFormat'", name)
	}
	keyType, err := formatType(m.KeyFormat, "keyFormat")
	if err != nil {
		return nil, err
	}
	valueType, err := formatType(m.ValueFormat, "valueFormat")
	if err != nil {
		return nil, err
	}
	switch m.ValueFormat {
	case "compact":
		if m.Options["valueCompactTypeName"] == "" {
			return nil, plan.Errorf("mapping %s: 'valueFormat'='compact' needs 'valueCompactTypeName'", name)
		}
	case "portable":
		if _, err := intOption(m, "valuePortableFactoryId"); err != nil {
			return nil, err
		}
		if _, err := intOption(m, "valuePortableClassId"); err != nil {
			return nil, err
		}
	case "java":
		if m.Options["valueJavaClass"] == "" {
			return nil, plan.Errorf("mapping %s: 'valueFormat'='java' needs 'valueJavaClass'", name)
		}
	case "identified":
		// IdentifiedDataSerializable values, read through the layout of the
		// factory and class id each value carries; the ids are checked
		// when given.
		for _, k := range []string{"valueIdentifiedFactoryId", "valueIdentifiedClassId"} {
			if _, ok := m.Options[k]; ok {
				if _, err := intOption(m, k); err != nil {
					return nil, err
				}
			}
		}
	}
	objectValue := valueType == expr.Object || m.ValueFormat == "json-flat"
	if len(cols) == 0 && objectValue && m.ValueFormat != "json" {
		return nil, plan.Errorf("mapping %s: a %s mapping needs a column list", name, m.ValueFormat)
	}
	hasKey, hasThis := false, false
	for _, c := range cols {
		path := c.ext
		switch {
		case c.name == "__key" && path == "":
			path, hasKey = "__key", true
		case c.name == "this" && path == "":
			path, hasThis = "this", true
		case path == "":
			path = c.name
		}
		path = plan.NormalizePath(path)
		if path == "__key" {
			hasKey = true
		}
		if path == "this" {
			hasThis = true
		}
		if !objectValue && path != "__key" && path != "this" && !strings.HasPrefix(path, "__key.") {
			return nil, p.errAt(c.at, "column %s: a %s value has no fields", c.name, m.ValueFormat)
		}
		m.Columns = append(m.Columns, plan.MappingColumn{Name: c.name, Type: c.t, Path: path})
	}
	if !hasKey {
		m.Columns = append([]plan.MappingColumn{{Name: "__key", Type: keyType, Path: "__key", Hidden: len(cols) > 0}}, m.Columns...)
	}
	if !hasThis {
		t := valueType
		if m.ValueFormat == "json-flat" {
			t = expr.Object
		}
		m.Columns = append(m.Columns, plan.MappingColumn{Name: "this", Type: t, Path: "this", Hidden: len(cols) > 0 && objectValue})
	}
	m.DDL = p.src
	c.Mapping = m
	return c, nil
}

func intOption(m *plan.Mapping, key string) (int32, error) {
	v, ok := m.Options[key]
	if !ok {
		return 0, plan.Errorf("mapping %s: 'valueFormat'='%s' needs '%s'", m.Name, m.ValueFormat, key)
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, plan.Errorf("mapping %s: option '%s' must be an integer, not '%s'", m.Name, key, v)
	}
	return int32(n), nil
}

// formatType returns the SQL type of a key or value format as a whole.
func formatType(f, option string) (expr.Type, error) {
	switch f {
	case "compact", "portable", "java", "identified", "json-flat":
		return expr.Object, nil
	case "json":
		return expr.JSON, nil
	case "varchar", "string":
		return expr.Varchar, nil
	case "bigint", "long":
		return expr.BigInt, nil
	case "int", "integer":
		return expr.Integer, nil
	case "smallint", "short":
		return expr.SmallInt, nil
	case "tinyint", "byte":
		return expr.TinyInt, nil
	case "boolean":
		return expr.Boolean, nil
	case "double":
		return expr.Double, nil
	case "real", "float":
		return expr.Real, nil
	case "decimal":
		return expr.Decimal, nil
	}
	return 0, plan.Errorf("unsupported %s '%s' (int, bigint, varchar, ..., compact, portable, java, identified, json, json-flat)", option, f)
}

func (p *ddlParser) createIndex() (plan.Node, error) {
	c := &plan.CreateIndex{}
	c.IfNotExists = p.accept("IF", "NOT", "EXISTS")
	name, err := p.name("index name")
	if err != nil {
		return nil, err
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	table, err := p.name("mapping name")
	if err != nil {
		return nil, err
	}
	if err := p.symbol("("); err != nil {
		return nil, err
	}
	var attrs []string
	for {
		a, err := p.name("attribute")
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
		if p.peek().text == "," {
			p.next()
			continue
		}
		if err := p.symbol(")"); err != nil {
			return nil, err
		}
		break
	}
	if len(attrs) != 1 {
		return nil, plan.Errorf("index %s: composite indexes are not supported; index one attribute", name)
	}
	c.Index = plan.IndexInfo{Name: name, Map: table, Type: plan.IndexSorted, Attribute: plan.NormalizePath(attrs[0])}
	if p.accept("TYPE") {
		t := p.next()
		switch strings.ToUpper(t.val) {
		case "SORTED":
		case "HASH":
			c.Index.Type = plan.IndexHash
		default:
			return nil, p.errAt(t, "unsupported index type %s (SORTED or HASH)", t.text)
		}
	}
	if p.accept("OPTIONS") {
		depth := 0
		for t := p.next(); t.text != ""; t = p.next() {
			if t.text == "(" {
				depth++
			} else if t.text == ")" {
				depth--
				if depth == 0 {
					break
				}
			}
		}
	}
	return c, p.end()
}
