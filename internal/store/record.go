package store

import (
	"encoding/binary"
	"math"
	"time"
)

// Record encoding inside a slab chunk (see doc.go for the budget):
//
//	size  field
//	 1-5  key length << 3 | flags   uvarint (flags in the low 3 bits)
//	 1-5  value length              uvarint
//	   4  version                   uint32 LE  } the metadata, at rec.hdr
//	   4  creation time             uint32 LE, seconds since epochUnix
//	   4  last update time          } the statistics block: only in the records
//	   4  last access time          } of a map that keeps them (Map.stats) and
//	   4  hits (saturating)         } in records with their own TTL or max-idle
//	   4  TTL                       only when flagTTL: a duration code (see expiryCode)
//	   4  max-idle                  only when flagMaxIdle: a duration code
//	   k  key bytes
//	   v  value bytes
//
// Keys up to 15 bytes (a serialized Integer key is 12) keep the flags and
// the key length in one byte. The lengths come first so that a record's
// flags, and with them its layout, are known before its metadata is read.
const (
	offFlags = 0 // the record's first byte holds its flags in the low bits

	offVersion  = 0 // metadata offsets, from rec.hdr
	offCreated  = 4
	offUpdated  = 8
	offAccessed = 12
	offHits     = 16
	baseMeta    = 8  // version and creation time
	statsMeta   = 20 // with the statistics block

	flagDead    = 1 << 0 // record is garbage, waiting for compaction
	flagTTL     = 1 << 1 // per-entry TTL field present
	flagMaxIdle = 1 << 2 // per-entry max-idle field present
	flagsExpiry = flagTTL | flagMaxIdle
	flagBits    = 3
)

// metaSize is the size of a record's metadata: the statistics block is in
// every record of a map that keeps them, and in every record with an
// expiry of its own (TTL counts from the last write, max-idle from the last
// access).
func metaSize(mapStats bool, flags byte) int {
	if mapStats || flags&flagsExpiry != 0 {
		return statsMeta
	}
	return baseMeta
}

// epochUnix is the base of the stored seconds: 2000-01-01T00:00:00Z. A
// fixed base (Hazelcast uses 2018-01-01 the same way) means members agree on
// every stored time; uint32 seconds from it reach the year 2136. Clock
// readings before 2000 are stored as 2000. (testing/synctest's fake clock
// starts exactly at the base.)
const epochUnix = 946684800

// instant is "now" for one operation, read from the Clock once.
type instant struct {
	ms  int64  // Unix milliseconds, for map statistics
	sec uint32 // stored form, rounded down: what expiry checks compare
	// stamp is the stored form rounded up, recorded as the time of a write
	// or access: TTL and max-idle count from it, so that an entry never
	// expires before its TTL has elapsed (at most a second after).
	stamp uint32
}

func instantOf(t time.Time) instant {
	ms := t.UnixMilli()
	in := instant{ms: ms, sec: secOf(ms), stamp: secOf(ms)}
	if ms%1000 != 0 && in.stamp < math.MaxUint32 {
		in.stamp++
	}
	return in
}

