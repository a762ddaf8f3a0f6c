package txtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// owners returns the address of each partition's owner, as the member at
// addr's table says.
func owners(t *testing.T, addr string) []string {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tbl, err := pb.NewClusterServiceClient(cc).GetPartitionTable(ctx, &pb.GetPartitionTableRequest{})
	require.NoError(t, err)
	out := make([]string, len(tbl.Owners))
	for p, o := range tbl.Owners {
		if o >= 0 {
			out[p] = tbl.Members[o].Address
		}
	}
	return out
}

// ownerOf returns the owner of a string key's partition.
func ownerOf(t *testing.T, c *client.Client, owners []string, key string) string {
	t.Helper()
	kd, err := c.Serialization().ToData(key)
	require.NoError(t, err)
	return owners[serialization.Data(kd).PartitionID(int32(len(owners)))]
}

// keysOn returns n keys (prefix-i) whose partitions member addr owns.
func keysOn(t *testing.T, c *client.Client, owners []string, addr, prefix string, n int) []string {
	var out []string
	for i := 0; len(out) < n; i++ {
		if k := fmt.Sprintf("%s-%d", prefix, i); ownerOf(t, c, owners, k) == addr {
			out = append(out, k)
		}
	}
	return out
}

func connect(t *testing.T, cluster *testcluster.Cluster, lease time.Duration) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.New(ctx, client.Config{Addresses: cluster.Addrs(), ClusterName: "test", TxLease: lease})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// deadClient plays a client that dies in the middle of a commit: it runs
// the protocol's calls (TransactionService) itself, up to a point, and
// never the rest. It writes value under every key, the first key being
// the primary.
type deadClient struct {
	t      *testing.T
	ser    *serialization.Service
	owners []string
	id     []byte
	mapN   string
	keys   [][]byte
	value  []byte
}

func newDeadClient(t *testing.T, c *client.Client, owners []string, mapName string, keys []string, value string) *deadClient {
	d := &deadClient{t: t, ser: c.Serialization(), owners: owners, id: []byte(fmt.Sprintf("%016d", time.Now().UnixNano()%1e16)), mapN: mapName}
	for _, k := range keys {
		kd, err := d.ser.ToData(k)
		require.NoError(t, err)
		d.keys = append(d.keys, kd)
	}
	vd, err := d.ser.ToData(value)
	require.NoError(t, err)
	d.value = vd
	return d
}

func (d *deadClient) call(ctx context.Context, key []byte, fn func(pb.TransactionServiceClient) error) {
	addr := d.owners[serialization.Data(key).PartitionID(int32(len(d.owners)))]
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(d.t, err)
	defer cc.Close()
	require.NoError(d.t, fn(pb.NewTransactionServiceClient(cc)))
}

// lock locks every key (blind writes of value), with lease.
func (d *deadClient) lock(ctx context.Context, lease time.Duration) {
	primary := &pb.MapKey{Map: d.mapN, Key: d.keys[0]}
	for _, k := range d.keys {
		d.call(ctx, k, func(tc pb.TransactionServiceClient) error {
			_, err := tc.Lock(ctx, &pb.TxLockRequest{TxnId: d.id, LeaseMs: lease.Milliseconds(), Primary: primary,
				Entries: []*pb.TxLockEntry{{Map: d.mapN, Key: k, Intent: pb.TxIntent_TX_INTENT_PUT, Value: d.value}}})
			return err
		})
	}
}

// commit commits at the primary; nothing else is applied.
func (d *deadClient) commit(ctx context.Context) {
	req := &pb.TxCommitRequest{TxnId: d.id, Primary: &pb.MapKey{Map: d.mapN, Key: d.keys[0]}}
	for _, k := range d.keys[1:] {
		req.Secondaries = append(req.Secondaries, &pb.MapKey{Map: d.mapN, Key: k})
	}
	d.call(ctx, d.keys[0], func(tc pb.TransactionServiceClient) error {
		_, err := tc.Commit(ctx, req)
		return err
	})
}

