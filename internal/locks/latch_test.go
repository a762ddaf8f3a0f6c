package locks

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLatchSerializesOneKey(t *testing.T) {
	l := NewLatches()
	s := l.Stripe(7, "m", []byte("k"))
	require.Equal(t, s, l.Stripe(7, "m", []byte("k")), "a key's stripe is stable")
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				l.Lock(s)
				n++
				l.Unlock(s)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 8000, n)
}

func TestLockAllTakesEachStripeOnce(t *testing.T) {
	l := NewLatches()
	got := l.LockAll([]int{5, 3, 5, 1, 3})
	assert.Equal(t, []int{1, 3, 5}, got)
	l.UnlockAll(got)
	// Two callers locking overlapping sets in different orders never deadlock.
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 500; j++ {
				s := l.LockAll([]int{(i + j) % 7, (j * 3) % 7, 6 - i})
				l.UnlockAll(s)
			}
		}()
	}
	wg.Wait()
}

func TestWaitersWakeOnNotify(t *testing.T) {
	w := NewWaiters()
	ch := w.Watch(1, "m", []byte("k"))
	other := w.Watch(1, "m", []byte("j"))
	w.Notify(1, "m", []byte("k"))
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("Notify did not wake the watcher")
	}
	select {
	case <-other:
		t.Fatal("Notify of another key woke the watcher")
	default:
	}
}
