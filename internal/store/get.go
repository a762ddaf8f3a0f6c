package store

// Get returns a copy of key's value; ok is false if the key is absent or
// expired (an expired entry is removed, emitting EXPIRED). A hit updates
// the entry's last access time and hits.
func (m *Map) Get(pid int32, key []byte) (value []byte, ok bool, err error) {
	return m.getAppend("get", nil, pid, key)
}

// GetAppend is Get appending the value to dst; it does not allocate when
// dst has room.
func (m *Map) GetAppend(dst []byte, pid int32, key []byte) ([]byte, bool, error) {
	return m.getAppend("get", dst, pid, key)
}

func (m *Map) getAppend(op string, dst []byte, pid int32, key []byte) ([]byte, bool, error) {
	if err := m.checkKey(op, pid, key); err != nil {
		return dst, false, err
	}
	p := m.partition(pid)
	if p == nil {
		return dst, false, nil
	}
	h := m.hash(key)
	p.mu.Lock()
	now := m.now()
	pos := p.lookup(m.obs(), h, key, now)
	if pos < 0 {
		p.unlock()
		return dst, false, nil
	}
	b, r := p.recOf(uint32(p.slots[pos]))
	r.touch(b, now.stamp)
	p.hits++
	p.lastAccess = now.ms
	dst = append(dst, r.value(b)...)
	p.unlock()
	return dst, true, nil
}

// ContainsKey reports whether key is present and not expired. Like a read it
// updates the entry's last access time and hits (so it extends max-idle).
func (m *Map) ContainsKey(pid int32, key []byte) (bool, error) {
	if err := m.checkKey("containsKey", pid, key); err != nil {
		return false, err
	}
	p := m.partition(pid)
	if p == nil {
		return false, nil
	}
	h := m.hash(key)
	p.mu.Lock()
	now := m.now()
	pos := p.lookup(m.obs(), h, key, now)
	if pos >= 0 {
		b, r := p.recOf(uint32(p.slots[pos]))
		r.touch(b, now.stamp)
		p.hits++
		p.lastAccess = now.ms
	}
	p.unlock()
	return pos >= 0, nil
}

// GetEntryView returns a copy of key's entry with its metadata, without
// counting as an access.
func (m *Map) GetEntryView(pid int32, key []byte) (EntryView, bool, error) {
	if err := m.checkKey("getEntryView", pid, key); err != nil {
		return EntryView{}, false, err
	}
	p := m.partition(pid)
	if p == nil {
		return EntryView{}, false, nil
	}
	h := m.hash(key)
	p.mu.Lock()
	pos := p.lookup(m.obs(), h, key, m.now())
	if pos < 0 {
		p.unlock()
		return EntryView{}, false, nil
	}
	b, r := p.recOf(uint32(p.slots[pos]))
	v := m.view(b, &r)
	buf := make([]byte, 0, r.kLen+r.vLen)
	buf = append(append(buf, v.Key...), v.Value...)
	v.Key, v.Value = buf[:r.kLen:r.kLen], buf[r.kLen:]
	p.unlock()
	return v, true, nil
}

// GetAll looks up keys of one partition under a single lock acquisition.
// fn is called once per present key, in keys order, with the key's index in
// keys and a view of the value (valid only during the call; fn runs with the
// partition locked and must not call into the Map). Every key is validated
// before any lookup. Hits count as accesses, like Get.
func (m *Map) GetAll(pid int32, keys [][]byte, fn func(i int, value []byte)) error {
	for _, k := range keys {
		if err := m.checkKey("getAll", pid, k); err != nil {
			return err
		}
	}
	p := m.partition(pid)
	if p == nil || len(keys) == 0 {
		return nil
	}
	p.mu.Lock()
	defer p.unlock()
	obs := m.obs()
	now := m.now()
	for i, k := range keys {
		pos := p.lookup(obs, m.hash(k), k, now)
		if pos < 0 {
			continue
		}
		b, r := p.recOf(uint32(p.slots[pos]))
		r.touch(b, now.stamp)
		p.hits++
		p.lastAccess = now.ms
		fn(i, r.value(b))
	}
	return nil
}

// PartitionSize returns the number of entries in a partition, including
// expired entries not yet removed by an access or a sweep.
func (m *Map) PartitionSize(pid int32) (int, error) {
	if err := m.checkPartition("size", pid); err != nil {
		return 0, err
	}
	p := m.partition(pid)
	if p == nil {
		return 0, nil
	}
	p.mu.Lock()
	n := p.count
	p.mu.Unlock()
	return n, nil
}

// Size returns the number of entries in owned partitions (like IMap.size on
// one member; expired entries not yet removed are counted).
func (m *Map) Size() int64 { return m.owned.count.Load() }
