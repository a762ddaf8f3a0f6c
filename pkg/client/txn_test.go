package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// TestTransactions runs the transaction and lock contract on two
// in-process members (keys of a transaction then live on both).
func TestTransactions(t *testing.T) {
	cluster := testcluster.Start(t, testcluster.InProcess, 2, testcluster.Options{})
	waitReady(t, cluster)
	cl := connect(t, cluster, client.Config{})
	other := connect(t, cluster, client.Config{})
	t.Run("CommitAndReadYourWrites", func(t *testing.T) { testTxCommit(t, cl) })
	t.Run("WriteWriteConflictThenRetry", func(t *testing.T) { testTxWriteConflict(t, cl, other) })
	if testing.Short() {
		return
	}
	t.Run("ReadOnlyValidation", func(t *testing.T) { testTxReadOnly(t, cl, other) })
	t.Run("ReadThenChangedCannotCommit", func(t *testing.T) { testTxReadChanged(t, cl, other) })
	t.Run("OnePhase", func(t *testing.T) { testTxOnePhase(t, cl, other) })
	t.Run("GetForUpdate", func(t *testing.T) { testTxGetForUpdate(t, cl, other) })
	t.Run("RollbackAndErrors", func(t *testing.T) { testTxRollback(t, cl) })
	t.Run("ExpiredLockRolledBack", func(t *testing.T) { testTxExpiredRolledBack(t, cl, other) })
	t.Run("CommittedLockRolledForward", func(t *testing.T) { testTxRolledForward(t, cl, other) })
	t.Run("PlainWriteWaitsForLock", func(t *testing.T) { testTxPlainWriteWaits(t, cl, other) })
	t.Run("MapLocks", func(t *testing.T) { testMapLocks(t, cluster, cl, other) })
}

// waitReady waits until the partitions are spread over the members and
// backed up, so that transactions span both members.
func waitReady(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	c.WaitStable(1, 60*time.Second)
}

// keysOnBothMembers returns n keys (prefix-i) whose partitions' owners
// alternate, as the cluster's table says now: a transaction over any two
// consecutive ones spans both members.
func keysOnBothMembers(t *testing.T, cl *client.Client, prefix string, n int) []string {
	t.Helper()
	st, err := cl.ClusterState(ctxT(t))
	require.NoError(t, err)
	owners := make(map[int32]string, len(st.Partitions))
	for _, p := range st.Partitions {
		owners[p.ID] = p.Owner
	}
	var out []string
	last := ""
	for i := 0; len(out) < n; i++ {
		require.Less(t, i, 10000, "no key of another member than %s", last)
		k := fmt.Sprintf("%s-%d", prefix, i)
		kd, err := cl.Serialization().ToData(k)
		require.NoError(t, err)
		if owner := owners[serialization.Data(kd).PartitionID(int32(len(owners)))]; owner != "" && owner != last {
			out, last = append(out, k), owner
		}
	}
	return out
}

// setAll sets every key of keys to v in m.
func setAll[V any](t *testing.T, m *client.Map[string, V], keys []string, v V) {
	t.Helper()
	ctx := ctxT(t)
	for _, k := range keys {
		require.NoError(t, m.Set(ctx, k, v))
	}
}