// secOf converts Unix milliseconds to stored seconds, truncating, clamped to
// the representable range.
func secOf(ms int64) uint32 {
	s := ms / 1000
	if ms < 0 && ms%1000 != 0 {
		s--
	}
	s -= epochUnix
	switch {
	case s < 0:
		return 0
	case s > math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(s)
}

// msOf converts stored seconds to Unix milliseconds.
func msOf(sec uint32) int64 { return (int64(sec) + epochUnix) * 1000 }

// Stored durations (per-entry TTL and max-idle, map defaults) are uint32
// codes: 0 is Forever; below 1<<31 the code is milliseconds (up to about
// 24.8 days), so that a TTL reads back exactly as it was set; from 1<<31
// the low 31 bits are whole seconds (up to 68 years, rounded up).
const (
	durSeconds = 1 << 31
	durMaxMs   = durSeconds - 1
)

// expiryCode converts one Expiry field to its stored form. present is
// false for "map default"; code is 0 for Forever.
func expiryCode(d time.Duration) (present bool, code uint32, ok bool) {
	switch {
	case d == 0:
		return false, 0, true
	case d < 0:
		return false, 0, false
	case d == Forever:
		return true, 0, true
	}
	if ms := (d + time.Millisecond - 1) / time.Millisecond; ms <= durMaxMs {
		return true, uint32(ms), true
	}
	s := (d + time.Second - 1) / time.Second
	if s >= durSeconds-1 {
		return true, 0, true // beyond 68 years: forever
	}
	return true, durSeconds | uint32(s), true
}

// configCode converts a map default (0 = forever) to its stored form.
func configCode(d time.Duration) uint32 {
	_, c, _ := expiryCode(d)
	return c
}

// codeMs returns a stored duration in milliseconds (0 = forever).
func codeMs(code uint32) int64 {
	if code&durSeconds != 0 {
		return int64(code&^durSeconds) * 1000
	}
	return int64(code)
}

func durationOf(present bool, code uint32) time.Duration {
	switch {
	case !present:
		return 0
	case code == 0:
		return Forever
	}
	return time.Duration(codeMs(code)) * time.Millisecond
}

// meta is a record's metadata in stored form.
type meta struct {
	version  uint32
	created  uint32
	updated  uint32
	accessed uint32
	hits     uint32
	flags    byte   // only flagTTL / flagMaxIdle are meaningful here
	ttl      uint32 // duration codes (expiryCode)
	maxIdle  uint32
}

func (m *meta) setExpiry(e Expiry) bool {
	tp, ts, ok1 := expiryCode(e.TTL)
	ip, is, ok2 := expiryCode(e.MaxIdle)
	if !ok1 || !ok2 {
		return false
	}
	m.flags, m.ttl, m.maxIdle = 0, ts, is
	if tp {
		m.flags |= flagTTL
	}
	if ip {
		m.flags |= flagMaxIdle
	}
	return true
}

func (m *meta) expiry() Expiry {
	return Expiry{
		TTL:     durationOf(m.flags&flagTTL != 0, m.ttl),
		MaxIdle: durationOf(m.flags&flagMaxIdle != 0, m.maxIdle),
	}
}

// knownTimes fills in the update and access times a copy left as 0 (its
// source does not keep them) with the latest time known, so that TTL and
// max-idle count from no earlier than the entry's creation.
func (m *meta) knownTimes() {
	if m.updated == 0 {
		m.updated = m.created
	}
	if m.accessed == 0 {
		m.accessed = m.updated
	}
}

func nextVersion(v uint32) uint32 {
	v++
	if v == 0 {
		v = 1 // 0 never names a live record
	}
	return v
}

func uvarintLen(x int) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// recSize is the encoded size of a record.
func recSize(klen, vlen int, flags byte, mapStats bool) int {
	n := uvarintLen(klen<<flagBits) + uvarintLen(vlen) + metaSize(mapStats, flags) + klen + vlen
	if flags&flagTTL != 0 {
		n += 4
	}
	if flags&flagMaxIdle != 0 {
		n += 4
	}
	return n
}

// encodeRec writes a record into dst, which must be exactly recSize long.
func encodeRec(dst []byte, m *meta, key, value []byte, mapStats bool) {
	i := binary.PutUvarint(dst, uint64(len(key))<<flagBits|uint64(m.flags&flagsExpiry))
	i += binary.PutUvarint(dst[i:], uint64(len(value)))
	i += putMeta(dst[i:], m, metaSize(mapStats, m.flags))
	i += copy(dst[i:], key)
	copy(dst[i:], value)
}

// putMeta writes the metadata (size bytes: baseMeta or statsMeta) and the
// per-entry expiry fields of m at the start of dst and returns their length.
func putMeta(dst []byte, m *meta, size int) int {
	le := binary.LittleEndian
	le.PutUint32(dst[offVersion:], m.version)
	le.PutUint32(dst[offCreated:], m.created)
	if size == statsMeta {
		le.PutUint32(dst[offUpdated:], m.updated)
		le.PutUint32(dst[offAccessed:], m.accessed)
		le.PutUint32(dst[offHits:], m.hits)
	}
	i := size
	if m.flags&flagTTL != 0 {
		le.PutUint32(dst[i:], m.ttl)
		i += 4
	}
	if m.flags&flagMaxIdle != 0 {
		le.PutUint32(dst[i:], m.maxIdle)
		i += 4
	}
	return i
}

// rec locates the parts of one record inside a chunk. Offsets are absolute
// in the chunk.
type rec struct {
	off   int // record start
	flags byte
	hdr   int // start of the metadata
	opt   int // start of the per-entry expiry fields
	kOff  int
	kLen  int
	vLen  int
}

func (r *rec) vOff() int { return r.kOff + r.kLen }
func (r *rec) end() int  { return r.kOff + r.kLen + r.vLen }
func (r *rec) size() int { return r.end() - r.off }

// hasStats reports whether the record carries the statistics block.
func (r *rec) hasStats() bool { return r.opt-r.hdr == statsMeta }

func uvarintAt(b []byte, i int) (int, int) {
	if x := b[i]; x < 0x80 {
		return int(x), i + 1
	}
	v, n := binary.Uvarint(b[i:])
	return int(v), i + n
}

// decodeRec parses the record at off of a map whose records carry the
// statistics block when mapStats. The chunk was written by encodeRec, so it
// is trusted. The common case (key up to 15 bytes, value under 16 KiB)
// takes the fast path.
func decodeRec(b []byte, off int, mapStats bool) rec {
	_ = b[off+2] // every record has its lengths and metadata
	kf, v0 := b[off], b[off+1]
	if kf < 0x80 {
		r := rec{off: off, flags: kf & (1<<flagBits - 1), kLen: int(kf >> flagBits)}
		switch v1 := b[off+2]; {
		case v0 < 0x80:
			r.vLen, r.hdr = int(v0), off+2
		case v1 < 0x80:
			r.vLen, r.hdr = int(v0&0x7f)|int(v1)<<7, off+3
		default:
			return decodeRecSlow(b, off, mapStats)
		}
		r.locate(mapStats)
		return r
	}
	return decodeRecSlow(b, off, mapStats)
}

func decodeRecSlow(b []byte, off int, mapStats bool) rec {
	r := rec{off: off}
	kf, i := uvarintAt(b, off)
	r.flags, r.kLen = byte(kf&(1<<flagBits-1)), kf>>flagBits
	r.vLen, r.hdr = uvarintAt(b, i)
	r.locate(mapStats)
	return r
}

// locate sets where the expiry fields and the key start, from the start
// of the metadata and the flags.
func (r *rec) locate(mapStats bool) {
	r.opt = r.hdr + metaSize(mapStats, r.flags)
	r.kOff = r.opt + int(r.flags>>1&1+r.flags>>2&1)<<2
}

func (r *rec) key(b []byte) []byte   { return b[r.kOff : r.kOff+r.kLen : r.kOff+r.kLen] }
func (r *rec) value(b []byte) []byte { v := r.vOff(); return b[v : v+r.vLen : v+r.vLen] }

// u32 reads a metadata field (offVersion ...); the statistics fields only
// of a record that hasStats.
func (r *rec) u32(b []byte, field int) uint32 {
	return binary.LittleEndian.Uint32(b[r.hdr+field:])
}

func (r *rec) setU32(b []byte, field int, v uint32) {
	binary.LittleEndian.PutUint32(b[r.hdr+field:], v)
}

// meta reads the record's metadata; without the statistics block, the
// update and access times and the hits are 0 (unknown).
func (r *rec) meta(b []byte) meta {
	h := b[r.hdr:r.opt:r.opt]
	le := binary.LittleEndian
	m := meta{
		version: le.Uint32(h[offVersion:]),
		created: le.Uint32(h[offCreated:]),
		flags:   r.flags & flagsExpiry,
	}
	if len(h) == statsMeta {
		m.updated = le.Uint32(h[offUpdated:])
		m.accessed = le.Uint32(h[offAccessed:])
		m.hits = le.Uint32(h[offHits:])
	}
	if r.flags&flagsExpiry != 0 {
		i := r.opt
		if r.flags&flagTTL != 0 {
			m.ttl = le.Uint32(b[i:])
			i += 4
		}
		if r.flags&flagMaxIdle != 0 {
			m.maxIdle = le.Uint32(b[i:])
		}
	}
	return m
}

// touch records a read: last access time and hits, in a record that keeps
// them.
func (r *rec) touch(b []byte, now uint32) {
	if !r.hasStats() {
		return
	}
	r.setU32(b, offAccessed, now)
	if h := r.u32(b, offHits); h != math.MaxUint32 {
		r.setU32(b, offHits, h+1)
	}
}
