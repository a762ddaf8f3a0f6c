package partition

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHolderPublishesOnlyNewerTables(t *testing.T) {
	var h Holder
	ch, cancel := h.Subscribe()
	defer cancel()
	m := Member{UUID: NewUUID(), Address: "127.0.0.1:5701"}
	t1 := Single(m, 271)
	require.True(t, h.Store(t1), "the first table is taken")
	t0 := &Table{Version: 0}
	require.False(t, h.Store(t0), "an older table is refused")
	require.Same(t, t1, h.Load(), "an older table does not replace a newer one")
	t2 := &Table{Version: 2, Members: t1.Members, Owners: t1.Owners, Backups: t1.Backups}
	h.Store(t2)
	require.Same(t, t2, <-ch, "the subscriber gets the latest table")
	owner, ok := t2.Owner(270)
	require.True(t, ok, "partition 270 has an owner")
	require.Equal(t, m.UUID, owner.UUID)
	_, ok = t2.Owner(271)
	require.False(t, ok, "partition 271 is out of range")
}