func testTxCommit(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	accounts := client.GetMap[string, int64](cl, "tx-accounts")
	log := client.GetMap[string, string](cl, "tx-log")
	require.NoError(t, accounts.Set(ctx, "alice", 100))
	require.NoError(t, accounts.Set(ctx, "bob", 50))
	err := cl.RunInTransaction(ctx, func(tx *client.Tx) error {
		a := client.TxMap[string, int64](tx, "tx-accounts")
		l := client.TxMap[string, string](tx, "tx-log")
		from, ok, err := a.Get(ctx, "alice")
		if err != nil || !ok {
			return fmt.Errorf("alice: %v %v", ok, err)
		}
		to, _, err := a.Get(ctx, "bob")
		if err != nil {
			return err
		}
		if err := a.Set(ctx, "alice", from-30); err != nil {
			return err
		}
		old, existed, err := a.Put(ctx, "bob", to+30)
		if err != nil || !existed || old != 50 {
			return fmt.Errorf("put returned %d %v %v", old, existed, err)
		}
		// Reads see the transaction's own writes.
		if v, _, _ := a.Get(ctx, "alice"); v != 70 {
			return fmt.Errorf("read own write: %d", v)
		}
		if err := l.Set(ctx, "t1", "alice->bob 30"); err != nil {
			return err
		}
		// Not visible outside before commit.
		if _, found, _ := log.Get(ctx, "t1"); found {
			return errors.New("an uncommitted write is visible")
		}
		return nil
	})
	require.NoError(t, err)
	a, _, _ := accounts.Get(ctx, "alice")
	b, _, _ := accounts.Get(ctx, "bob")
	entry, found, _ := log.Get(ctx, "t1")
	assert.Equal(t, int64(70), a)
	assert.Equal(t, int64(80), b)
	assert.True(t, found)
	assert.Equal(t, "alice->bob 30", entry)

	// Remove and Delete, and ContainsKey of the transaction's own view.
	err = cl.RunInTransaction(ctx, func(tx *client.Tx) error {
		a := client.TxMap[string, int64](tx, "tx-accounts")
		old, existed, err := a.Remove(ctx, "alice")
		if err != nil || !existed || old != 70 {
			return fmt.Errorf("remove: %d %v %v", old, existed, err)
		}
		if ok, _ := a.ContainsKey(ctx, "alice"); ok {
			return errors.New("a removed key is still there in the transaction")
		}
		deleted, err := a.Delete(ctx, "nobody")
		if err != nil || deleted {
			return fmt.Errorf("delete of an absent key: %v %v", deleted, err)
		}
		return nil
	})
	require.NoError(t, err)
	_, found, _ = accounts.Get(ctx, "alice")
	assert.False(t, found)
}

func testTxWriteConflict(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int64](cl, "tx-ww")
	require.NoError(t, m.Set(ctx, "k", 1))
	require.NoError(t, m.Set(ctx, "j", 1))

	// Two transactions write the same keys: the first to commit wins, the
	// other conflicts.
	tx1, err := cl.Begin(ctx)
	require.NoError(t, err)
	tx2, err := other.Begin(ctx)
	require.NoError(t, err)
	for _, tx := range []*client.Tx{tx1, tx2} {
		tm := client.TxMap[string, int64](tx, "tx-ww")
		v, _, err := tm.Get(ctx, "k")
		require.NoError(t, err)
		require.NoError(t, tm.Set(ctx, "k", v+1))
		require.NoError(t, tm.Set(ctx, "j", v+1))
	}
	require.NoError(t, tx1.Commit(ctx))
	err = tx2.Commit(ctx)
	require.ErrorIs(t, err, client.ErrConflict)
	var ce *client.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, client.CauseChanged, ce.Cause)
	v, _, _ := m.Get(ctx, "k")
	assert.Equal(t, int64(2), v)
	assert.NoError(t, lockFree(ctx, m, "k", "j"), "the losing transaction left no lock")

	// RunInTransaction retries: another transaction commits between the
	// first attempt's read and its commit; the second attempt succeeds.
	var attempts atomic.Int32
	err = cl.RunInTransaction(ctx, func(tx *client.Tx) error {
		tm := client.TxMap[string, int64](tx, "tx-ww")
		v, _, err := tm.Get(ctx, "k")
		if err != nil {
			return err
		}
		if attempts.Add(1) == 1 {
			require.NoError(t, other.RunInTransaction(ctx, func(tx *client.Tx) error {
				return client.TxMap[string, int64](tx, "tx-ww").Set(ctx, "k", 100)
			}))
		}
		if err := tm.Set(ctx, "j", v); err != nil {
			return err
		}
		return tm.Set(ctx, "k", v+1)
	})
	require.NoError(t, err)
	assert.Equal(t, int32(2), attempts.Load(), "the first attempt conflicted and the second committed")
	v, _, _ = m.Get(ctx, "k")
	assert.Equal(t, int64(101), v)

	// Attempts run out: a *ConflictError counting them.
	attempts.Store(0)
	err = cl.RunInTransaction(ctx, func(tx *client.Tx) error {
		tm := client.TxMap[string, int64](tx, "tx-ww")
		v, _, err := tm.Get(ctx, "k")
		if err != nil {
			return err
		}
		attempts.Add(1)
		require.NoError(t, m.Set(ctx, "k", v+1000)) // a plain write changes the key every time
		return tm.Set(ctx, "k", v+1)
	}, client.WithTxRetry(client.Backoff{Initial: time.Millisecond, Attempts: 3}))
	require.ErrorIs(t, err, client.ErrConflict)
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 3, ce.Attempts)
	assert.Equal(t, int32(3), attempts.Load())
	assert.GreaterOrEqual(t, cl.Stats().TxRetries, int64(3))
	assert.GreaterOrEqual(t, cl.Stats().TxConflicts, int64(1))
}

