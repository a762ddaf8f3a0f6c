// Package store holds a member's records of partitioned maps (Hazelcast
// IMap semantics): per map, per partition, serialized keys and values with
// their metadata, TTL and max-idle expiry, sampling eviction, exact memory
// accounting, change events for listeners and indexes, and export/import
// for replication and migration. It is built for a low memory cost per
// entry.
//
// # Using it
//
// A Map is one map on one member. Every operation takes the partition id
// the caller computed (internal/partition) and the key and value as the
// serialized Data bytes; the store never interprets them, and key equality
// is byte equality. Incoming bytes are copied; results are copies, or views
// passed to a callback and valid only during it (Scan, Iterate, GetAll,
// Observer). Append variants (GetAppend, PutAppend, RemoveAppend) let hot
// paths run without allocating. Errors are *Error{Op, Err} wrapping a
// sentinel (ErrInvalidKey, ErrTooLarge, ErrPartitionRange, ...); bad input
// never panics and never changes stored data.
//
// The store starts no goroutines. Expiry happens lazily on access and in
// Sweep, which the member calls periodically with a budget; eviction happens
// on writes. Time comes from MapConfig.Clock.
//
// # Concurrency
//
// A partition is the unit of concurrency: each has its own mutex, and
// operations on different partitions run in parallel. Callbacks (Observer,
// Scan, Iterate, GetAll) run with the partition locked: they must not block
// and must not call back into the Map. Partitions are created on their first
// write and never freed (DropPartition empties one), so a goroutine holding
// a partition can never act on a stale one.
//
// # Record layout
//
// A Go map[string][]byte per partition costs 65-72 bytes per entry beyond
// key and value on the same data (map slots holding string and slice
// headers, two allocations rounded to size classes) and gives the garbage
// collector two pointers per entry to scan. Here a partition is:
//
//	index  []uint64   Robin Hood open addressing, 8-byte slots:
//	                  hash32<<32 | ref (ref 0 = empty); no pointers
//	chunks [][]byte   slab chunks; records appended back to back; no pointers
//
// and a record, found at ref = chunk id<<16 | offset, is
//
//	uvarint(keyLen<<3 | flags) | uvarint(valueLen) | version u32 | created u32 |
//	[updated u32 | accessed u32 | hits u32] | [ttl u32] [maxIdle u32] | key | value
//
// The statistics block (updated, accessed, hits) is in every record of a
// map that keeps per-entry statistics (MapConfig.PerEntryStats, off by
// default as in Hazelcast) or whose default TTL, max-idle or eviction
// policy reads them, and in every record with a TTL or max-idle of its
// own; elsewhere reads write nothing to the record, and an EntryView
// reports the three as 0. The lengths come first, so that the flags, and
// with them the record's layout, are read before anything else.
//
// Times are whole seconds since 2000-01-01 (uint32, to 2136), the way
// Hazelcast keeps them (from its own 2018 base). TTL and max-idle are
// stored in milliseconds (up to about 24.8 days; whole seconds beyond, up
// to 68 years), so that they read back as they were set, and deadlines
// are computed in milliseconds. Writes and accesses record the second
// rounded up, so an entry never expires before its TTL or max-idle has
// elapsed, and at most a second after. SetTTL counts as a write (the TTL
// counts from it), as in Hazelcast. The per-entry TTL and max-idle fields
// exist only when set. flags holds "dead" and the two presence bits, so a
// key of up to 15 bytes shares one byte with them.
//
// The index slot holds the full 32-bit hash: lookups compare keys only on a
// hash match, growth rehashes without touching records, the home slot is
// hash*len/2^32 (any table length, no power of two), and the table is sorted
// by hash, which gives Iterate a cursor that survives resizes and
// compaction. Growth happens past 7/8 load, shrinking below 1/4.
//
// Chunk sizing is where per-partition slack would go. With about 369
// entries per partition (100 000 over 271 partitions) every partition has a
// partly filled last chunk, and a record that does not fit at the end of a
// chunk leaves the rest unused. So:
//
//   - The open chunk grows by reallocation in steps of 1/8 (chunk ids and
//     offsets stay valid), always to a whole Go size class, so its slack
//     averages 1/16 of it and cap() is exactly what the allocator gave.
//   - From 16 KiB on, the open chunk chooses where to be sealed: now, or at
//     a larger size class, whichever wastes the smallest fraction at its end
//     for records of the size at hand (uniform 482-byte records would lose
//     474 bytes per chunk at 32 KiB; they seal at 21 760 losing 70).
//   - Records over 2 KiB go to a second tier: 16-byte offset units, chunks
//     up to 1 MiB grown by 1/16, so such records are a small part of their
//     chunk. Records over 64 KiB get an allocation of their own.
//   - Updates that keep the record's layout overwrite it in place; others
//     append a new record and leave the old one as garbage. A partition
//     compacts when garbage passes a quarter of its slab (and 1 KiB),
//     evacuating the chunks with the largest share of garbage until it is
//     under an eighth; a chunk left with no live record is freed at once.
//
// Per-entry budget, measured (BenchmarkMemory: 100 000 entries over 271
// partitions, 12-byte keys):
//
//	                          SMALL (55-byte value)   LARGE (446-byte value)
//	lengths and metadata              10                      11
//	index slot (8 B at ~76% load)     10.6                    10.6
//	chunk slack and ends, chunk        1.7                     5.0
//	tables, partition structs
//	total above key+value             22.3                    26.6
//
// (34.8 and 38.1 with per-entry statistics.)
//
// Reported cost and Go heap growth agree to within 0.1 byte per entry
// (Hazelcast 5.7: about 100 bytes above key+value). Other value sizes
// (BenchmarkMemoryByValueSize): about 22-28 bytes for values up to 1 KiB,
// 2-3% of the value from 2 to 64 KiB, and Go's page rounding (4 KiB on
// average) beyond.
//
// Records back to back also make the query engine's scan (ScanKV) a walk
// through memory in one direction: it asks the CPU for the cache lines
// some 2 KiB ahead of the record it hands out (a prefetch instruction on
// amd64 and arm64), so that a reader's scattered loads in a value of a few
// hundred bytes (header, Compact offset table, field) find them in cache.
// On workload B's LARGE queries that raised the queries per second of two
// member processes by 40-75% for Compact and Portable values (see
// bench/RESULTS.md); asking only for the lines a reader is likely to load
// (a record's first and last bytes) measured no better.
//
// # Memory accounting
//
// A partition's memory cost is everything it holds: cap() of its chunks
// (live records, garbage not yet compacted, slack), its index, its chunk
// tables and its struct, in the sizes the allocator really hands out. Each
// mutation publishes its change to per-map running totals, kept separately
// for owned and backup partitions (SetRole moves a partition between them),
// so Stats is cheap and eviction can check the limits on every write.
//
// # Expiry and eviction
//
// TTL counts from an entry's last write, max-idle from its last read or
// write (Hazelcast's meaning); an entry's own Expiry overrides the map
// defaults. An expired entry is never returned: accesses remove it (EXPIRED)
// and report it absent; Sweep removes the rest within its budget. Scans and
// exports skip expired entries without removing them.
//
// Eviction (LRU or LFU, comparing a sample of MapConfig.Eviction.SampleSize
// entries like Hazelcast) runs after a write to an owned partition leaves
// the map over MaxEntries or MaxBytes on this member. It evicts entries of
// that partition, never the one just written, so the map may exceed the
// limit by at most one entry per partition. Backup partitions neither
// evict nor sweep: the owner's events are replicated to them.
//
// # Events and replication
//
// An Observer sees every change (ADDED, UPDATED, REMOVED, EVICTED, EXPIRED,
// EXPIRY_CHANGED, CLEARED, DROPPED) synchronously, in partition order, with
// views of the key and old and new values and the entry's metadata. Without
// an observer this costs one atomic load per write. An event carries
// everything ApplyRecord needs, so a backup built from events (or from
// ExportAppend/Import chunks) is identical to the owner: same versions,
// times, hits and per-entry expiry.
//
// # Files
//
//	map.go, config.go, types.go, errors.go   Map, configuration, public types
//	get.go, put.go, remove.go                the IMap operations
//	iterate.go, replication.go, sweep.go     iteration, export/import, expiry
//	evict.go, stats.go                       eviction, statistics
//	partition.go, slab.go, record.go         index, slab chunks, record format
//	mutate.go                                insert/update/remove primitives
package store
