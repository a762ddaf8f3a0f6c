package member_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/frame"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

func dialWith(t *testing.T, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

// openReplicationStream opens a framed replication stream at addr without
// the member handshake and returns the refusal it meets (nil if it was
// accepted).
func openReplicationStream(addr string) error {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(time.Minute))
	hello, err := proto.Marshal(&memberv1.FramedStreamHello{Stream: "replicate", Member: "127.0.0.1:1"})
	if err != nil {
		return err
	}
	if _, err := nc.Write(frame.Append(append([]byte(nil), frame.Preamble...), frame.KindHello, hello)); err != nil {
		return err
	}
	rd := frame.NewReader(nc, 4096, 1<<20, 1<<20)
	f, err := rd.Next()
	if err != nil {
		return err
	}
	if f.Kind == frame.KindHello && f.Size == 0 {
		return nil // a member stream's welcome
	}
	welcome := &pb.PipelineWelcome{}
	if err := proto.Unmarshal(f.Payload, welcome); err != nil {
		return err
	}
	if welcome.Error == nil {
		return nil
	}
	if _, err := rd.Next(); err == nil {
		return errors.New("the refused connection stays open")
	}
	return errors.New(welcome.Error.Message)
}

// callAll makes every kind of member-to-member call that could change
// something, and returns the error of each.
func callAll(ctx context.Context, cc *grpc.ClientConn, victim []byte, key, value []byte, pid int32) map[string]error {
	ms := memberv1.NewMemberServiceClient(cc)
	out := map[string]error{}
	_, out["Leave"] = ms.Leave(ctx, &memberv1.LeaveRequest{Uuid: victim})
	_, out["Handoff"] = ms.Handoff(ctx, &memberv1.HandoffRequest{Partition: pid, ToUuid: victim})
	_, out["CatchUp"] = ms.CatchUp(ctx, &memberv1.CatchUpRequest{Partition: pid, MemberUuids: [][]byte{victim}})
	_, out["PutCatalog"] = ms.PutCatalog(ctx, &memberv1.CatalogChanges{Changes: [][]byte{[]byte(`{"kind":"drop-mapping","name":"victim"}`)}})
	_, out["GetCatalog"] = ms.GetCatalog(ctx, &memberv1.Ack{})
	_, out["PublishTable"] = ms.PublishTable(ctx, &memberv1.TableMessage{})
	_, out["PutMetadata"] = ms.PutMetadata(ctx, &pb.MetadataList{})
	out["Merge"] = func() error {
		st, err := ms.Merge(ctx)
		if err != nil {
			return err
		}
		if err := st.Send(&memberv1.MergeBatch{Entries: []*memberv1.MergeEntry{{Map: "victim", Key: key, Value: value, Partition: pid}}}); err != nil {
			_, err = st.CloseAndRecv()
			return err
		}
		_, err = st.CloseAndRecv()
		return err
	}()
	out["Sync"] = func() error {
		st, err := ms.Sync(ctx)
		if err != nil {
			return err
		}
		_ = st.Send(&memberv1.SyncChunk{OwnerUuid: victim, Partition: pid})
		_ = st.Send(&memberv1.SyncChunk{Map: "victim", Data: []byte{1, 2, 3}})
		_, err = st.CloseAndRecv()
		return err
	}()
	xs := memberv1.NewExchangeServiceClient(cc)
	_, out["ExchangeStats"] = xs.Stats(ctx, &memberv1.ExchangeStatsRequest{Clear: true})
	out["Exchange"] = func() error {
		st, err := xs.Exchange(ctx)
		if err != nil {
			return err
		}
		_ = st.Send(&memberv1.ExchangeMessage{QueryId: []byte("0123456789abcdef"), Rows: []byte{1, 2, 3}, Count: 1})
		_, err = st.Recv()
		return err
	}()
	out["RunFragment"] = func() error {
		st, err := pb.NewQueryServiceClient(cc).RunFragment(ctx, &pb.RunFragmentRequest{Partitions: []int32{pid}})
		if err != nil {
			return err
		}
		_, err = st.Recv()
		return err
	}()
	return out
}

