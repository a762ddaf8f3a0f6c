package store

import "time"

type writeMode uint8

const (
	wUpsert    writeMode = iota // put / set
	wIfAbsent                   // putIfAbsent
	wIfPresent                  // replace
	wIfSame                     // replace(key, expected, value)
	wIfVersion                  // check-and-put on the entry version
)

type writeArgs struct {
	op         string
	mode       writeMode
	pid        int32
	key, value []byte
	exp        Expiry
	keepExpiry bool   // keep the entry's own expiry (replace)
	expected   []byte // wIfSame
	version    uint32 // wIfVersion; 0 = must be absent
	wantOld    bool   // append the current value to dst
}

type writeResult struct {
	dst     []byte
	existed bool // the key was present (and not expired) before
	applied bool
	version uint32 // version after the write
	err     error
}

// Put stores value under key and returns a copy of the previous value
// (replaced reports whether there was one). exp sets the entry's own TTL
// and max-idle (the zero Expiry: map defaults); a write restarts the TTL.
func (m *Map) Put(pid int32, key, value []byte, exp Expiry) (old []byte, replaced bool, err error) {
	r := m.write(&writeArgs{op: "put", pid: pid, key: key, value: value, exp: exp, wantOld: true}, nil)
	return r.dst, r.existed, r.err
}

// PutAppend is Put appending the previous value to dst instead of
// allocating it.
func (m *Map) PutAppend(dst []byte, pid int32, key, value []byte, exp Expiry) ([]byte, bool, error) {
	r := m.write(&writeArgs{op: "put", pid: pid, key: key, value: value, exp: exp, wantOld: true}, dst)
	return r.dst, r.existed, r.err
}

// Set stores value under key without returning the previous value.
func (m *Map) Set(pid int32, key, value []byte, exp Expiry) error {
	return m.write(&writeArgs{op: "set", pid: pid, key: key, value: value, exp: exp}, nil).err
}

// PutIfAbsent stores value only if key is absent. If key is present it
// returns a copy of the current value and stored == false.
func (m *Map) PutIfAbsent(pid int32, key, value []byte, exp Expiry) (current []byte, stored bool, err error) {
	r := m.write(&writeArgs{op: "putIfAbsent", mode: wIfAbsent, pid: pid, key: key, value: value, exp: exp, wantOld: true}, nil)
	return r.dst, r.applied, r.err
}

// Replace stores value only if key is present, returning a copy of the
// previous value. The entry keeps its own expiry settings; its TTL restarts.
func (m *Map) Replace(pid int32, key, value []byte) (old []byte, replaced bool, err error) {
	r := m.write(&writeArgs{op: "replace", mode: wIfPresent, pid: pid, key: key, value: value, keepExpiry: true, wantOld: true}, nil)
	return r.dst, r.applied, r.err
}

// ReplaceIfSame stores value only if key's current value equals expected
// byte for byte. The entry keeps its own expiry settings.
func (m *Map) ReplaceIfSame(pid int32, key, expected, value []byte) (bool, error) {
	r := m.write(&writeArgs{op: "replaceIfSame", mode: wIfSame, pid: pid, key: key, value: value, expected: expected, keepExpiry: true}, nil)
	return r.applied, r.err
}

// SetIfVersion is the check-and-put of optimistic transactions: it stores
// value only if the entry's current version is expected, where expected 0
// means "absent". It returns the entry's version after the call (the new
// version if stored, else the current one, 0 if absent).
func (m *Map) SetIfVersion(pid int32, key, value []byte, expected uint32, exp Expiry) (version uint32, stored bool, err error) {
	r := m.write(&writeArgs{op: "setIfVersion", mode: wIfVersion, pid: pid, key: key, value: value, exp: exp, version: expected}, nil)
	return r.version, r.applied, r.err
}

// PutAll sets entries of one partition under a single lock acquisition
// (events and eviction as for Set, in order). All keys and values are
// validated first, so bad input changes nothing; only ErrPartitionFull can
// stop the batch part way.
func (m *Map) PutAll(pid int32, entries []Entry, exp Expiry) error {
	const op = "putAll"
	for _, e := range entries {
		if err := m.checkKey(op, pid, e.Key); err != nil {
			return err
		}
		if err := m.checkValue(op, e.Value); err != nil {
			return err
		}
	}
	var nm meta
	if !nm.setExpiry(exp) {
		return opErr(op, ErrInvalidExpiry)
	}
	if len(entries) == 0 {
		return nil
	}
	p := m.partitionForWrite(pid)
	p.mu.Lock()
	defer p.unlock()
	obs := m.obs()
	now := m.now()
	for _, e := range entries {
		a := writeArgs{op: op, pid: pid, key: e.Key, value: e.Value, exp: exp}
		var res writeResult
		m.writeLocked(p, &a, nm, m.hash(e.Key), obs, now, &res)
		if res.err != nil {
			return res.err
		}
	}
	return nil
}

