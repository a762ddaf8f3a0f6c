package cluster

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Replicated changes, encoded once
//
// A change of an owned partition is encoded when it is recorded, straight
// into the partition's log, in the form it travels in: a ReplicationBatch
// events field (member.proto) holding a ReplicationEvent. A batch is the
// owner's id followed by the changes the backup lacks, copied from the
// logs; the backup reads them in place (Change's byte slices alias the
// batch) and acknowledges with a ReplicationAck it encodes into a buffer
// of its stream. No change, batch or acknowledgement is a protobuf-go
// message on the way, so that a write and its backup allocate nothing in
// the steady state; protobuf-go reads the same bytes (the tests check).

// ChangeKind says what a change did to an entry.
type ChangeKind uint8

const (
	// ChangeRecord: the entry was added or updated (or its expiry changed).
	ChangeRecord ChangeKind = iota + 1
	// ChangeRemoved: the entry was removed, evicted or expired.
	ChangeRemoved
	// ChangeCleared: the partition of the map was cleared.
	ChangeCleared
)

// Change is one change of a map's partition as the cluster layer
// replicates it. Its slices alias the caller's bytes (Record copies them)
// or a received batch (ReplicaStore.Apply must copy what it keeps).
type Change struct {
	Map  string
	Kind ChangeKind
	// Key of a record or a removal; the record's value and metadata.
	Key, Value    []byte
	Version, Hits uint32
	CreationTime  int64 // Unix milliseconds, as the store keeps them
	UpdateTime    int64
	AccessTime    int64
	// TTLMs and MaxIdleMs are the entry's own: 0 follows the map's
	// default, -1 is forever.
	TTLMs, MaxIdleMs int64

	// Set on a received change: its partition, its owner's epoch and its
	// sequence number.
	Partition  int32
	Epoch, Seq uint64
}

// Field numbers of member.proto's replication messages.
const (
	batchOwner  protowire.Number = 1
	batchEvents protowire.Number = 2

	eventPartition protowire.Number = 1
	eventSeq       protowire.Number = 2
	eventMap       protowire.Number = 3
	eventEpoch     protowire.Number = 4
	eventRecord    protowire.Number = 10
	eventRemoved   protowire.Number = 11
	eventCleared   protowire.Number = 12

	ackAcks   protowire.Number = 1
	ackResync protowire.Number = 2

	partAckPartition protowire.Number = 1
	partAckSeq       protowire.Number = 2
	partAckEpoch     protowire.Number = 3
)

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b // proto3 writes no default
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func appendBytesField(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

// sizeVarintField is what appendVarintField appends.
func sizeVarintField(num protowire.Number, v uint64) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(v)
}

