package cluster

import (
	"bytes"
	"slices"
	"testing"

	"google.golang.org/protobuf/proto"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
)

// changes are changes of every kind, with the extremes of their fields.
var changes = []Change{
	{Map: "m", Kind: ChangeRecord, Key: []byte("k"), Value: []byte("v"), Version: 3, Hits: 9,
		CreationTime: 1_700_000_000_000, UpdateTime: 1_700_000_000_001, AccessTime: 1_700_000_000_002, TTLMs: -1, MaxIdleMs: 250},
	{Map: "ß-map", Kind: ChangeRecord, Key: []byte("k"), Value: bytes.Repeat([]byte("v"), 1000)},
	{Map: "m", Kind: ChangeRecord}, // an empty record still says it is one
	{Map: "m", Kind: ChangeRemoved, Key: []byte("gone")},
	{Map: "m", Kind: ChangeCleared},
}

// asEvent is c as protobuf-go's message, numbered.
func asEvent(c Change, pid int32, epoch, seq uint64) *memberv1.ReplicationEvent {
	ev := &memberv1.ReplicationEvent{Partition: pid, Seq: seq, Map: c.Map, Epoch: epoch}
	switch c.Kind {
	case ChangeRecord:
		ev.Change = &memberv1.ReplicationEvent_Record{Record: &memberv1.Record{Key: c.Key, Value: c.Value, Version: c.Version, Hits: c.Hits,
			CreationTimeMs: c.CreationTime, LastUpdateTimeMs: c.UpdateTime, LastAccessTimeMs: c.AccessTime, TtlMs: c.TTLMs, MaxIdleMs: c.MaxIdleMs}}
	case ChangeRemoved:
		ev.Change = &memberv1.ReplicationEvent_RemovedKey{RemovedKey: c.Key}
	case ChangeCleared:
		ev.Change = &memberv1.ReplicationEvent_Cleared{Cleared: true}
	}
	return ev
}

func sameChange(a, b Change) bool {
	return a.Map == b.Map && a.Kind == b.Kind && bytes.Equal(a.Key, b.Key) && bytes.Equal(a.Value, b.Value) &&
		a.Version == b.Version && a.Hits == b.Hits && a.CreationTime == b.CreationTime && a.UpdateTime == b.UpdateTime &&
		a.AccessTime == b.AccessTime && a.TTLMs == b.TTLMs && a.MaxIdleMs == b.MaxIdleMs &&
		a.Partition == b.Partition && a.Epoch == b.Epoch && a.Seq == b.Seq
}