// lockFree checks that no key of keys is locked.
func lockFree[V any](ctx context.Context, m *client.Map[string, V], keys ...string) error {
	for _, k := range keys {
		locked, err := m.IsLocked(ctx, k)
		if err != nil {
			return err
		}
		if locked {
			return fmt.Errorf("key %q is locked", k)
		}
	}
	return nil
}

func testTxReadOnly(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "tx-ro")
	keys := keysOnBothMembers(t, cl, "ro", 4)
	setAll(t, m, keys, "v0")
	read := func(tx *client.Tx) {
		tm := client.TxMap[string, string](tx, "tx-ro")
		for _, k := range keys {
			_, _, err := tm.Get(ctx, k)
			require.NoError(t, err)
		}
	}
	// Unchanged: commits.
	tx, err := cl.Begin(ctx)
	require.NoError(t, err)
	read(tx)
	require.NoError(t, tx.Commit(ctx))
	// A key read changed before the commit: the read-only transaction
	// cannot commit (its reads were no snapshot).
	tx, err = cl.Begin(ctx)
	require.NoError(t, err)
	read(tx)
	require.NoError(t, client.GetMap[string, string](other, "tx-ro").Set(ctx, keys[3], "v1"))
	err = tx.Commit(ctx)
	require.ErrorIs(t, err, client.ErrConflict)
	var ce *client.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, client.CauseChanged, ce.Cause)
	// A key read absent that appeared.
	tx, err = cl.Begin(ctx)
	require.NoError(t, err)
	_, found, err := client.TxMap[string, string](tx, "tx-ro").Get(ctx, "absent")
	require.NoError(t, err)
	require.False(t, found)
	require.NoError(t, m.Set(ctx, "absent", "here"))
	require.ErrorIs(t, tx.Commit(ctx), client.ErrConflict)
	// A key removed and written again with another value: its version is
	// 1 again, its value tells it apart.
	require.NoError(t, m.Set(ctx, "again", "first"))
	tx, err = cl.Begin(ctx)
	require.NoError(t, err)
	_, _, err = client.TxMap[string, string](tx, "tx-ro").Get(ctx, "again")
	require.NoError(t, err)
	_, err = m.Delete(ctx, "again")
	require.NoError(t, err)
	require.NoError(t, m.Set(ctx, "again", "second"))
	require.ErrorIs(t, tx.Commit(ctx), client.ErrConflict)
}

func testTxReadChanged(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int64](cl, "tx-rc")
	keys := keysOnBothMembers(t, cl, "rc", 3)
	setAll(t, m, keys, 10)
	// The transaction reads keys[0] and keys[1] and writes keys[2];
	// another transaction changes keys[1] before it commits.
	tx, err := cl.Begin(ctx)
	require.NoError(t, err)
	tm := client.TxMap[string, int64](tx, "tx-rc")
	a, _, err := tm.Get(ctx, keys[0])
	require.NoError(t, err)
	b, _, err := tm.Get(ctx, keys[1])
	require.NoError(t, err)
	require.NoError(t, tm.Set(ctx, keys[2], a+b))
	require.NoError(t, other.RunInTransaction(ctx, func(tx *client.Tx) error {
		return client.TxMap[string, int64](tx, "tx-rc").Set(ctx, keys[1], 99)
	}))
	err = tx.Commit(ctx)
	require.ErrorIs(t, err, client.ErrConflict)
	v, _, _ := m.Get(ctx, keys[2])
	assert.Equal(t, int64(10), v, "the transaction took no effect")
	assert.NoError(t, lockFree(ctx, m, keys...))
}