func sizeBytesField(num protowire.Number, n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

// recordSize is the size of c's Record message.
func (c *Change) recordSize() int {
	return sizeBytesField(1, len(c.Key)) + sizeBytesField(2, len(c.Value)) +
		sizeVarintField(3, uint64(c.Version)) + sizeVarintField(4, uint64(c.Hits)) +
		sizeVarintField(5, uint64(c.CreationTime)) + sizeVarintField(6, uint64(c.UpdateTime)) + sizeVarintField(7, uint64(c.AccessTime)) +
		sizeVarintField(8, uint64(c.TTLMs)) + sizeVarintField(9, uint64(c.MaxIdleMs))
}

// appendEvent appends c, numbered, as a ReplicationBatch events field.
func appendEvent(b []byte, c *Change, pid int32, epoch, seq uint64) []byte {
	n := sizeVarintField(eventPartition, uint64(pid)) + sizeVarintField(eventSeq, seq) +
		sizeBytesField(eventMap, len(c.Map)) + sizeVarintField(eventEpoch, epoch)
	var rec int
	switch c.Kind {
	case ChangeRecord:
		rec = c.recordSize()
		n += protowire.SizeTag(eventRecord) + protowire.SizeBytes(rec)
	case ChangeRemoved:
		n += protowire.SizeTag(eventRemoved) + protowire.SizeBytes(len(c.Key))
	case ChangeCleared:
		n += protowire.SizeTag(eventCleared) + 1
	}
	b = protowire.AppendTag(b, batchEvents, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	b = appendVarintField(b, eventPartition, uint64(pid))
	b = appendVarintField(b, eventSeq, seq)
	if len(c.Map) > 0 {
		b = protowire.AppendTag(b, eventMap, protowire.BytesType)
		b = protowire.AppendString(b, c.Map)
	}
	b = appendVarintField(b, eventEpoch, epoch)
	switch c.Kind {
	case ChangeRecord:
		// The one field of the oneof is written even when empty.
		b = protowire.AppendTag(b, eventRecord, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(rec))
		b = appendBytesField(b, 1, c.Key)
		b = appendBytesField(b, 2, c.Value)
		b = appendVarintField(b, 3, uint64(c.Version))
		b = appendVarintField(b, 4, uint64(c.Hits))
		b = appendVarintField(b, 5, uint64(c.CreationTime))
		b = appendVarintField(b, 6, uint64(c.UpdateTime))
		b = appendVarintField(b, 7, uint64(c.AccessTime))
		b = appendVarintField(b, 8, uint64(c.TTLMs))
		b = appendVarintField(b, 9, uint64(c.MaxIdleMs))
	case ChangeRemoved:
		b = protowire.AppendTag(b, eventRemoved, protowire.BytesType)
		b = protowire.AppendBytes(b, c.Key)
	case ChangeCleared:
		b = protowire.AppendTag(b, eventCleared, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	return b
}

// errMalformedBatch: a replication stream carried something that is not
// a ReplicationBatch or ReplicationAck in the form members write.
var errMalformedBatch = errors.New("cluster: malformed replication message")

// batchReader reads a ReplicationBatch in place.
type batchReader struct {
	b     []byte
	owner []byte
}

// readBatch starts reading batch, whose owner's id comes first.
func readBatch(batch []byte) (batchReader, error) {
	num, typ, n := protowire.ConsumeTag(batch)
	if n < 0 || num != batchOwner || typ != protowire.BytesType {
		return batchReader{}, fmt.Errorf("%w: a batch without its owner first", errMalformedBatch)
	}
	owner, m := protowire.ConsumeBytes(batch[n:])
	if m < 0 {
		return batchReader{}, errMalformedBatch
	}
	return batchReader{b: batch[n+m:], owner: owner}, nil
}

// next decodes the next change into c (its map name through names, which
// keeps the strings of names met before); false at the end.
func (r *batchReader) next(c *Change, names map[string]string) (bool, error) {
	if len(r.b) == 0 {
		return false, nil
	}
	num, typ, n := protowire.ConsumeTag(r.b)
	if n < 0 || num != batchEvents || typ != protowire.BytesType {
		return false, fmt.Errorf("%w: field %d in a batch", errMalformedBatch, num)
	}
	ev, m := protowire.ConsumeBytes(r.b[n:])
	if m < 0 {
		return false, errMalformedBatch
	}
	r.b = r.b[n+m:]
	*c = Change{}
	for len(ev) > 0 {
		num, typ, n := protowire.ConsumeTag(ev)
		if n < 0 {
			return false, errMalformedBatch
		}
		ev = ev[n:]
		switch {
		case typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(ev)
			if n < 0 {
				return false, errMalformedBatch
			}
			ev = ev[n:]
			switch num {
			case eventPartition:
				c.Partition = int32(v)
			case eventSeq:
				c.Seq = v
			case eventEpoch:
				c.Epoch = v
			case eventCleared:
				c.Kind = ChangeCleared
			}
		case typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(ev)
			if n < 0 {
				return false, errMalformedBatch
			}
			ev = ev[n:]
			switch num {
			case eventMap:
				c.Map = nameOf(names, v)
			case eventRemoved:
				c.Kind, c.Key = ChangeRemoved, v
			case eventRecord:
				c.Kind = ChangeRecord
				if err := c.readRecord(v); err != nil {
					return false, err
				}
			}
		default:
			return false, fmt.Errorf("%w: wire type %d in a change", errMalformedBatch, typ)
		}
	}
	return true, nil
}

// readRecord decodes a Record message into c.
func (c *Change) readRecord(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformedBatch
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformedBatch
			}
			b = b[n:]
			switch num {
			case 1:
				c.Key = v
			case 2:
				c.Value = v
			}
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errMalformedBatch
			}
			b = b[n:]
			switch num {
			case 3:
				c.Version = uint32(v)
			case 4:
				c.Hits = uint32(v)
			case 5:
				c.CreationTime = int64(v)
			case 6:
				c.UpdateTime = int64(v)
			case 7:
				c.AccessTime = int64(v)
			case 8:
				c.TTLMs = int64(v)
			case 9:
				c.MaxIdleMs = int64(v)
			}
		default:
			return fmt.Errorf("%w: wire type %d in a record", errMalformedBatch, typ)
		}
	}
	return nil
}

