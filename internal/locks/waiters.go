package locks

import "sync"

// Waiters wakes the calls that wait for a key's lock to change. A caller
// takes the key's channel with Watch before it looks at the lock, waits on
// it, and looks again when it closes; whoever changes or removes a lock
// calls Notify. A change seen by Watch's caller is never missed: a Notify
// after Watch closes the channel Watch returned.
type Waiters struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// NewWaiters returns an empty set of waiters.
func NewWaiters() *Waiters { return &Waiters{m: map[string]chan struct{}{}} }

func waitKey(pid int32, mapName string, key []byte) string {
	b := make([]byte, 0, 4+len(mapName)+1+len(key))
	b = append(b, byte(pid>>24), byte(pid>>16), byte(pid>>8), byte(pid))
	b = append(b, mapName...)
	b = append(b, 0)
	return string(append(b, key...))
}

// Watch returns a channel that closes at the next Notify of the key.
func (w *Waiters) Watch(pid int32, mapName string, key []byte) <-chan struct{} {
	k := waitKey(pid, mapName, key)
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.m[k]
	if !ok {
		ch = make(chan struct{})
		w.m[k] = ch
	}
	return ch
}

// Notify wakes the waiters of the key.
func (w *Waiters) Notify(pid int32, mapName string, key []byte) {
	k := waitKey(pid, mapName, key)
	w.mu.Lock()
	ch, ok := w.m[k]
	if ok {
		delete(w.m, k)
	}
	w.mu.Unlock()
	if ok {
		close(ch)
	}
}