func testTxOnePhase(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int64](cl, "tx-1p")
	require.NoError(t, m.Set(ctx, "n", 0))
	// Concurrent increments of one key, each a transaction of that key:
	// none is lost.
	const n = 40
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		c := cl
		if i%2 == 1 {
			c = other
		}
		go func() {
			errs <- c.RunInTransaction(ctx, func(tx *client.Tx) error {
				tm := client.TxMap[string, int64](tx, "tx-1p")
				v, _, err := tm.Get(ctx, "n")
				if err != nil {
					return err
				}
				return tm.Set(ctx, "n", v+1)
			}, client.WithTxRetry(client.Backoff{Initial: time.Millisecond, Max: 50 * time.Millisecond, Attempts: 1000}))
		}()
	}
	for i := 0; i < n; i++ {
		require.NoError(t, <-errs)
	}
	v, _, _ := m.Get(ctx, "n")
	assert.Equal(t, int64(n), v)
}

func testTxGetForUpdate(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int64](cl, "tx-gfu")
	require.NoError(t, m.Set(ctx, "k", 5))
	tx1, err := cl.Begin(ctx)
	require.NoError(t, err)
	v, found, err := client.TxMap[string, int64](tx1, "tx-gfu").GetForUpdate(ctx, "k")
	require.NoError(t, err)
	require.True(t, found)
	assert.Equal(t, int64(5), v)
	st, err := m.LockState(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Locked && st.Transaction)

	// Another transaction cannot lock it: it waits its lock wait, then conflicts.
	tx2, err := other.Begin(ctx, client.WithLockWait(100*time.Millisecond))
	require.NoError(t, err)
	_, _, err = client.TxMap[string, int64](tx2, "tx-gfu").GetForUpdate(ctx, "k")
	require.ErrorIs(t, err, client.ErrConflict)
	require.NoError(t, tx2.Rollback(ctx))
	// A plain read does not wait for it (it writes nothing yet).
	got, _, err := m.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, int64(5), got)

	require.NoError(t, client.TxMap[string, int64](tx1, "tx-gfu").Set(ctx, "k", v*2))
	require.NoError(t, tx1.Commit(ctx))
	got, _, _ = m.Get(ctx, "k")
	assert.Equal(t, int64(10), got)
	waitFor(t, "the primary's lock released", func() bool { return lockFree(ctx, m, "k") == nil })

	// GetForUpdate then only reads: the commit releases the lock.
	tx3, err := cl.Begin(ctx)
	require.NoError(t, err)
	_, _, err = client.TxMap[string, int64](tx3, "tx-gfu").GetForUpdate(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, tx3.Commit(ctx))
	assert.NoError(t, lockFree(ctx, m, "k"))
}

func testTxRollback(t *testing.T, cl *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, int64](cl, "tx-rb")
	require.NoError(t, m.Set(ctx, "k", 1))
	tx, err := cl.Begin(ctx)
	require.NoError(t, err)
	tm := client.TxMap[string, int64](tx, "tx-rb")
	_, _, err = tm.GetForUpdate(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, tm.Set(ctx, "k", 2))
	require.NoError(t, tx.Rollback(ctx))
	assert.ErrorIs(t, tx.Commit(ctx), client.ErrTxDone)
	assert.ErrorIs(t, tm.Set(ctx, "k", 3), client.ErrTxDone)
	v, _, _ := m.Get(ctx, "k")
	assert.Equal(t, int64(1), v)
	assert.NoError(t, lockFree(ctx, m, "k"))

	// An error of the function rolls back and is returned as is.
	boom := errors.New("boom")
	err = cl.RunInTransaction(ctx, func(tx *client.Tx) error {
		if err := client.TxMap[string, int64](tx, "tx-rb").Set(ctx, "k", 9); err != nil {
			return err
		}
		return boom
	})
	assert.Same(t, boom, err)
	v, _, _ = m.Get(ctx, "k")
	assert.Equal(t, int64(1), v)

	// Bad options are refused.
	_, err = cl.Begin(ctx, client.WithTxLease(0))
	assert.ErrorIs(t, err, client.ErrInvalidArgument)
}