// TestOwnerKilledMidCommit kills, with SIGKILL, the member that owns a
// transaction's keys while the transaction is in its commit: the locks
// and the primary's state were on its backups, so nothing is lost. A
// transaction that had not committed is rolled back, one that had is
// rolled forward, by the readers that meet its locks on the new owners.
func TestOwnerKilledMidCommit(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{})
	cluster.WaitStable(1, time.Minute)
	ctx := ctxT(t)
	c := connect(t, cluster, time.Minute)
	reader := connect(t, cluster, time.Minute)
	m := client.GetMap[string, string](reader, "failover")
	live := cluster.Live()
	tbl := owners(t, live[0].Addr)

	// Locked, not committed: every key (the primary's too) on the victim.
	victim := live[1]
	locked := keysOn(t, c, tbl, victim.Addr, "locked", 3)
	// Committed, not applied: the primary on the victim, a secondary on a
	// member that stays.
	committed := append(keysOn(t, c, tbl, victim.Addr, "committed", 2), keysOn(t, c, tbl, live[2].Addr, "committed", 2)...)
	for _, k := range append(append([]string(nil), locked...), committed...) {
		require.NoError(t, m.Set(ctx, k, "before"))
	}
	newDeadClient(t, c, tbl, "failover", locked, "after").lock(ctx, time.Minute)
	dead := newDeadClient(t, c, tbl, "failover", committed, "after")
	dead.lock(ctx, time.Minute)
	dead.commit(ctx)
	for _, k := range committed[2:] {
		st, err := m.LockState(ctx, k)
		require.NoError(t, err)
		require.True(t, st.Locked && st.Transaction, "the secondary %s is locked before the kill", k)
	}

	victim.Kill()
	cluster.WaitStable(1, 2*time.Minute)

	// The locks of the uncommitted transaction moved to the new owners.
	for _, k := range locked {
		st, err := m.LockState(ctx, k)
		require.NoError(t, err)
		assert.True(t, st.Locked && st.Transaction, "the lock of %s survived its owner's death", k)
	}
	// A reader resolves them from the primary once their lease is over;
	// ForceUnlock does it now: the transaction had not committed.
	for _, k := range locked {
		require.NoError(t, m.ForceUnlock(ctx, k))
	}
	for _, k := range locked {
		v, _, err := m.Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, "before", v, k)
	}
	// The committed transaction: every key reads the committed value,
	// long before any lease ends (the primary's committed state survived).
	for _, k := range committed {
		v, _, err := m.Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, "after", v, k)
	}
	// Its client asks again for the commit it sent (as after a lost
	// answer): committed, whoever finished it.
	dead.owners = owners(t, cluster.Live()[0].Addr)
	dead.commit(ctx)
	for _, k := range committed {
		require.Eventually(t, func() bool {
			st, err := m.LockState(ctx, k)
			return err == nil && !st.Locked
		}, time.Minute, 50*time.Millisecond, "the lock of %s was resolved", k)
	}
}

// TestLocksMoveWithPartitions holds locks while members join and leave:
// the partition copies and handoffs carry them with the data.
func TestLocksMoveWithPartitions(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	ctx := ctxT(t)
	holder := connect(t, cluster, 5*time.Minute)
	other := connect(t, cluster, time.Minute)
	m := client.GetMap[string, string](holder, "moving")
	o := client.GetMap[string, string](other, "moving")
	first := cluster.Live()[0].Addr
	var held, txKeys []string
	for i := 0; i < 20; i++ {
		held = append(held, fmt.Sprintf("held-%d", i))
		txKeys = append(txKeys, fmt.Sprintf("tx-%d", i))
	}
	for _, k := range append(append([]string(nil), held...), txKeys...) {
		require.NoError(t, m.Set(ctx, k, "before"))
	}
	for _, k := range held {
		require.NoError(t, m.Lock(ctx, k, client.WithLease(5*time.Minute)))
	}
	newDeadClient(t, holder, owners(t, first), "moving", txKeys, "after").lock(ctx, 5*time.Minute)

	cluster.Add()
	cluster.Add()
	cluster.WaitStable(1, 2*time.Minute)
	tbl := owners(t, cluster.Live()[0].Addr)
	moved := 0
	for _, k := range held {
		if ownerOf(t, holder, tbl, k) != first {
			moved++
		}
	}
	require.Greater(t, moved, 0, "no key moved to the new members")
	t.Logf("%d of %d locked keys moved to new members", moved, len(held))
	checkHeld := func() {
		t.Helper()
		for _, k := range held {
			st, err := m.LockState(ctx, k)
			require.NoError(t, err)
			assert.True(t, st.Locked && st.HeldByMe, "the client's lock of %s moved with its partition", k)
			ok, err := o.TryLock(ctx, k, 0)
			require.NoError(t, err)
			assert.False(t, ok, "another client cannot take %s", k)
		}
		for _, k := range txKeys {
			st, err := o.LockState(ctx, k)
			require.NoError(t, err)
			assert.True(t, st.Locked && st.Transaction, "the transaction's lock of %s moved with its partition", k)
		}
	}
	checkHeld()
	// A reader still waits for the transaction's write lock on the new owner.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, _, err := o.Get(short, txKeys[0])
	cancel()
	assert.Error(t, err, "a plain read waited for the transaction's lock")

	// The first member leaves gracefully: its partitions are handed over.
	require.NoError(t, cluster.Members()[0].Stop(time.Minute))
	cluster.WaitStable(1, 2*time.Minute)
	checkHeld()
	for _, k := range held {
		require.NoError(t, m.Unlock(ctx, k))
	}
	for _, k := range txKeys {
		require.NoError(t, o.ForceUnlock(ctx, k)) // not committed: rolled back
		v, _, err := o.Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, "before", v)
	}
}
