package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// ddl runs a statement that changes the catalog.
func (e *Engine) ddl(n plan.Node) (*Result, error) {
	if e.cfg.Catalog == nil {
		return nil, plan.Errorf("this member has no catalog")
	}
	switch x := n.(type) {
	case *plan.CreateMapping:
		return &Result{}, e.cfg.Catalog.PutMapping(x.Mapping, x.OrReplace, x.IfNotExists)
	case *plan.DropMapping:
		return &Result{}, e.cfg.Catalog.DropMapping(x.Name, x.IfExists)
	case *plan.CreateIndex:
		if strings.Contains(x.Index.Attribute, "[") {
			return nil, plan.Errorf("index %s: attributes with [any] or [n] cannot be indexed", x.Index.Name)
		}
		if _, err := e.cfg.Catalog.AddIndex(x.Index, x.IfNotExists); err != nil {
			return nil, err
		}
		if err := e.ensureIndex(x.Index); err != nil {
			return nil, err
		}
		return &Result{}, nil
	case plan.ShowMappings, *plan.ShowMappings:
		var names []string
		for _, m := range e.cfg.Catalog.Mappings() {
			names = append(names, m.Name)
		}
		sort.Strings(names)
		var rows []byte
		for _, n := range names {
			rows = appendValue(rows, expr.StringValue(n))
		}
		return &Result{Columns: []plan.Column{{Name: "name", Type: expr.Varchar}}, Rows: rows, Count: len(names), UpdateCount: -1}, nil
	}
	return nil, plan.Errorf("unsupported statement %T", n)
}

// AddIndex creates an index (IMap.addIndex): it records the definition in
// the catalog and builds it.
func (e *Engine) AddIndex(info plan.IndexInfo) error {
	if info.Name == "" {
		info.Name = info.Map + "_" + strings.NewReplacer(".", "_", "[", "_", "]", "_").Replace(info.Attribute)
	}
	_, err := e.ddl(&plan.CreateIndex{Index: info, IfNotExists: true})
	return err
}

// WriteKind is what a DML statement does to one entry.
type WriteKind uint8

// Write kinds.
const (
	// WriteSet stores the value whatever was there (SINK INTO).
	WriteSet WriteKind = iota + 1
	// WriteInsert stores the value only if the key is absent (INSERT).
	WriteInsert
	// WriteReplace stores the value only if the key is present (UPDATE).
	WriteReplace
	// WriteDelete removes the entry (DELETE).
	WriteDelete
)

// Write is one entry a DML statement changes.
type Write struct {
	Kind       WriteKind
	Map        string
	Key, Value []byte
}

// Writer carries out DML writes. A member implements it with its
// ordinary map write path, which sends each key to the partition's owner
// (this member or another) and waits for the backups, so that DML is as
// durable as a put; changed reports whether the entry was stored,
// replaced or deleted. It is safe for concurrent use.
type Writer interface {
	Write(ctx context.Context, w Write) (changed bool, err error)
}

// localWriter writes to this member's stores directly: the Writer of an
// engine that runs without a cluster (one member, no backups).
type localWriter struct{ e *Engine }

func (l localWriter) Write(_ context.Context, w Write) (bool, error) {
	st, err := l.e.cfg.Maps.Get(w.Map)
	if err != nil {
		return false, err
	}
	pid := serialization.Data(w.Key).PartitionID(int32(st.PartitionCount()))
	t := l.e.cfg.Table.Load()
	if t == nil {
		return false, fmt.Errorf("%w: no partition table", ErrUnavailable)
	}
	if o, ok := t.Owner(pid); !ok || o.UUID != l.e.cfg.Self {
		return false, fmt.Errorf("%w: partition %d belongs to another member", ErrUnavailable, pid)
	}
	switch w.Kind {
	case WriteSet:
		return true, st.Set(pid, w.Key, w.Value, store.Expiry{})
	case WriteInsert:
		_, stored, err := st.PutIfAbsent(pid, w.Key, w.Value, store.Expiry{})
		return stored, err
	case WriteReplace:
		_, replaced, err := st.Replace(pid, w.Key, w.Value)
		return replaced, err
	case WriteDelete:
		return st.Delete(pid, w.Key)
	}
	return false, fmt.Errorf("exec: unknown write kind %d", w.Kind)
}

// dmlParallelism bounds the writes of one statement in flight: enough to
// hide the round trips to other members, few enough not to flood them.
const dmlParallelism = 32