// dieInCommit plays a client that dies in the middle of a commit: cl
// begins a transaction with lease that writes value under every key of
// mapName, and runs its commit only as far as stage does
// (client.CommitUntilLocked or client.CommitUntilCommitted).
func dieInCommit(t *testing.T, cl *client.Client, lease time.Duration, mapName string, keys []string, value string, stage func(context.Context, *client.Tx) error) {
	t.Helper()
	ctx := ctxT(t)
	tx, err := cl.Begin(ctx, client.WithTxLease(lease))
	require.NoError(t, err)
	tm := client.TxMap[string, string](tx, mapName)
	for _, k := range keys {
		require.NoError(t, tm.Set(ctx, k, value))
	}
	require.NoError(t, stage(ctx, tx))
}

func testTxExpiredRolledBack(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](other, "tx-exp-back")
	keys := keysOnBothMembers(t, cl, "back", 3)
	setAll(t, m, keys, "before")
	// A client locks every key and dies before it commits.
	dieInCommit(t, cl, time.Second, "tx-exp-back", keys, "after", client.CommitUntilLocked)
	start := time.Now()
	// A plain write waits for the lock, then, the lease over, resolves it
	// from the primary: not committed, rolled back; the write goes in.
	require.NoError(t, m.Set(ctx, keys[0], "plain"))
	assert.GreaterOrEqual(t, time.Since(start), 900*time.Millisecond, "the plain write waited for the lease")
	// Readers of the other keys find them rolled back too.
	for _, k := range keys[1:] {
		v, _, err := m.Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, "before", v, k)
	}
	v, _, err := m.Get(ctx, keys[0])
	require.NoError(t, err)
	assert.Equal(t, "plain", v)
	assert.NoError(t, lockFree(ctx, m, keys...))
}

func testTxRolledForward(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](other, "tx-exp-fwd")
	keys := keysOnBothMembers(t, cl, "fwd", 4)
	setAll(t, m, keys, "before")
	// A client commits and dies before it applies its other keys.
	dieInCommit(t, cl, time.Minute, "tx-exp-fwd", keys, "after", client.CommitUntilCommitted)
	// A reader of any key sees the committed value: it asks the primary
	// and rolls the transaction forward, long before the lease ends.
	for _, k := range keys {
		v, _, err := m.Get(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, "after", v, k)
	}
	waitFor(t, "every lock resolved", func() bool { return lockFree(ctx, m, keys...) == nil })

	// A transaction that meets a committed transaction's locks rolls it
	// forward as well, reads what it wrote and commits on top of it.
	dieInCommit(t, cl, time.Minute, "tx-exp-fwd", keys, "again", client.CommitUntilCommitted)
	last := keys[len(keys)-1]
	require.NoError(t, other.RunInTransaction(ctx, func(tx *client.Tx) error {
		tm := client.TxMap[string, string](tx, "tx-exp-fwd")
		for _, k := range keys {
			v, _, err := tm.Get(ctx, k)
			if err != nil {
				return err
			}
			if v != "again" {
				return fmt.Errorf("%s: read %q under a committed transaction's lock", k, v)
			}
		}
		return tm.Set(ctx, last, "on top")
	}))
	for _, k := range keys {
		want := "again"
		if k == last {
			want = "on top"
		}
		v, _, _ := m.Get(ctx, k)
		assert.Equal(t, want, v, k)
	}
	waitFor(t, "every lock resolved", func() bool { return lockFree(ctx, m, keys...) == nil })

	// The same with nobody reading: the members' sweep resolves the locks
	// once their lease is over.
	dieInCommit(t, cl, 500*time.Millisecond, "tx-exp-fwd", keys, "swept", client.CommitUntilCommitted)
	waitFor(t, "the sweep resolved every lock", func() bool {
		for _, k := range keys {
			st, err := m.LockState(ctx, k)
			if err != nil || st.Locked {
				return false
			}
		}
		return true
	})
	for _, k := range keys {
		v, _, _ := m.Get(ctx, k)
		assert.Equal(t, "swept", v, k)
	}
}

