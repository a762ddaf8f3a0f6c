package partition

import "testing"

func TestHolderPublishesOnlyNewerTables(t *testing.T) {
	var h Holder
	ch, cancel := h.Subscribe()
	defer cancel()
	m := Member{UUID: NewUUID(), Address: "127.0.0.1:5701"}
	t1 := Single(m, 271)
	if !h.Store(t1) {
		t.Fatal("first table refused")
	}
	t0 := &Table{Version: 0}
	if h.Store(t0) || h.Load() != t1 {
		t.Fatal("older table replaced a newer one")
	}
	t2 := &Table{Version: 2, Members: t1.Members, Owners: t1.Owners, Backups: t1.Backups}
	h.Store(t2)
	if got := <-ch; got != t2 {
		t.Fatalf("subscriber got version %d, want the latest (2)", got.Version)
	}
	if owner, ok := t2.Owner(270); !ok || owner.UUID != m.UUID {
		t.Fatal("owner of partition 270")
	}
	if _, ok := t2.Owner(271); ok {
		t.Fatal("partition 271 is out of range")
	}
}