// writeAll carries out writes concurrently and returns how many changed an
// entry. The first error stops it (writes already made stay made, as with
// a client's puts). A WriteInsert that finds its key present is an error.
func (e *Engine) writeAll(ctx context.Context, mapping string, writes []Write) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		changed atomic.Int64
		mu      sync.Mutex
		first   error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	next := make(chan Write)
	for range min(dmlParallelism, len(writes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				ok, err := e.writer.Write(ctx, w)
				switch {
				case err != nil:
					fail(err)
				case ok:
					changed.Add(1)
				case w.Kind == WriteInsert:
					fail(plan.Errorf("duplicate key in INSERT into %s (use SINK INTO to overwrite)", mapping))
				}
			}
		}()
	}
feed:
	for _, w := range writes {
		select {
		case next <- w:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return changed.Load(), first
}

// collect runs a plan node to completion and returns its rows (cloned),
// starting again when its partitions moved (as Execute does).
func (e *Engine) collect(ctx context.Context, n plan.Node, params []expr.Value, opts Options) ([][]expr.Value, error) {
	var rows [][]expr.Value
	err := e.whileMoving(ctx, opts, func(opts Options) error {
		var err error
		rows, err = e.collectOnce(ctx, n, params, opts)
		return err
	})
	return rows, err
}

func (e *Engine) collectOnce(ctx context.Context, n plan.Node, params []expr.Value, opts Options) ([][]expr.Value, error) {
	qctx, stop := context.WithCancelCause(ctx)
	cancel := func() { stop(nil) }
	if opts.Timeout > 0 {
		var cancelT context.CancelFunc
		qctx, cancelT = context.WithTimeout(qctx, opts.Timeout)
		cancel = func() { cancelT(); stop(nil) }
	}
	defer cancel()
	// The rows are collected before any write, so the breaker may refuse
	// or stop the statement as any query; once they are collected, it
	// only writes.
	mem, err := e.openAccount(qctx, e.queryID(ctx), 0, admission(n), stop)
	if err != nil {
		return nil, err
	}
	q := &query{e: e, ctx: qctx, cancel: cancel, params: params, now: e.cfg.Clock(), mem: mem, ops: memGrant{mem: mem, what: "statement rows"}}
	defer mem.Close()
	defer q.release()
	rows, err := q.collectRows(n)
	if err != nil && qctx.Err() != nil {
		return nil, stopCause(qctx)
	}
	return rows, err
}

// collectRows runs a plan node and returns its rows, cloned.
func (q *query) collectRows(n plan.Node) ([][]expr.Value, error) {
	it, err := q.build(n)
	if err != nil {
		return nil, err
	}
	var rows [][]expr.Value
	for {
		r, err := it.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			return rows, nil
		}
		c := make([]expr.Value, len(r))
		for i, v := range r {
			c[i] = v.Clone()
		}
		if err := q.ops.grow(rowBytes(c)); err != nil {
			return nil, err
		}
		rows = append(rows, c)
	}
}

// dml runs INSERT, SINK, UPDATE and DELETE and returns the rows changed.
func (e *Engine) dml(ctx context.Context, n plan.Node, params []expr.Value, opts Options) (int64, error) {
	switch x := n.(type) {
	case *plan.Insert:
		rows, err := e.collect(ctx, x.Source, params, opts)
		if err != nil {
			return 0, err
		}
		kind := WriteInsert
		if x.Overwrite {
			kind = WriteSet
		}
		writes := make([]Write, 0, len(rows))
		for _, r := range rows {
			key, value, err := e.encodeRow(x.Mapping, x.Columns, r, nil)
			if err != nil {
				return 0, err
			}
			writes = append(writes, Write{Kind: kind, Map: x.Mapping.MapName, Key: key, Value: value})
		}
		return e.writeAll(ctx, x.Mapping.Name, writes)
	case *plan.Update:
		rows, err := e.collect(ctx, &plan.Gather{Frag: plan.ScanFragment(x.Scan)}, params, opts)
		if err != nil {
			return 0, err
		}
		writes := make([]Write, 0, len(rows))
		for _, r := range rows {
			_, value, err := e.encodeRow(x.Mapping, x.Set, r[2:], r[1].B)
			if err != nil {
				return 0, err
			}
			writes = append(writes, Write{Kind: WriteReplace, Map: x.Mapping.MapName, Key: r[0].B, Value: value})
		}
		return e.writeAll(ctx, x.Mapping.Name, writes)
	case *plan.Delete:
		rows, err := e.collect(ctx, &plan.Gather{Frag: plan.ScanFragment(x.Scan)}, params, opts)
		if err != nil {
			return 0, err
		}
		writes := make([]Write, 0, len(rows))
		for _, r := range rows {
			writes = append(writes, Write{Kind: WriteDelete, Map: x.Mapping.MapName, Key: r[0].B})
		}
		return e.writeAll(ctx, x.Mapping.Name, writes)
	}
	return 0, plan.Errorf("unsupported statement %T", n)
}