func testTxPlainWriteWaits(t *testing.T, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](other, "tx-plain")
	require.NoError(t, m.Set(ctx, "k", "v0"))
	tx, err := cl.Begin(ctx)
	require.NoError(t, err)
	_, _, err = client.TxMap[string, string](tx, "tx-plain").GetForUpdate(ctx, "k")
	require.NoError(t, err)
	// A plain write waits while the transaction holds the key.
	done := make(chan error, 1)
	go func() { done <- m.Set(ctx, "k", "plain") }()
	select {
	case err := <-done:
		t.Fatalf("a plain write went through a transaction's lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	require.NoError(t, client.TxMap[string, string](tx, "tx-plain").Set(ctx, "k", "tx"))
	require.NoError(t, tx.Commit(ctx))
	require.NoError(t, <-done)
	v, _, _ := m.Get(ctx, "k")
	assert.Equal(t, "plain", v, "the plain write went after the transaction")
}

func testMapLocks(t *testing.T, cluster *testcluster.Cluster, cl, other *client.Client) {
	ctx := ctxT(t)
	m := client.GetMap[string, string](cl, "locks")
	o := client.GetMap[string, string](other, "locks")
	require.NoError(t, m.Set(ctx, "k", "v0"))

	require.NoError(t, m.Lock(ctx, "k"))
	require.NoError(t, m.Lock(ctx, "k")) // reentrant
	st, err := m.LockState(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, client.LockState{Locked: true, HeldByMe: true, Count: 2, RemainingLease: st.RemainingLease}, st)
	st, err = o.LockState(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Locked)
	assert.False(t, st.HeldByMe)

	// The holder writes; another client's write waits; reads do not.
	require.NoError(t, m.Set(ctx, "k", "v1"))
	v, _, err := o.Get(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "v1", v)
	ok, err := o.TryLock(ctx, "k", 50*time.Millisecond)
	require.NoError(t, err)
	assert.False(t, ok)
	assert.ErrorIs(t, o.Unlock(ctx, "k"), client.ErrNotLockOwner)
	done := make(chan error, 1)
	go func() { done <- o.Set(ctx, "k", "other") }()
	select {
	case err := <-done:
		t.Fatalf("a write went through another client's lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	// A transaction cannot lock it either.
	err = other.RunInTransaction(ctx, func(tx *client.Tx) error {
		return client.TxMap[string, string](tx, "locks").Set(ctx, "k", "tx")
	}, client.WithTxRetry(client.Backoff{Initial: time.Millisecond, Attempts: 2}))
	require.ErrorIs(t, err, client.ErrConflict)
	require.NoError(t, m.Unlock(ctx, "k"))
	select {
	case <-done:
		t.Fatal("the write went through after one of two unlocks")
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, m.Unlock(ctx, "k"))
	require.NoError(t, <-done)
	v, _, _ = m.Get(ctx, "k")
	assert.Equal(t, "other", v)

	// A lease ends the lock.
	require.NoError(t, m.Lock(ctx, "leased", client.WithLease(300*time.Millisecond)))
	ok, err = o.TryLock(ctx, "leased", 10*time.Second)
	require.NoError(t, err)
	assert.True(t, ok, "the lock was free once its lease ended")
	require.NoError(t, o.ForceUnlock(ctx, "leased"))
	assert.NoError(t, lockFree(ctx, m, "leased"))

	// The end of a client's session releases its locks.
	third := connect(t, cluster, client.Config{})
	require.NoError(t, client.GetMap[string, string](third, "locks").Lock(ctx, "session"))
	locked, err := m.IsLocked(ctx, "session")
	require.NoError(t, err)
	require.True(t, locked)
	require.NoError(t, third.Close())
	waitFor(t, "the closed client's lock released", func() bool {
		locked, err := m.IsLocked(ctx, "session")
		return err == nil && !locked
	})
}

// A commit whose outcome is unknown is never taken for a conflict (which
// would run the transaction again) even when what its last attempt met was
// one.
func TestCommitUnknownIsNoConflict(t *testing.T) {
	conflict := &client.Error{Code: 10, Message: "transaction conflict"}
	err := error(&client.CommitUnknownError{Last: fmt.Errorf("wrapped: %w", client.ErrConflict)})
	assert.ErrorIs(t, err, client.ErrCommitUnknown)
	assert.NotErrorIs(t, err, client.ErrConflict)
	var ce *client.ConflictError
	assert.False(t, errors.As(err, &ce))
	var e *client.Error
	assert.False(t, errors.As(&client.CommitUnknownError{Last: conflict}, &e), "the last attempt's error is not reachable through Unwrap")
	assert.Contains(t, err.Error(), "outcome unknown")
}
