package server

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	memberpb "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/exec"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/partition"
	"github.com/atolldb/atoll/internal/query/expr"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/store"
	"github.com/atolldb/atoll/pkg/serialization"
)

// oneMap is the engine's view of a single map, "blobs".
type oneMap struct{ m *store.Map }

func (o oneMap) Lookup(name string) (*store.Map, bool) { return o.m, name == "blobs" }

func (o oneMap) Get(name string) (*store.Map, error) {
	if name != "blobs" {
		return nil, fmt.Errorf("no map %s here", name)
	}
	return o.m, nil
}

func (o oneMap) SetIndexObserver(string, store.Observer) error { return nil }

// fragmentWaits reports whether a fragment of this process waits for
// credit for its last batch (the deferred end of run) or for one before
// it (its batch callback).
func fragmentWaits() (last, before bool) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "server.(*fragmentStream).credit(") {
			continue
		}
		// run's deferred end is its first closure, the batch callback
		// its second.
		last = last || strings.Contains(g, "server.(*fragmentStream).run.func1(")
		before = before || strings.Contains(g, "server.(*fragmentStream).run.func2(")
	}
	return last, before
}

// TestFragmentsStreamCredits drives a fragments stream by hand with a
// window of one batch: the member sends one batch per credit, never more,
// and a fragment that finished scanning waits for the credit of its last
// batch, which travels with the end.
func TestFragmentsStreamCredits(t *testing.T) {
	ser, err := serialization.NewService(serialization.Config{})
	require.NoError(t, err)
	m, err := store.NewMap(store.MapConfig{Name: "blobs", PartitionCount: 271})
	require.NoError(t, err)
	const n = 400
	for k := int32(0); k < n; k++ {
		kd, err := ser.ToData(k)
		require.NoError(t, err)
		vd, err := ser.ToData(strings.Repeat("v", 1000))
		require.NoError(t, err)
		require.NoError(t, m.Set(serialization.Data(kd).PartitionID(271), kd, vd, store.Expiry{}))
	}
	self := partition.Member{UUID: partition.NewUUID(), Address: "self"}
	h := &partition.Holder{}
	h.Store(partition.Single(self, 271))
	eng := exec.New(exec.Config{Maps: oneMap{m}, Serialization: ser, Table: h, Self: self.UUID})
	defer eng.Close()
	s := New(Config{Query: &QueryConfig{Engine: eng}})

	coord, member := net.Pipe()
	defer coord.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.ServeFragments(member, frame.NewReader(member, 64<<10, 1<<26, 1<<26), frame.NoTraffic{})
	}()
	send := func(c *memberpb.FragmentCall) {
		b, err := proto.Marshal(c)
		require.NoError(t, err)
		_, err = coord.Write(frame.Append(nil, frame.KindCall, b))
		require.NoError(t, err)
	}
	rd := frame.NewReader(coord, 64<<10, 1<<26, 1<<26)
	recv := func() *memberpb.FragmentReply {
		require.NoError(t, coord.SetReadDeadline(time.Now().Add(time.Minute)))
		f, err := rd.Next()
		require.NoError(t, err, "no reply from the member")
		r := &memberpb.FragmentReply{}
		require.NoError(t, proto.Unmarshal(f.Payload, r))
		return r
	}

	// Every entry's key and value: about 400 KB, several 64 KB batches.
	f := &plan.Fragment{Map: "blobs", Cols: []plan.ScanCol{{Path: "__key", Type: expr.Integer}, {Path: "this", Type: expr.Varchar}}, Limit: -1,
		Project: []expr.Expr{&expr.Col{Index: 0, T: expr.Integer}, &expr.Col{Index: 1, T: expr.Varchar}},
		Out:     []plan.Column{{Type: expr.Integer}, {Type: expr.Varchar}}}
	body, err := plan.MarshalFragment(f)
	require.NoError(t, err)
	all := make([]int32, 271)
	for i := range all {
		all[i] = int32(i)
	}
	send(&memberpb.FragmentCall{CallId: 3, Window: 1, Op: &memberpb.FragmentCall_Run{Run: &pb.RunFragmentRequest{Fragment: body, Partitions: all, TimeoutMs: 60_000}}})

	rows, batches := 0, 0
	for {
		r := recv()
		require.Equal(t, uint64(3), r.CallId)
		require.Empty(t, r.Status, "the fragment failed")
		rows += int(r.Count)
		batches++
		if r.End {
			break
		}
		// One batch per credit: the member now waits, for the credit of
		// a batch before the last or, once it scanned everything, of the
		// last one.
		var last, before bool
		for deadline := time.Now().Add(time.Minute); !last && !before; time.Sleep(time.Millisecond) {
			require.True(t, time.Now().Before(deadline), "the fragment does not wait for credit after a batch")
			last, before = fragmentWaits()
		}
		if last {
			send(&memberpb.FragmentCall{CallId: 3, Op: &memberpb.FragmentCall_Credit{Credit: 1}})
			r := recv()
			require.True(t, r.End, "the last batch travels with the end")
			require.Empty(t, r.Status, "the fragment failed")
			rows += int(r.Count)
			batches++
			break
		}
		send(&memberpb.FragmentCall{CallId: 3, Op: &memberpb.FragmentCall_Credit{Credit: 1}})
	}
	require.Equal(t, n, rows)
	require.Greater(t, batches, 3, "batches of the fragment")

	_ = coord.Close()
	<-served
}
