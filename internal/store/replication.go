package store

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Replication and migration. The owner streams a partition with
// ExportAppend (or Iterate, for a custom encoding) and the replica applies it
// with Import; single writes are forwarded as ApplyRecord / ApplyRemove built
// from the owner's Observer events. Replicas keep the owner's metadata
// (version, times, hits, per-entry TTL and max-idle) exactly.

// exportFormat is the first byte of every export chunk.
const exportFormat = 1

// ExportAppend appends to dst an export chunk holding the partition's
// entries from cursor on (0 for the beginning), stopping once the chunk has
// grown by maxBytes (maxBytes <= 0: the whole rest of the partition), and
// returns the next cursor (CursorDone at the end). Entries come in the
// Iterate order with the same guarantee; expired entries are left out. The
// chunk format is self-describing and versioned; only Import reads it.
//
// Chunk: byte 1 (format), then per entry: uvarint key length, key, uvarint
// value length, value, uvarint version, uvarint hits, varint creation, last
// update and last access time (Unix ms), byte flags (1: TTL, 2: max-idle),
// uvarint TTL seconds if flag 1, uvarint max-idle seconds if flag 2
// (0 seconds = Forever).
func (m *Map) ExportAppend(dst []byte, pid int32, cursor Cursor, maxBytes int) ([]byte, Cursor, error) {
	if err := m.checkPartition("export", pid); err != nil {
		return dst, CursorDone, err
	}
	start := len(dst)
	dst = append(dst, exportFormat)
	p := m.partition(pid)
	if p == nil || cursor >= CursorDone {
		return dst, CursorDone, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	next := p.iterate(uint64(cursor), 0, m.now(), func(v EntryView) bool {
		dst = appendRecord(dst, &v)
		return maxBytes <= 0 || len(dst)-start < maxBytes
	})
	return dst, Cursor(next), nil
}

func appendRecord(dst []byte, v *EntryView) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(v.Key)))
	dst = append(dst, v.Key...)
	dst = binary.AppendUvarint(dst, uint64(len(v.Value)))
	dst = append(dst, v.Value...)
	dst = binary.AppendUvarint(dst, uint64(v.Version))
	dst = binary.AppendUvarint(dst, uint64(v.Hits))
	dst = binary.AppendVarint(dst, v.CreationTime)
	dst = binary.AppendVarint(dst, v.LastUpdateTime)
	dst = binary.AppendVarint(dst, v.LastAccessTime)
	var mt meta
	mt.setExpiry(v.Expiry) // views come from stored records: always valid
	dst = append(dst, mt.flags>>1)
	if mt.flags&flagTTL != 0 {
		dst = binary.AppendUvarint(dst, uint64(mt.ttl))
	}
	if mt.flags&flagMaxIdle != 0 {
		dst = binary.AppendUvarint(dst, uint64(mt.maxIdle))
	}
	return dst
}

// decoded is one record read from an export chunk.
type decoded struct {
	key, value []byte
	mt         meta
}

// chunkReader decodes an export chunk without panicking on any input.
type chunkReader struct {
	b   []byte
	err error
}

func (r *chunkReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: bad %s", ErrCorrupt, what)
	}
}