// goValue converts a value to the Go value serialization writes for a
// scalar of type t.
func goValue(v expr.Value, t expr.Type) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if t != expr.Unknown && t != expr.Object && v.T != t {
		c, err := expr.Cast(v, t)
		if err != nil {
			return nil, err
		}
		v = c
	}
	switch v.T {
	case expr.Boolean:
		return v.I != 0, nil
	case expr.TinyInt:
		return int8(v.I), nil
	case expr.SmallInt:
		return int16(v.I), nil
	case expr.Integer:
		return int32(v.I), nil
	case expr.BigInt:
		return v.I, nil
	case expr.Real:
		return float32(v.F), nil
	case expr.Double, expr.Decimal:
		return v.F, nil
	case expr.Varchar:
		return string(v.B), nil
	case expr.JSON:
		return serialization.JSON(v.B), nil
	}
	return nil, fmt.Errorf("cannot store a %s value", v.T)
}

var compactKinds = map[expr.Type]serialization.FieldKind{
	expr.Boolean: serialization.KindBoolean, expr.TinyInt: serialization.KindInt8, expr.SmallInt: serialization.KindInt16,
	expr.Integer: serialization.KindInt32, expr.BigInt: serialization.KindInt64, expr.Real: serialization.KindFloat32,
	expr.Double: serialization.KindFloat64, expr.Varchar: serialization.KindString, expr.Decimal: serialization.KindFloat64,
	expr.Date: serialization.KindDate, expr.Time: serialization.KindTime, expr.Timestamp: serialization.KindTimestamp,
	expr.TimestampTZ: serialization.KindTimestampWithTimezone,
}

var nullableKinds = map[serialization.FieldKind]serialization.FieldKind{
	serialization.KindBoolean: serialization.KindNullableBoolean, serialization.KindInt8: serialization.KindNullableInt8,
	serialization.KindInt16: serialization.KindNullableInt16, serialization.KindInt32: serialization.KindNullableInt32,
	serialization.KindInt64: serialization.KindNullableInt64, serialization.KindFloat32: serialization.KindNullableFloat32,
	serialization.KindFloat64: serialization.KindNullableFloat64,
}

