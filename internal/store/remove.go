package store

type removeMode uint8

const (
	rAny       removeMode = iota
	rIfSame               // remove(key, expected)
	rIfVersion            // check-and-remove on the entry version
)

type removeArgs struct {
	op       string
	mode     removeMode
	pid      int32
	key      []byte
	expected []byte
	version  uint32
	typ      EventType // EventRemoved or EventEvicted
	wantOld  bool
}

// Remove removes key and returns a copy of its value (removed reports
// whether it was present). Emits REMOVED.
func (m *Map) Remove(pid int32, key []byte) (old []byte, removed bool, err error) {
	return m.remove(&removeArgs{op: "remove", pid: pid, key: key, typ: EventRemoved, wantOld: true}, nil)
}

// RemoveAppend is Remove appending the old value to dst.
func (m *Map) RemoveAppend(dst []byte, pid int32, key []byte) ([]byte, bool, error) {
	return m.remove(&removeArgs{op: "remove", pid: pid, key: key, typ: EventRemoved, wantOld: true}, dst)
}

// Delete removes key without returning its value.
func (m *Map) Delete(pid int32, key []byte) (bool, error) {
	_, ok, err := m.remove(&removeArgs{op: "delete", pid: pid, key: key, typ: EventRemoved}, nil)
	return ok, err
}

// RemoveIfSame removes key only if its value equals expected byte for byte.
func (m *Map) RemoveIfSame(pid int32, key, expected []byte) (bool, error) {
	if err := m.checkValue("removeIfSame", expected); err != nil {
		return false, err
	}
	_, ok, err := m.remove(&removeArgs{op: "removeIfSame", mode: rIfSame, pid: pid, key: key, expected: expected, typ: EventRemoved}, nil)
	return ok, err
}

// RemoveIfVersion removes key only if its version is expected (non-zero).
func (m *Map) RemoveIfVersion(pid int32, key []byte, expected uint32) (bool, error) {
	_, ok, err := m.remove(&removeArgs{op: "removeIfVersion", mode: rIfVersion, pid: pid, key: key, version: expected, typ: EventRemoved}, nil)
	return ok, err
}

// Evict removes key like Delete but emits EVICTED instead of REMOVED and
// counts an eviction.
func (m *Map) Evict(pid int32, key []byte) (bool, error) {
	_, ok, err := m.remove(&removeArgs{op: "evict", pid: pid, key: key, typ: EventEvicted}, nil)
	return ok, err
}

func (m *Map) remove(a *removeArgs, dst []byte) ([]byte, bool, error) {
	if err := m.checkKey(a.op, a.pid, a.key); err != nil {
		return dst, false, err
	}
	p := m.partition(a.pid)
	if p == nil {
		return dst, false, nil
	}
	h := m.hash(a.key)
	p.mu.Lock()
	defer p.unlock()
	obs := m.obs()
	now := m.now()
	pos := p.lookup(obs, h, a.key, now)
	if pos < 0 {
		return dst, false, nil
	}
	b, r := p.recOf(uint32(p.slots[pos]))
	switch a.mode {
	case rIfSame:
		if string(r.value(b)) != string(a.expected) {
			return dst, false, nil
		}
	case rIfVersion:
		if r.u32(b, offVersion) != a.version {
			return dst, false, nil
		}
	}
	if a.wantOld {
		dst = append(dst, r.value(b)...)
	}
	p.removeAt(obs, pos, a.typ)
	if a.typ == EventEvicted {
		p.evictions++
	}
	p.lastUpdate = now.ms
	return dst, true, nil
}

// Clear removes every entry of a partition and frees its memory, emitting a
// single CLEARED event if there were any (no per-entry events). It returns
// how many entries were removed.
func (m *Map) Clear(pid int32) (int, error) {
	return m.empty("clear", pid, EventCleared)
}

// EvictAll evicts every entry of a partition at once, like Hazelcast's
// IMap.evictAll: one CLEARED event if there were entries (no per-entry
// events), and the entries count as evictions in Stats. It returns how many
// entries were evicted.
func (m *Map) EvictAll(pid int32) (int, error) {
	return m.empty("evictAll", pid, EventCleared)
}

// DropPartition empties a partition after it moved away or before a full
// re-sync, emitting a single DROPPED event if it held entries. The
// partition's role is kept.
func (m *Map) DropPartition(pid int32) error {
	_, err := m.empty("dropPartition", pid, EventDropped)
	return err
}

func (m *Map) empty(op string, pid int32, typ EventType) (int, error) {
	if err := m.checkPartition(op, pid); err != nil {
		return 0, err
	}
	p := m.partition(pid)
	if p == nil {
		return 0, nil
	}
	p.mu.Lock()
	defer p.unlock()
	n := p.count
	if obs := m.obs(); obs != nil && n > 0 {
		obs.OnEvent(Event{Type: typ, Partition: p.id, Backup: p.role == RoleBackup})
	}
	p.reset()
	p.dirty = true
	if typ == EventCleared {
		p.lastUpdate = m.now().ms
	}
	if op == "evictAll" {
		p.evictions += int64(n)
	}
	return n, nil
}
