package store

// Reads for the query engine: a lean scan without metadata, lookups that
// do not count as accesses, and exact partition counts.

// ScanKV calls fn with views of the key and value of every live entry of a
// partition, in memory order, until fn returns false. It is Scan without
// the metadata: no EntryView is built, and expiry is checked only when the
// partition holds entries that can expire. The views are valid only during
// the call; fn runs with the partition read-locked (other scans run at the
// same time, writes wait) and must not call into the Map. Expired entries
// are skipped; scanning does not count as access.
func (m *Map) ScanKV(pid int32, fn func(key, value []byte) bool) error {
	return m.ScanKVHint(pid, nil, fn)
}

// ReadHint tells a scan where its reader reads in each value. Field is
// the offset, in the value, of the field the reader read last (0: not
// known; negative: the reader reads more than its field). A reader that
// finds its field through an offset table (Compact, Portable) reads
// little else, and values of one shape keep their field at about one
// offset.
type ReadHint struct {
	Field int
}

// ScanKVHint is ScanKV with a hint that the reader sets as it goes. For
// records of hintedRecord bytes or more, a scan with a known Field asks
// the caches for only the lines the reader will load of the record
// hintedAhead records ahead (taken to be as long as the current one): its
// first 128 bytes (the record's header and the value's), the field's and
// its last (Compact's offset table), where without it every line of the bytes
// ahead is asked for. A reader that skips most of a large value then
// leaves most of its lines in memory, and the scan moves at the speed of
// the lines it needs.
func (m *Map) ScanKVHint(pid int32, hint *ReadHint, fn func(key, value []byte) bool) error {
	if err := m.checkPartition("scan", pid); err != nil {
		return err
	}
	p := m.partition(pid)
	if p == nil {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	checkExpiry := p.expirable > 0
	now := int64(0)
	if checkExpiry {
		now = m.now().ms
	}
	metaLen := metaSize(p.m.stats, 0) // of records without expiry fields
	for i := range p.chunks {
		c := &p.chunks[i]
		data := c.data
		u := 1<<c.shift - 1
		pf := prefetcher{data: data}
		for off := 0; off < len(data); {
			// The common record inline (key under 16 bytes, value under
			// 16 KiB, no TTL fields, nothing that can expire):
			// decodeRec is not inlined, and this loop runs once per
			// entry of every scan.
			if !checkExpiry {
				kf, v0, v1 := data[off], data[off+1], data[off+2]
				if kf < 0x80 && kf&(flagsExpiry|flagDead) == 0 {
					kOff, vLen := off+2+metaLen, int(v0)
					if v0 >= 0x80 {
						if v1 < 0x80 {
							kOff, vLen = off+3+metaLen, int(v0&0x7f)|int(v1)<<7
						} else {
							goto slow
						}
					}
					vOff := kOff + int(kf>>flagBits)
					end := vOff + vLen
					start := off
					off = (end + u) &^ u
					if n := off - start; hint != nil && hint.Field > 0 && n >= hintedRecord {
						prefetchRecord(data, start+hintedAhead*n, n, vOff-start+hint.Field)
					} else {
						pf.ahead(off)
					}
					if !fn(data[kOff:vOff:vOff], data[vOff:end:end]) {
						return nil
					}
					continue
				}
			}
		slow:
			r := decodeRec(data, off, p.m.stats)
			off = alignUp(r.end(), c.shift)
			pf.ahead(off)
			if r.flags&flagDead != 0 || (checkExpiry && m.expired(data, &r, now)) {
				continue
			}
			v := r.vOff()
			if !fn(data[r.kOff:v:v], data[v:r.end():r.end()]) {
				return nil
			}
		}
	}
	return nil
}

// scanAhead is how far ahead of a scan's cursor its bytes are prefetched:
// a few LARGE values (some 500 bytes each) or a few dozen SMALL ones, far
// enough for the lines to arrive while the records before them are read.
// The lines are asked for scanPrefetchStep bytes at a time, so that small
// records do not pay a call each.
const (
	scanAhead        = 2048
	scanPrefetchStep = 256
)

// hintedRecord is the size from which a scan with a ReadHint prefetches
// the lines of a record its reader loads rather than every line: from 8
// lines, the lines a reader skips outnumber those it loads, and the
// hardware's own prefetch does not fill the gaps between them.
// hintedAhead is how many records ahead it prefetches.
const (
	hintedRecord = 512
	hintedAhead  = 4
)

// prefetchRecord asks for the lines of the n-byte record at a in data
// that a reader of its field at offset field loads: the lines of its
// first 128 bytes, the field's and the last. A guess that ends past data, or a
// field past the record, asks for nothing.
func prefetchRecord(data []byte, a, n, field int) {
	if a+n > len(data) || field >= n {
		return
	}
	prefetchLines(data[a : a+min(n, 128)])
	prefetchLines(data[a+field : a+field+1])
	prefetchLines(data[a+n-1 : a+n])
}

// prefetcher keeps the bytes of a chunk ahead of a scan's cursor on their
// way into the CPU's caches. A reader of a value loads its header, then
// (for Compact) its offset table at the value's end, then the field the
// table points to: each load waits for the one before, and on values
// larger than a few cache lines the hardware's own prefetcher does not
// guess them. Asked for early, they arrive together.
type prefetcher struct {
	data []byte
	done int // data[:done] has been asked for
}

// ahead prefetches what is not yet asked for of the scanAhead bytes after
// cursor; it is inlined into the scan, and calls fetch once every
// scanPrefetchStep bytes.
func (p *prefetcher) ahead(cursor int) {
	if cursor+scanAhead-p.done >= scanPrefetchStep {
		p.fetch(cursor)
	}
}

func (p *prefetcher) fetch(cursor int) {
	from, to := max(p.done, cursor), min(cursor+scanAhead, len(p.data))
	p.done = cursor + scanAhead
	if from < to {
		prefetchLines(p.data[from:to])
	}
}

// PeekAll looks up keys of one partition under a single lock acquisition
// and calls fn for each present, unexpired key with views of the key and
// value (valid only during the call; fn runs with the partition locked).
// Unlike GetAll it neither counts as an access nor removes expired entries.
// Invalid keys are skipped.
func (m *Map) PeekAll(pid int32, keys [][]byte, fn func(key, value []byte)) error {
	if err := m.checkPartition("peek", pid); err != nil {
		return err
	}
	p := m.partition(pid)
	if p == nil || len(keys) == 0 {
		return nil
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	checkExpiry := p.expirable > 0
	now := int64(0)
	if checkExpiry {
		now = m.now().ms
	}
	for _, k := range keys {
		if len(k) == 0 || len(k) > m.cfg.MaxKeySize {
			continue
		}
		pos := p.find(m.hash(k), k)
		if pos < 0 {
			continue
		}
		b, r := p.recOf(uint32(p.slots[pos]))
		if checkExpiry && m.expired(b, &r, now) {
			continue
		}
		fn(r.key(b), r.value(b))
	}
	return nil
}

// CountExact returns the number of live entries of a partition. exact is
// false when the partition holds entries that can expire, whose expiry is
// only known by reading them (the count then includes expired ones).
func (m *Map) CountExact(pid int32) (n int, exact bool, err error) {
	if err := m.checkPartition("count", pid); err != nil {
		return 0, false, err
	}
	p := m.partition(pid)
	if p == nil {
		return 0, true, nil
	}
	p.mu.RLock()
	n, exact = p.count, p.expirable == 0
	p.mu.RUnlock()
	return n, exact, nil
}