// TestChangesAsProtobuf: a batch of encoded changes is the
// ReplicationBatch protobuf-go reads, and one protobuf-go writes reads
// back to the same changes.
func TestChangesAsProtobuf(t *testing.T) {
	owner := bytes.Repeat([]byte{7}, 16)
	var log eventLog
	want := &memberv1.ReplicationBatch{OwnerUuid: owner}
	for i, c := range changes {
		pid, epoch, seq := int32(i*50), uint64(1<<40+i), uint64(i+1)
		log.add(&c, pid, epoch, seq)
		want.Events = append(want.Events, asEvent(c, pid, epoch, seq))
	}
	batch := appendBytesField(nil, batchOwner, owner)
	for i := range log.len() {
		batch = append(batch, log.event(i)...)
	}
	got := &memberv1.ReplicationBatch{}
	if err := proto.Unmarshal(batch, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Fatalf("protobuf-go reads %v, want %v", got, want)
	}
	for name, b := range map[string][]byte{"ours": batch, "protobuf-go's": must(proto.Marshal(want))} {
		r, err := readBatch(b)
		if err != nil || !bytes.Equal(r.owner, owner) {
			t.Fatalf("%s: owner %x, %v", name, r.owner, err)
		}
		names := map[string]string{}
		for i, c := range changes {
			var got Change
			if more, err := r.next(&got, names); !more || err != nil {
				t.Fatalf("%s: change %d: %v, %v", name, i, more, err)
			}
			c.Partition, c.Epoch, c.Seq = int32(i*50), uint64(1<<40+i), uint64(i+1)
			if !sameChange(got, c) {
				t.Fatalf("%s: change %d read as %+v, want %+v", name, i, got, c)
			}
		}
		if more, err := r.next(new(Change), names); more || err != nil {
			t.Fatalf("%s: after the last change: %v, %v", name, more, err)
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestAcksAsProtobuf: encoded acknowledgements are the ReplicationAck
// protobuf-go reads, and the reader takes protobuf-go's.
func TestAcksAsProtobuf(t *testing.T) {
	acks := []partitionAck{{partition: 0, epoch: 5, seq: 0}, {partition: 270, epoch: 1 << 60, seq: 12}}
	resync := []int32{3, 0, 200}
	want := &memberv1.ReplicationAck{Resync: resync}
	for _, a := range acks {
		want.Acks = append(want.Acks, &memberv1.PartitionAck{Partition: a.partition, Epoch: a.epoch, Seq: a.seq})
	}
	ours := appendAck(nil, acks, resync)
	got := &memberv1.ReplicationAck{}
	if err := proto.Unmarshal(ours, got); err != nil || !proto.Equal(got, want) {
		t.Fatalf("protobuf-go reads %v (%v), want %v", got, err, want)
	}
	for name, b := range map[string][]byte{"ours": ours, "protobuf-go's": must(proto.Marshal(want))} {
		var gotAcks []partitionAck
		var gotResync []int32
		if err := readAck(b, func(a partitionAck) { gotAcks = append(gotAcks, a) }, func(p int32) { gotResync = append(gotResync, p) }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(gotAcks, acks) || !slices.Equal(gotResync, resync) {
			t.Fatalf("%s: read %v %v, want %v %v", name, gotAcks, gotResync, acks, resync)
		}
	}
}

// TestEventLogDrop: dropping the oldest changes keeps the others intact.
func TestEventLogDrop(t *testing.T) {
	var log eventLog
	for i := range 10 {
		log.add(&Change{Map: "m", Kind: ChangeRemoved, Key: bytes.Repeat([]byte{byte(i)}, i+1)}, 1, 1, uint64(i+1))
	}
	log.drop(4)
	if log.len() != 6 {
		t.Fatalf("%d changes left, want 6", log.len())
	}
	for i := range 6 {
		r, _ := readBatch(append(appendBytesField(nil, batchOwner, []byte{1}), log.event(i)...))
		var c Change
		if more, err := r.next(&c, map[string]string{}); !more || err != nil || c.Seq != uint64(i+5) || len(c.Key) != i+5 {
			t.Fatalf("change %d after the drop: seq %d, key of %d bytes (%v)", i, c.Seq, len(c.Key), err)
		}
	}
	log.drop(100)
	if log.len() != 0 {
		t.Fatalf("%d changes left after dropping all", log.len())
	}
}

// FuzzReplicationMessages: whatever a stream carries, the readers return
// an error or what protobuf-go reads too, and never panic.
func FuzzReplicationMessages(f *testing.F) {
	batch := appendBytesField(nil, batchOwner, bytes.Repeat([]byte{1}, 16))
	for i, c := range changes {
		batch = appendEvent(batch, &c, int32(i), 9, uint64(i+1))
	}
	f.Add(batch)
	f.Add(appendAck(nil, []partitionAck{{partition: 4, epoch: 9, seq: 2}}, []int32{1, 2}))
	f.Add([]byte{0x0a, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := readBatch(b); err == nil {
			names := map[string]string{}
			for {
				var c Change
				more, err := r.next(&c, names)
				if err != nil || !more {
					break
				}
			}
		}
		_ = readAck(b, func(partitionAck) {}, func(int32) {})
	})
}

// TestFlight counts the bytes of batches sent and not acknowledged, oldest
// acknowledged first, across the compaction of its queue.
func TestFlight(t *testing.T) {
	var f flight
	want := 0
	for i := 1; i <= 1000; i++ {
		f.sent(i)
		want += i
		if i%3 != 0 { // acknowledge two of every three: the queue grows
			continue
		}
		f.acked()
		f.acked()
		want -= i/3*2 - 1 + i/3*2 // sizes 2k-1 and 2k for the k-th pair
		if got := f.bytes(); got != want {
			t.Fatalf("after %d batches: %d bytes in flight, want %d", i, got, want)
		}
	}
	for f.bytes() > 0 {
		f.acked()
	}
	f.acked() // an acknowledgement of nothing counts nothing
	if got := f.bytes(); got != 0 {
		t.Fatalf("%d bytes in flight after every acknowledgement", got)
	}
}
