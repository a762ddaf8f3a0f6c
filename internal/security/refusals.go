package security

import (
	"sync"
	"time"
)

// RefusalLog decides when a refusal is worth a log line: the first for a
// key, then at most one per Interval, each saying how many refusals of
// that key it stands for. Keys are what the refusals are about (an
// address, a principal and an action); their number is bounded, and past
// the bound refusals of new keys are counted elsewhere but not logged. It
// is safe for concurrent use.
type RefusalLog struct {
	Interval time.Duration
	// MaxKeys bounds the keys remembered (default 4096).
	MaxKeys int

	mu   sync.Mutex
	keys map[string]*refusals
}

type refusals struct {
	at    time.Time
	since int
}

// Note records a refusal for key at now and reports whether to log it,
// with the number of refusals of key it stands for.
func (l *RefusalLog) Note(key string, now time.Time) (log bool, count int) {
	maxKeys := l.MaxKeys
	if maxKeys <= 0 {
		maxKeys = 4096
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys == nil {
		l.keys = map[string]*refusals{}
	}
	r := l.keys[key]
	if r == nil {
		if len(l.keys) >= maxKeys {
			for k, old := range l.keys {
				if now.Sub(old.at) >= l.Interval {
					delete(l.keys, k)
				}
			}
			if len(l.keys) >= maxKeys {
				return false, 0
			}
		}
		r = &refusals{}
		l.keys[key] = r
	}
	r.since++
	if !r.at.IsZero() && now.Sub(r.at) < l.Interval {
		return false, 0
	}
	count = r.since
	r.at, r.since = now, 0
	return true, count
}