// encodeRow builds the key and value Data of a row written through a
// mapping: cols name the row's columns. With old set (UPDATE) the value
// starts from the old value and only cols change.
func (e *Engine) encodeRow(m *plan.Mapping, cols []plan.MappingColumn, row []expr.Value, old []byte) (key, value []byte, err error) {
	ser := e.cfg.Serialization
	fields := map[string]expr.Value{}
	var keyVal, thisVal *expr.Value
	for i, c := range cols {
		switch {
		case c.Path == "__key":
			keyVal = &row[i]
		case c.Path == "this":
			thisVal = &row[i]
		case strings.HasPrefix(c.Path, "__key."):
			return nil, nil, plan.Errorf("writing key fields (%s) is not supported; write __key", c.Name)
		default:
			fields[c.Path] = row[i]
		}
	}
	colType := func(path string) expr.Type {
		for _, c := range m.Columns {
			if c.Path == path {
				return c.Type
			}
		}
		return expr.Unknown
	}
	if old == nil {
		if keyVal == nil || keyVal.IsNull() {
			return nil, nil, plan.Errorf("INSERT into %s needs a non-NULL __key", m.Name)
		}
		kt := colType("__key")
		if kt == expr.Object {
			if keyVal.T != expr.Object {
				return nil, nil, plan.Errorf("mapping %s: keys of format %s can only be copied, not built from SQL values", m.Name, m.KeyFormat)
			}
			key = keyVal.B
		} else {
			gv, err := goValue(*keyVal, kt)
			if err != nil {
				return nil, nil, plan.Errorf("__key: %v", err)
			}
			if key, err = ser.ToData(gv); err != nil {
				return nil, nil, err
			}
		}
	}
	switch m.ValueFormat {
	case "compact":
		value, err = e.compactValue(m, fields, colType, old)
	case "json-flat":
		obj := map[string]any{}
		if old != nil {
			if d := serialization.Data(old); len(d) >= 12 {
				_ = json.Unmarshal(d.Payload()[4:], &obj)
			}
		}
		for path, v := range fields {
			if v.IsNull() {
				obj[path] = nil
				continue
			}
			if t := colType(path); t.IsTemporal() {
				// JSON has no temporal types: ISO-8601 text, which
				// reads back through the column's type.
				c, err := expr.Cast(v, t)
				if err != nil {
					return nil, nil, plan.Errorf("%s: %v", path, err)
				}
				obj[path] = c.String()
				continue
			}
			gv, err := goValue(v, colType(path))
			if err != nil {
				return nil, nil, plan.Errorf("%s: %v", path, err)
			}
			obj[path] = gv
		}
		var b []byte
		if b, err = json.Marshal(obj); err == nil {
			value, err = ser.ToData(serialization.JSON(b))
		}
	case "json":
		if thisVal == nil || thisVal.IsNull() {
			return nil, nil, plan.Errorf("writing to %s needs a non-NULL this", m.Name)
		}
		doc, ok := expr.JSONDocument(*thisVal)
		if !ok {
			return nil, nil, plan.Errorf("this of %s must be JSON", m.Name)
		}
		value, err = ser.ToData(serialization.JSON(doc))
	case "portable", "java", "identified":
		if thisVal != nil && thisVal.T == expr.Object && len(fields) == 0 {
			return key, thisVal.B, nil
		}
		if m.ValueFormat == "portable" {
			value, err = e.portableValue(m, fields, old)
		} else {
			value, err = e.identifiedValue(m, fields, old)
		}
	default:
		if thisVal == nil || thisVal.IsNull() {
			return nil, nil, plan.Errorf("writing to %s needs a non-NULL this", m.Name)
		}
		gv, gerr := goValue(*thisVal, colType("this"))
		if gerr != nil {
			return nil, nil, plan.Errorf("this: %v", gerr)
		}
		value, err = ser.ToData(gv)
	}
	if err != nil {
		return nil, nil, plan.Errorf("%v", err)
	}
	return key, value, nil
}

// compactValue writes a Compact value whose schema follows the mapping's
// columns (type name valueCompactTypeName); on UPDATE the old value's
// fields are kept.
func (e *Engine) compactValue(m *plan.Mapping, fields map[string]expr.Value, colType func(string) expr.Type, old []byte) ([]byte, error) {
	ser := e.cfg.Serialization
	b := serialization.NewCompactRecordBuilder(m.Options["valueCompactTypeName"])
	if old != nil {
		rec, err := serialization.ReadCompactRecord(old, ser.Schemas())
		if err != nil {
			return nil, err
		}
		for _, f := range rec.Schema().Fields {
			if nv, ok := fields[f.Name]; ok {
				gv, err := compactGo(nv, f.Kind)
				if err != nil {
					return nil, plan.Errorf("%s: %v", f.Name, err)
				}
				b.Set(f.Name, f.Kind, gv)
				delete(fields, f.Name)
				continue
			}
			v, err := rec.Get(f.Name)
			if err != nil {
				return nil, err
			}
			b.Set(f.Name, f.Kind, v)
		}
		for name := range fields {
			return nil, plan.Errorf("column %s is not a field of the stored value", name)
		}
	} else {
		for _, c := range m.Columns {
			if c.Path == "__key" || c.Path == "this" || strings.HasPrefix(c.Path, "__key.") || strings.Contains(c.Path, ".") {
				continue
			}
			kind, ok := compactKinds[c.Type]
			if !ok {
				return nil, plan.Errorf("column %s: %s cannot be written to a Compact value", c.Name, c.Type)
			}
			// SQL columns are nullable: primitives use the nullable
			// kinds, so every row shares one schema.
			if nk, ok := nullableKinds[kind]; ok {
				kind = nk
			}
			v := fields[c.Path]
			gv, err := compactGo(v, kind)
			if err != nil {
				return nil, plan.Errorf("%s: %v", c.Name, err)
			}
			b.Set(c.Path, kind, gv)
		}
	}
	rec, err := b.Build()
	if err != nil {
		return nil, err
	}
	return ser.ToData(rec)
}