// maxNames bounds the map names a stream keeps.
const maxNames = 1024

// nameOf returns b as a string, without allocating for the names met
// before.
func nameOf(names map[string]string, b []byte) string {
	if s, ok := names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(names) >= maxNames {
		clear(names)
	}
	names[s] = s
	return s
}

// partitionAck is one PartitionAck of a ReplicationAck.
type partitionAck struct {
	partition  int32
	epoch, seq uint64
}

// appendAck appends a ReplicationAck of acks and resync.
func appendAck(b []byte, acks []partitionAck, resync []int32) []byte {
	for _, a := range acks {
		n := sizeVarintField(partAckPartition, uint64(a.partition)) + sizeVarintField(partAckSeq, a.seq) + sizeVarintField(partAckEpoch, a.epoch)
		b = protowire.AppendTag(b, ackAcks, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		b = appendVarintField(b, partAckPartition, uint64(a.partition))
		b = appendVarintField(b, partAckSeq, a.seq)
		b = appendVarintField(b, partAckEpoch, a.epoch)
	}
	if len(resync) > 0 {
		n := 0
		for _, p := range resync {
			n += protowire.SizeVarint(uint64(p))
		}
		b = protowire.AppendTag(b, ackResync, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n))
		for _, p := range resync {
			b = protowire.AppendVarint(b, uint64(p))
		}
	}
	return b
}

// readAck decodes a ReplicationAck, calling ack for each acknowledgement
// and resync for each partition to copy again.
func readAck(b []byte, ack func(partitionAck), resync func(int32)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return errMalformedBatch
		}
		b = b[n:]
		switch {
		case num == ackAcks && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformedBatch
			}
			b = b[n:]
			var a partitionAck
			for len(v) > 0 {
				num, typ, n := protowire.ConsumeTag(v)
				if n < 0 || typ != protowire.VarintType {
					return errMalformedBatch
				}
				x, m := protowire.ConsumeVarint(v[n:])
				if m < 0 {
					return errMalformedBatch
				}
				v = v[n+m:]
				switch num {
				case partAckPartition:
					a.partition = int32(x)
				case partAckSeq:
					a.seq = x
				case partAckEpoch:
					a.epoch = x
				}
			}
			ack(a)
		case num == ackResync && typ == protowire.BytesType: // packed
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return errMalformedBatch
			}
			b = b[n:]
			for len(v) > 0 {
				x, m := protowire.ConsumeVarint(v)
				if m < 0 {
					return errMalformedBatch
				}
				v = v[m:]
				resync(int32(x))
			}
		case num == ackResync && typ == protowire.VarintType: // unpacked
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return errMalformedBatch
			}
			b = b[n:]
			resync(int32(x))
		default:
			return fmt.Errorf("%w: field %d in an acknowledgement", errMalformedBatch, num)
		}
	}
	return nil
}

// eventLog is the changes of a partition that its backups have not all
// acknowledged, encoded (appendEvent), oldest first.
type eventLog struct {
	buf  []byte
	ends []int // the end of each change in buf
}

func (l *eventLog) len() int { return len(l.ends) }

// event returns change i.
func (l *eventLog) event(i int) []byte {
	start := 0
	if i > 0 {
		start = l.ends[i-1]
	}
	return l.buf[start:l.ends[i]]
}

// add appends an encoded change.
func (l *eventLog) add(c *Change, pid int32, epoch, seq uint64) {
	l.buf = appendEvent(l.buf, c, pid, epoch, seq)
	l.ends = append(l.ends, len(l.buf))
}

// drop drops the oldest k changes.
func (l *eventLog) drop(k int) {
	if k >= len(l.ends) {
		l.reset()
		return
	}
	if k <= 0 {
		return
	}
	cut := l.ends[k-1]
	n := copy(l.buf, l.buf[cut:])
	l.buf = l.buf[:n]
	m := copy(l.ends, l.ends[k:])
	l.ends = l.ends[:m]
	for i := range l.ends {
		l.ends[i] -= cut
	}
}

// reset empties the log, keeping a small buffer for the next changes.
func (l *eventLog) reset() {
	if cap(l.buf) > 1<<20 {
		l.buf, l.ends = nil, nil
		return
	}
	l.buf, l.ends = l.buf[:0], l.ends[:0]
}
