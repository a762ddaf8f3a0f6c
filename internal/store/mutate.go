package store

import "sync"

// Mutation primitives. All run with p.mu held and mark the partition dirty;
// unlock then compacts, shrinks and publishes the accounting.

func (p *partition) unlock() {
	if p.dirty {
		p.dirty = false
		p.maintain()
	}
	p.mu.Unlock()
}

func (p *partition) emit(obs Observer, typ EventType, key, oldV, newV []byte, mt *meta) {
	obs.OnEvent(Event{
		Type:      typ,
		Partition: p.id,
		Backup:    p.role == RoleBackup,
		Key:       key,
		OldValue:  oldV,
		NewValue:  newV,
		Meta:      entryMeta(mt),
	})
}

// insert adds a record for a key that is not present.
func (p *partition) insert(obs Observer, h uint32, key, value []byte, mt *meta) error {
	size := recSize(len(key), len(value), mt.flags, p.m.stats)
	ref, ok := p.alloc(size)
	if !ok {
		return ErrPartitionFull
	}
	p.dirty = true
	encodeRec(p.space(ref, size), mt, key, value, p.m.stats)
	p.growForInsert()
	p.insertSlot(uint64(h)<<32 | uint64(ref))
	p.count++
	if p.m.metaCanExpire(mt) {
		p.expirable++
	}
	if obs != nil {
		b, r := p.recOf(ref)
		p.emit(obs, EventAdded, r.key(b), nil, r.value(b), mt)
	}
	return nil
}

// oldValues holds the old values of records updated in place while the
// observer hears them.
var oldValues = sync.Pool{New: func() any { return new([]byte) }}

// inPlaceMax is the largest value whose old bytes an update keeps aside
// for the observer to overwrite the record in place (a larger one is
// appended and leaves the old record as garbage).
const inPlaceMax = 64 << 10

// update replaces the record at slot pos with value and mt, emitting typ
// (EventUpdated or EventExpiryChanged). value may be a view of the current
// record. When the new record has the same layout it is overwritten in
// place, the observer hearing the old value from a copy set aside (up to
// inPlaceMax bytes); otherwise it is appended and the old
// one becomes garbage.
func (p *partition) update(obs Observer, pos int, value []byte, mt *meta, typ EventType) error {
	s := p.slots[pos]
	oldRef := uint32(s)
	b, r := p.recOf(oldRef)
	wasExpirable := p.m.canExpire(b, &r)
	p.dirty = true
	if r.vLen == len(value) && r.flags&flagsExpiry == mt.flags && (obs == nil || len(value) <= inPlaceMax) {
		var old *[]byte
		if obs != nil {
			old = oldValues.Get().(*[]byte)
			*old = append((*old)[:0], r.value(b)...)
		}
		putMeta(b[r.hdr:], mt, r.opt-r.hdr)
		copy(b[r.vOff():r.end()], value)
		if obs != nil {
			p.emit(obs, typ, r.key(b), *old, r.value(b), mt)
			oldValues.Put(old)
		}
	} else {
		size := recSize(r.kLen, len(value), mt.flags, p.m.stats)
		ref, ok := p.alloc(size)
		if !ok {
			return ErrPartitionFull
		}
		b, r = p.recOf(oldRef) // the open chunk may have moved
		encodeRec(p.space(ref, size), mt, r.key(b), value, p.m.stats)
		if obs != nil {
			nb, nr := p.recOf(ref)
			p.emit(obs, typ, nr.key(nb), r.value(b), nr.value(nb), mt)
		}
		p.slots[pos] = s&^0xFFFFFFFF | uint64(ref)
		p.kill(oldRef, r.size())
	}
	if now := p.m.metaCanExpire(mt); now != wasExpirable {
		if now {
			p.expirable++
		} else {
			p.expirable--
		}
	}
	return nil
}

// removeAt removes the record at slot pos, emitting typ.
func (p *partition) removeAt(obs Observer, pos int, typ EventType) {
	ref := uint32(p.slots[pos])
	b, r := p.recOf(ref)
	p.dirty = true
	if p.m.canExpire(b, &r) {
		p.expirable--
	}
	if obs != nil {
		mt := r.meta(b)
		p.emit(obs, typ, r.key(b), r.value(b), nil, &mt)
	}
	p.deleteSlot(pos)
	p.kill(ref, r.size())
	p.count--
}

// lookup finds key; an expired entry is removed (EXPIRED) and reported
// absent.
func (p *partition) lookup(obs Observer, h uint32, key []byte, now instant) int {
	pos := p.find(h, key)
	if pos < 0 {
		return -1
	}
	b, r := p.recOf(uint32(p.slots[pos]))
	if p.m.expired(b, &r, now.ms) {
		p.removeAt(obs, pos, EventExpired)
		p.expirations++
		return -1
	}
	return pos
}

// upsert writes a record with exactly the given metadata (replication).
func (p *partition) upsert(obs Observer, h uint32, key, value []byte, mt *meta) error {
	if pos := p.find(h, key); pos >= 0 {
		return p.update(obs, pos, value, mt, EventUpdated)
	}
	return p.insert(obs, h, key, value, mt)
}