// portableValue writes a Portable value of the mapping's class (from the
// class definitions the member knows); on UPDATE the old value's fields
// are kept.
func (e *Engine) portableValue(m *plan.Mapping, fields map[string]expr.Value, old []byte) ([]byte, error) {
	ser := e.cfg.Serialization
	var cd *serialization.ClassDefinition
	var rec serialization.PortableRecord
	if old != nil {
		var err error
		if rec, err = serialization.ReadPortableRecord(old, ser.ClassRegistry()); err != nil {
			return nil, err
		}
		if cd, err = rec.ClassDefinition(); err != nil {
			return nil, err
		}
	} else {
		fid, err1 := intOption(m, "valuePortableFactoryId")
		cid, err2 := intOption(m, "valuePortableClassId")
		if err1 != nil || err2 != nil {
			return nil, plan.Errorf("mapping %s needs valuePortableFactoryId and valuePortableClassId", m.Name)
		}
		ver := int32(0)
		if v, ok := m.Options["valuePortableClassVersion"]; ok {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return nil, plan.Errorf("mapping %s: valuePortableClassVersion must be an integer", m.Name)
			}
			ver = int32(n)
		}
		var ok bool
		if cd, ok = ser.ClassRegistry().Get(fid, cid, ver); !ok {
			return nil, plan.Errorf("mapping %s: the class definition of portable %d/%d version %d is not known to the cluster; write one value with a client first", m.Name, fid, cid, ver)
		}
	}
	b := serialization.NewPortableRecordBuilder(cd)
	for _, f := range cd.Fields {
		if nv, ok := fields[f.Name]; ok {
			gv, err := compactGo(nv, f.Kind)
			if err != nil {
				return nil, plan.Errorf("%s: %v", f.Name, err)
			}
			b.Set(f.Name, gv)
			delete(fields, f.Name)
		} else if old != nil {
			v, err := rec.Get(f.Name)
			if err != nil {
				return nil, err
			}
			b.Set(f.Name, v)
		} else {
			b.Set(f.Name, zeroOf(f.Kind))
		}
	}
	for name := range fields {
		return nil, plan.Errorf("column %s is not a field of portable %d/%d", name, cd.FactoryID, cd.ClassID)
	}
	out, err := b.Build()
	if err != nil {
		return nil, err
	}
	return ser.ToData(out)
}

// identifiedValue writes an IdentifiedDataSerializable value through the
// layout of the mapping's class (INSERT: 'valueFormat'='identified' with
// valueIdentifiedFactoryId and valueIdentifiedClassId) or of the old value
// (UPDATE).
func (e *Engine) identifiedValue(m *plan.Mapping, fields map[string]expr.Value, old []byte) ([]byte, error) {
	ser := e.cfg.Serialization
	var layout *serialization.Layout
	var rec serialization.IdentifiedRecord
	if old != nil {
		var err error
		if rec, err = serialization.ReadIdentifiedRecord(old, ser); err != nil {
			return nil, err
		}
		layout = rec.Layout()
	} else {
		fid, err1 := intOption(m, "valueIdentifiedFactoryId")
		cid, err2 := intOption(m, "valueIdentifiedClassId")
		if err1 != nil || err2 != nil {
			return nil, plan.Errorf("mapping %s: INSERT of IdentifiedDataSerializable values needs 'valueFormat'='identified' with valueIdentifiedFactoryId and valueIdentifiedClassId", m.Name)
		}
		var ok bool
		if layout, ok = ser.LayoutRegistry().Get(fid, cid); !ok {
			return nil, plan.Errorf("mapping %s: no layout is registered for %d/%d (Client.RegisterLayouts)", m.Name, fid, cid)
		}
	}
	b := serialization.NewIdentifiedRecordBuilder(layout, ser.LayoutRegistry())
	for _, f := range layout.Fields {
		if nv, ok := fields[f.Name]; ok {
			k := f.Op.Kind()
			if k == serialization.KindNotAvailable {
				return nil, plan.Errorf("%s: nested objects cannot be written from SQL", f.Name)
			}
			gv, err := compactGo(nv, k)
			if err != nil {
				return nil, plan.Errorf("%s: %v", f.Name, err)
			}
			b.Set(f.Name, gv)
			delete(fields, f.Name)
		} else if old != nil {
			v, err := rec.Get(f.Name)
			if err != nil {
				return nil, err
			}
			b.Set(f.Name, v)
		} else {
			b.Set(f.Name, zeroOf(f.Op.Kind()))
		}
	}
	for name := range fields {
		return nil, plan.Errorf("column %s is not a field of %d/%d", name, layout.FactoryID, layout.ClassID)
	}
	out, err := b.Build()
	if err != nil {
		return nil, err
	}
	return ser.ToData(out)
}