// SetTTL changes the TTL of a present entry without changing its value or
// version: ttl > 0 expires it ttl from now, Forever never (by TTL), 0 returns
// it to the map default (counted from its last write). It emits
// EXPIRY_CHANGED and reports whether the entry was present.
func (m *Map) SetTTL(pid int32, key []byte, ttl time.Duration) (bool, error) {
	const op = "setTtl"
	if err := m.checkKey(op, pid, key); err != nil {
		return false, err
	}
	present, code, ok := expiryCode(ttl)
	if !ok {
		return false, opErr(op, ErrInvalidExpiry)
	}
	p := m.partition(pid)
	if p == nil {
		return false, nil
	}
	h := m.hash(key)
	p.mu.Lock()
	defer p.unlock()
	obs := m.obs()
	now := m.now()
	pos := p.lookup(obs, h, key, now)
	if pos < 0 {
		return false, nil
	}
	b, r := p.recOf(uint32(p.slots[pos]))
	mt := r.meta(b)
	mt.flags &^= flagTTL
	mt.ttl = 0
	if present {
		mt.flags |= flagTTL
		mt.ttl = code
	}
	// Setting a TTL counts as a write, as in Hazelcast: the TTL counts
	// from now and reads back as it was set.
	mt.updated = now.stamp
	mt.knownTimes() // a record without statistics gains them with its TTL
	if err := p.update(obs, pos, r.value(b), &mt, EventExpiryChanged); err != nil {
		return false, opErr(op, err)
	}
	p.lastUpdate = now.ms
	return true, nil
}

func (m *Map) write(a *writeArgs, dst []byte) writeResult {
	res := writeResult{dst: dst}
	if res.err = m.checkKey(a.op, a.pid, a.key); res.err != nil {
		return res
	}
	if res.err = m.checkValue(a.op, a.value); res.err != nil {
		return res
	}
	if a.mode == wIfSame {
		if res.err = m.checkValue(a.op, a.expected); res.err != nil {
			return res
		}
	}
	var nm meta
	if !a.keepExpiry && !nm.setExpiry(a.exp) {
		res.err = opErr(a.op, ErrInvalidExpiry)
		return res
	}
	h := m.hash(a.key)
	p := m.partitionForWrite(a.pid)
	p.mu.Lock()
	m.writeLocked(p, a, nm, h, m.obs(), m.now(), &res)
	p.unlock()
	return res
}

// writeLocked is the write path with p.mu held. nm carries the new expiry
// settings.
func (m *Map) writeLocked(p *partition, a *writeArgs, nm meta, h uint32, obs Observer, now instant, res *writeResult) {
	pos := p.lookup(obs, h, a.key, now)
	res.existed = pos >= 0
	var b []byte
	var r rec
	if res.existed {
		b, r = p.recOf(uint32(p.slots[pos]))
		res.version = r.u32(b, offVersion)
	}
	switch a.mode {
	case wIfAbsent:
		if res.existed {
			if a.wantOld {
				res.dst = append(res.dst, r.value(b)...)
			}
			return
		}
	case wIfPresent:
		if !res.existed {
			return
		}
	case wIfSame:
		if !res.existed || string(r.value(b)) != string(a.expected) {
			return
		}
	case wIfVersion:
		if res.version != a.version {
			return
		}
	}
	var err error
	if res.existed {
		cur := r.meta(b)
		if a.wantOld {
			res.dst = append(res.dst, r.value(b)...)
		}
		if a.keepExpiry {
			nm.flags, nm.ttl, nm.maxIdle = cur.flags, cur.ttl, cur.maxIdle
		}
		nm.version = nextVersion(cur.version)
		nm.created = cur.created
		nm.hits = cur.hits
		nm.updated, nm.accessed = now.stamp, now.stamp
		err = p.update(obs, pos, a.value, &nm, EventUpdated)
	} else {
		nm.version = 1
		nm.created, nm.updated, nm.accessed = now.stamp, now.stamp, now.stamp
		err = p.insert(obs, h, a.key, a.value, &nm)
	}
	if err != nil {
		res.err = opErr(a.op, err)
		return
	}
	res.applied = true
	res.version = nm.version
	p.lastUpdate, p.lastAccess = now.ms, now.ms
	if m.evict && p.role == RoleOwner {
		m.evictFor(p, obs, h, a.key, now)
	}
}