// TestMemberOnlyCalls: a plain gRPC client on a member's address cannot make
// member-to-member calls (each is refused with PermissionDenied, counted,
// and logged once for its address) and changes nothing; strangers learn
// neither the cluster name nor member ids from refusals; a member
// connection of another cluster is refused at the handshake; entries that a
// member connection merges or replicates are checked like a client's write.
func TestMemberOnlyCalls(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 2, testcluster.Options{ClusterName: "secret-name"})
	c.WaitStable(1, 3*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "secret-name"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	victim := client.GetMap[int32, string](cl, "victim")
	for k := int32(0); k < 100; k++ {
		if err := victim.Set(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	state0, err := testcluster.State(ctx, c.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	target := c.Members()[0]
	uuid := target.Member().UUID()

	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ser.ToData(int32(1_000_000))
	value, _ := ser.ToData("merged")
	pid := serialization.Data(key).PartitionID(271)

	// A plain client: every member-only call is refused.
	plain := dialWith(t, target.Addr, insecure.NewCredentials())
	errs := callAll(ctx, plain, uuid[:], key, value, pid)
	for call, err := range errs {
		if status.Code(err) != codes.PermissionDenied {
			t.Errorf("%s from a plain client: %v, want PermissionDenied", call, err)
			continue
		}
		msg := status.Convert(err).Message()
		if strings.Contains(msg, "secret-name") || strings.Contains(msg, uuid.String()) {
			t.Errorf("%s: the refusal names the cluster or the member: %s", call, msg)
		}
	}
	fams, err := target.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	refused, _ := series(fams, "atoll_calls_refused_total", nil)
	if int(refused) != len(errs) {
		t.Errorf("atoll_calls_refused_total = %v, want %d", refused, len(errs))
	}
	if n := strings.Count(target.Logs(), "refused member-only calls"); n != 1 {
		t.Errorf("the refusals were logged %d times, want once for the address:\n%s", n, target.Logs())
	}
	// Nothing changed: same table, same members, the map intact, the key
	// not merged.
	time.Sleep(2 * time.Second) // a Leave that got through would move partitions by now
	state1, err := testcluster.State(ctx, c.Addrs()[0])
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(state0.PartitionTable, state1.PartitionTable) || len(state1.Members) != 2 {
		t.Fatalf("the cluster changed after refused calls: table version %d -> %d, %d members",
			state0.PartitionTable.Version, state1.PartitionTable.Version, len(state1.Members))
	}
	if n, err := victim.Size(ctx); err != nil || n != 100 {
		t.Fatalf("victim holds %d entries (%v), want 100", n, err)
	}
	// A plain connection that opens a framed replication stream reaches
	// the clients' pipeline instead, which refuses its hello and closes.
	if err := openReplicationStream(target.Addr); err == nil || strings.Contains(err.Error(), "secret-name") {
		t.Fatalf("a replication stream from a plain connection: %v", err)
	}

	// A client naming another cluster is told only that its guess is wrong.
	_, err = client.New(ctx, client.Config{Addresses: c.Addrs()[:1], ClusterName: "guess"})
	if !errors.Is(err, client.ErrClusterName) || strings.Contains(err.Error(), "secret-name") {
		t.Fatalf("connecting with a wrong cluster name: %v", err)
	}
	// A member of another cluster cannot even open a member connection.
	other := dialWith(t, target.Addr, cluster.Credentials(cluster.HandshakeConfig{ClusterName: "guess", PartitionCount: 271}))
	_, err = memberv1.NewMemberServiceClient(other).GetCatalog(ctx, &memberv1.Ack{})
	if err == nil || strings.Contains(err.Error(), "secret-name") {
		t.Fatalf("a member connection of another cluster: %v", err)
	}

	// A member connection: malformed and misplaced entries are refused and
	// nothing is stored.
	member := dialWith(t, target.Addr, cluster.Credentials(cluster.HandshakeConfig{ClusterName: "secret-name", PartitionCount: 271}))
	ms := memberv1.NewMemberServiceClient(member)
	merge := func(e *memberv1.MergeEntry) error {
		st, err := ms.Merge(ctx)
		if err != nil {
			return err
		}
		if err := st.Send(&memberv1.MergeBatch{Entries: []*memberv1.MergeEntry{e}}); err != nil {
			_, err = st.CloseAndRecv()
			return err
		}
		_, err = st.CloseAndRecv()
		return err
	}
	for name, e := range map[string]*memberv1.MergeEntry{
		"a value that is not Data": {Map: "victim", Key: key, Value: []byte{1, 2, 3}, Partition: pid},
		"a key that is not Data":   {Map: "victim", Key: []byte{1, 2, 3}, Value: value, Partition: pid},
		"a misplaced key":          {Map: "victim", Key: key, Value: value, Partition: (pid + 1) % 271},
	} {
		if err := merge(e); status.Code(err) != codes.InvalidArgument {
			t.Errorf("merging %s: %v, want InvalidArgument", name, err)
		}
	}
	if !strings.Contains(target.Logs(), "refused an entry another member merged") {
		t.Errorf("the refused merges were not logged:\n%s", target.Logs())
	}
	if _, ok, err := client.GetMap[int32, string](cl, "victim").Get(ctx, 1_000_000); ok || err != nil {
		t.Fatalf("a refused merge stored its entry (%v)", err)
	}
	if _, err := cl.SQL(ctx, "CREATE MAPPING victim TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')"); err != nil {
		t.Fatal(err)
	}
	rows, err := cl.SQL(ctx, "SELECT COUNT(*) FROM victim")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Close(); err != nil || n != 100 {
		t.Fatalf("SQL counts %d entries in victim (%v), want 100", n, err)
	}
	// A well-formed entry merges.
	if err := merge(&memberv1.MergeEntry{Map: "victim", Key: key, Value: value, Partition: pid}); err != nil {
		t.Fatalf("merging a good entry over a member connection: %v", err)
	}

	// Handoffs and catch-ups of partitions out of range, or naming a member
	// that holds no backup of the partition, are refused, and the
	// partition stays open to writes.
	table := state1.PartitionTable
	self := int32(-1)
	for i, m := range table.Members {
		if string(m.Uuid) == string(uuid[:]) {
			self = int32(i)
		}
	}
	owned, backedUp := int32(-1), int32(-1) // a partition target owns, one it holds a backup of
	for p, o := range table.Owners {
		switch {
		case o == self && owned < 0:
			owned = int32(p)
		case o != self && backedUp < 0:
			backedUp = int32(p)
		}
	}
	if owned < 0 || backedUp < 0 {
		t.Fatalf("member %d owns no partition or all of them: %v", self, table.Owners)
	}
	stranger := make([]byte, 16)
	hctx, hcancel := context.WithTimeout(ctx, 20*time.Second)
	defer hcancel()
	for name, call := range map[string]func() error{
		"a handoff of partition -1": func() error {
			_, err := ms.Handoff(hctx, &memberv1.HandoffRequest{Partition: -1, ToUuid: uuid[:]})
			return err
		},
		"a handoff of partition 271": func() error {
			_, err := ms.Handoff(hctx, &memberv1.HandoffRequest{Partition: 271, ToUuid: uuid[:]})
			return err
		},
		"a handoff to a member without a backup": func() error {
			_, err := ms.Handoff(hctx, &memberv1.HandoffRequest{Partition: owned, ToUuid: stranger, TableVersion: table.Version})
			return err
		},
		"a handoff of a partition the member does not own": func() error {
			_, err := ms.Handoff(hctx, &memberv1.HandoffRequest{Partition: backedUp, ToUuid: uuid[:], TableVersion: table.Version})
			return err
		},
		"a catch-up of partition 1 000 000": func() error {
			_, err := ms.CatchUp(hctx, &memberv1.CatchUpRequest{Partition: 1_000_000, MemberUuids: [][]byte{uuid[:]}})
			return err
		},
		"a catch-up of a member without a backup": func() error {
			_, err := ms.CatchUp(hctx, &memberv1.CatchUpRequest{Partition: owned, MemberUuids: [][]byte{stranger}})
			return err
		},
		"a catch-up with a malformed member id": func() error {
			_, err := ms.CatchUp(hctx, &memberv1.CatchUpRequest{Partition: owned, MemberUuids: [][]byte{{1, 2, 3}}})
			return err
		},
	} {
		// Refused at once: one that waited for its deadline was let through.
		if err := call(); err == nil || status.Code(err) == codes.DeadlineExceeded {
			t.Errorf("%s was not refused: %v", name, err)
		}
	}
	// A key of the partition target owns still takes writes.
	var ownedKey int32
	for ; ; ownedKey++ {
		d, _ := ser.ToData(ownedKey)
		if serialization.Data(d).PartitionID(271) == owned {
			break
		}
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := victim.Set(wctx, ownedKey, "after"); err != nil {
		t.Fatalf("a write to partition %d after refused handoffs: %v", owned, err)
	}

	// A copy of a partition holding a malformed chunk is refused, and the
	// backup's copy stays whole.
	maps := pb.NewMapServiceClient(plain)
	backups := func() int64 {
		st, err := maps.GetMapStats(ctx, &pb.MapRequest{Map: "victim"})
		if err != nil {
			t.Fatal(err)
		}
		return st.BackupEntryCount
	}
	before := backups()
	owner := table.Members[table.Owners[backedUp]].Uuid
	sync := func(chunks ...*memberv1.SyncChunk) error {
		st, err := ms.Sync(ctx)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			if err := st.Send(c); err != nil {
				break
			}
		}
		_, err = st.CloseAndRecv()
		return err
	}
	for name, chunks := range map[string][]*memberv1.SyncChunk{
		"a chunk that is not the export format": {{OwnerUuid: owner, Partition: backedUp}, {Map: "victim", Data: []byte{1, 2, 3}}},
		"a partition out of range":              {{OwnerUuid: owner, Partition: 271}},
		"a malformed owner id":                  {{OwnerUuid: []byte{1}, Partition: backedUp}},
	} {
		if err := sync(chunks...); err == nil {
			t.Errorf("a copy with %s was accepted", name)
		}
	}
	if after := backups(); after != before {
		t.Fatalf("refused copies changed the backup entries: %d -> %d", before, after)
	}
}