func (r *chunkReader) uvarint(what string, limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > limit {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *chunkReader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *chunkReader) bytes(what string, limit int) []byte {
	n := r.uvarint(what+" length", uint64(limit))
	if r.err != nil {
		return nil
	}
	if n == 0 || uint64(len(r.b)) < n {
		r.fail(what)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *chunkReader) next(m *Map, d *decoded) bool {
	if r.err != nil || len(r.b) == 0 {
		return false
	}
	d.key = r.bytes("key", m.cfg.MaxKeySize)
	d.value = r.bytes("value", m.cfg.MaxValueSize)
	d.mt = meta{
		version: uint32(r.uvarint("version", math.MaxUint32)),
		hits:    uint32(r.uvarint("hits", math.MaxUint32)),
		created: secOf(r.varint("creation time")),
		updated: secOf(r.varint("update time")),
	}
	d.mt.accessed = secOf(r.varint("access time"))
	d.mt.knownTimes()
	if r.err != nil {
		return false
	}
	if len(r.b) == 0 || r.b[0] > 3 {
		r.fail("flags")
		return false
	}
	d.mt.flags = r.b[0] << 1
	r.b = r.b[1:]
	if d.mt.flags&flagTTL != 0 {
		d.mt.ttl = uint32(r.uvarint("ttl", math.MaxUint32))
	}
	if d.mt.flags&flagMaxIdle != 0 {
		d.mt.maxIdle = uint32(r.uvarint("max idle", math.MaxUint32))
	}
	return r.err == nil
}

func newChunkReader(chunk []byte) chunkReader {
	if len(chunk) == 0 || chunk[0] != exportFormat {
		return chunkReader{err: fmt.Errorf("%w: unknown format", ErrCorrupt)}
	}
	return chunkReader{b: chunk[1:]}
}

// CheckImport reads an export chunk as Import would (ErrCorrupt for a
// malformed chunk, ErrTooLarge-style failures for keys or values over this
// map's limits) and passes every record's key and value to check, stopping
// at its first error. It changes nothing: a member checks what another
// member sends before it imports it.
func (m *Map) CheckImport(chunk []byte, check func(key, value []byte) error) error {
	rd := newChunkReader(chunk)
	var d decoded
	for rd.next(m, &d) {
		if err := check(d.key, d.value); err != nil {
			return err
		}
	}
	if rd.err != nil {
		return opErr("import", rd.err)
	}
	return nil
}

// Import applies an export chunk to a partition: each record replaces any
// entry with the same key, with the exported metadata kept exactly (ADDED
// or UPDATED events, marked as a backup's whatever the partition's role: a
// copy that arrived from another member is not this member's change to
// replicate). The whole chunk is validated first: a malformed chunk
// (ErrCorrupt) or one with keys or values over this map's limits changes
// nothing. Import never evicts. It returns the number of records applied.
func (m *Map) Import(pid int32, chunk []byte) (int, error) {
	const op = "import"
	if err := m.checkPartition(op, pid); err != nil {
		return 0, err
	}
	rd := newChunkReader(chunk)
	var d decoded
	n := 0
	for rd.next(m, &d) {
		n++
	}
	if rd.err != nil {
		return 0, opErr(op, rd.err)
	}
	if n == 0 {
		return 0, nil
	}
	p := m.partitionForWrite(pid)
	p.mu.Lock()
	defer p.unlock()
	var obs Observer
	if o := m.obs(); o != nil {
		obs = copyObserver{o}
	}
	rd = newChunkReader(chunk)
	applied := 0
	for rd.next(m, &d) {
		if err := p.upsert(obs, m.hash(d.key), d.key, d.value, &d.mt); err != nil {
			return applied, opErr(op, err)
		}
		applied++
	}
	p.lastUpdate = m.now().ms
	return applied, nil
}

// copyObserver hands on the events of a copy Import applies as a backup's.
type copyObserver struct{ o Observer }

func (c copyObserver) OnEvent(e Event) {
	e.Backup = true
	c.o.OnEvent(e)
}

// ApplyRecord writes one replicated entry with exactly the given metadata
// (version, times, hits, Expiry; ExpirationTime is ignored), replacing any
// entry with the same key and emitting ADDED or UPDATED. It never evicts.
func (m *Map) ApplyRecord(pid int32, v EntryView) error {
	const op = "applyRecord"
	if err := m.checkKey(op, pid, v.Key); err != nil {
		return err
	}
	if err := m.checkValue(op, v.Value); err != nil {
		return err
	}
	mt := meta{
		version:  v.Version,
		hits:     v.Hits,
		created:  secOf(v.CreationTime),
		updated:  secOf(v.LastUpdateTime),
		accessed: secOf(v.LastAccessTime),
	}
	mt.knownTimes()
	if !mt.setExpiry(v.Expiry) {
		return opErr(op, ErrInvalidExpiry)
	}
	h := m.hash(v.Key)
	p := m.partitionForWrite(pid)
	p.mu.Lock()
	defer p.unlock()
	if err := p.upsert(m.obs(), h, v.Key, v.Value, &mt); err != nil {
		return opErr(op, err)
	}
	p.lastUpdate = m.now().ms
	return nil
}

// ApplyRemove removes one replicated key (whatever the owner's reason),
// emitting REMOVED. It reports whether the key was present.
func (m *Map) ApplyRemove(pid int32, key []byte) (bool, error) {
	const op = "applyRemove"
	if err := m.checkKey(op, pid, key); err != nil {
		return false, err
	}
	p := m.partition(pid)
	if p == nil {
		return false, nil
	}
	h := m.hash(key)
	p.mu.Lock()
	defer p.unlock()
	pos := p.find(h, key)
	if pos < 0 {
		return false, nil
	}
	p.removeAt(m.obs(), pos, EventRemoved)
	p.lastUpdate = m.now().ms
	return true, nil
}

// SetRole sets whether this member owns a partition or holds a backup of
// it; its entries and memory move between the owned and backup statistics.
// Partitions start as RoleOwner.
func (m *Map) SetRole(pid int32, role Role) error {
	if err := m.checkPartition("setRole", pid); err != nil {
		return err
	}
	if role > RoleBackup {
		return opErr("setRole", fmt.Errorf("%w: role %v", ErrInvalidConfig, role))
	}
	m.partitionForWrite(pid).setRole(role)
	return nil
}

// Role returns a partition's role.
func (m *Map) Role(pid int32) (Role, error) {
	if err := m.checkPartition("role", pid); err != nil {
		return RoleOwner, err
	}
	p := m.partition(pid)
	if p == nil {
		return RoleOwner, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.role, nil
}