// zeroOf is the value of a field an INSERT does not set: zero for
// primitives (which cannot be null in Portable and IDS), null otherwise.
func zeroOf(k serialization.FieldKind) any {
	switch k {
	case serialization.KindBoolean:
		return false
	case serialization.KindInt8:
		return int8(0)
	case serialization.KindChar:
		return serialization.Char(0)
	case serialization.KindInt16:
		return int16(0)
	case serialization.KindInt32:
		return int32(0)
	case serialization.KindInt64:
		return int64(0)
	case serialization.KindFloat32:
		return float32(0)
	case serialization.KindFloat64:
		return float64(0)
	}
	return nil
}

// intOption reads an integer mapping option.
func intOption(m *plan.Mapping, key string) (int32, error) {
	v, ok := m.Options[key]
	if !ok {
		return 0, fmt.Errorf("missing %s", key)
	}
	n, err := strconv.ParseInt(v, 10, 32)
	return int32(n), err
}

func compactGo(v expr.Value, k serialization.FieldKind) (any, error) {
	if v.IsNull() {
		switch k {
		case serialization.KindString, serialization.KindNullableBoolean, serialization.KindNullableInt8,
			serialization.KindNullableInt16, serialization.KindNullableInt32, serialization.KindNullableInt64,
			serialization.KindNullableFloat32, serialization.KindNullableFloat64,
			serialization.KindDate, serialization.KindTime, serialization.KindTimestamp, serialization.KindTimestampWithTimezone:
			return nil, nil
		}
		return nil, fmt.Errorf("NULL cannot be stored in a %s field", k)
	}
	t := map[serialization.FieldKind]expr.Type{
		serialization.KindBoolean: expr.Boolean, serialization.KindNullableBoolean: expr.Boolean,
		serialization.KindInt8: expr.TinyInt, serialization.KindNullableInt8: expr.TinyInt,
		serialization.KindInt16: expr.SmallInt, serialization.KindNullableInt16: expr.SmallInt,
		serialization.KindInt32: expr.Integer, serialization.KindNullableInt32: expr.Integer,
		serialization.KindInt64: expr.BigInt, serialization.KindNullableInt64: expr.BigInt,
		serialization.KindFloat32: expr.Real, serialization.KindNullableFloat32: expr.Real,
		serialization.KindFloat64: expr.Double, serialization.KindNullableFloat64: expr.Double,
		serialization.KindString: expr.Varchar,
		serialization.KindDate:   expr.Date, serialization.KindTime: expr.Time,
		serialization.KindTimestamp: expr.Timestamp, serialization.KindTimestampWithTimezone: expr.TimestampTZ,
	}[k]
	if t == expr.Unknown {
		return nil, fmt.Errorf("fields of kind %s cannot be written from SQL", k)
	}
	if t.IsTemporal() {
		c, err := expr.Cast(v, t)
		if err != nil {
			return nil, err
		}
		return temporalGo(c), nil
	}
	return goValue(v, t)
}

// temporalGo converts a DATE, TIME, TIMESTAMP or TIMESTAMP WITH TIME ZONE
// value to the serialization type of its Compact field (time zones are
// UTC).
func temporalGo(v expr.Value) any {
	date := func(t time.Time) serialization.LocalDate {
		return serialization.LocalDate{Year: int32(t.Year()), Month: int8(t.Month()), Day: int8(t.Day())}
	}
	clock := func(t time.Time) serialization.LocalTime {
		return serialization.LocalTime{Hour: int8(t.Hour()), Minute: int8(t.Minute()), Second: int8(t.Second()), Nanosecond: int32(t.Nanosecond())}
	}
	switch v.T {
	case expr.Date:
		return date(time.Unix(v.I*86400, 0).UTC())
	case expr.Time:
		return clock(time.Unix(0, v.I).UTC())
	case expr.Timestamp:
		t := time.UnixMicro(v.I).UTC()
		return serialization.LocalDateTime{Date: date(t), Time: clock(t)}
	}
	t := time.UnixMicro(v.I).UTC()
	return serialization.OffsetDateTime{LocalDateTime: serialization.LocalDateTime{Date: date(t), Time: clock(t)}}
}
