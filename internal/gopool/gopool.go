// Package gopool runs short functions on goroutines that outlive them: a
// goroutine that finished one function waits a while for the next, so a
// function starts on a stack that earlier ones already grew instead of
// growing a new one from its smallest size, copy by copy, as a goroutine
// started per call does.
package gopool

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// IdleFrame is the function on top of the stack of a pool's goroutine
// waiting for work (for leak checks, which should not count it).
const IdleFrame = "github.com/atolldb/atoll/internal/gopool.(*Pool).run"

// Pool runs functions on kept goroutines. Safe for concurrent use.
type Pool struct {
	work     chan func()
	idle     time.Duration
	stop     chan struct{}
	stopOnce sync.Once
	kept     sync.WaitGroup
	started  atomic.Int64 // goroutines the pool started
	live     atomic.Int64 // of which still running
}

// New returns a pool whose goroutines end after waiting idle for work.
func New(idle time.Duration) *Pool {
	return &Pool{work: make(chan func()), idle: idle, stop: make(chan struct{})}
}

// Go runs fn on a goroutine of the pool: one waiting for work, else a new
// one. fn starts without pprof labels; it sets its own.
func (p *Pool) Go(fn func()) {
	select {
	case p.work <- fn:
	default:
		p.kept.Add(1)
		p.started.Add(1)
		p.live.Add(1)
		go p.run(fn)
	}
}

func (p *Pool) run(fn func()) {
	defer p.kept.Done()
	defer p.live.Add(-1)
	var t *time.Timer
	for {
		fn()
		pprof.SetGoroutineLabels(context.Background())
		if t == nil {
			t = time.NewTimer(p.idle)
		} else {
			t.Reset(p.idle)
		}
		select {
		case fn = <-p.work:
		case <-t.C:
			return
		case <-p.stop:
			t.Stop()
			return
		}
	}
}

// Close ends the goroutines waiting for work and waits for those running
// a function to finish it. Go may still be called: its functions then run
// on goroutines that end with them.
func (p *Pool) Close() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.kept.Wait()
}
