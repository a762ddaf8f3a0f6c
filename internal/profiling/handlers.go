package profiling

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/pprof"
	"runtime"
	rpprof "runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"
)

// Register adds the profiling endpoints to mux:
//
//	/debug/pprof/                   index (net/http/pprof)
//	/debug/pprof/profile?seconds=N  CPU profile
//	/debug/pprof/wall?seconds=N     wall-clock profile (fgprof): on-CPU and off-CPU time alike
//	/debug/pprof/trace?seconds=N    execution trace
//	/debug/pprof/{heap,allocs,goroutine,mutex,block,threadcreate}[?seconds=N]
//	                                (allocs?seconds=N: the allocations made in those seconds,
//	                                with a garbage collection at each end of the window)
//	/debug/pprof/rates              GET: mutex and block sampling rates; POST mutex=N&block=N sets them
//
// The rates belong to the Go runtime, so they are shared by every member
// in the process. Both are off by default (Go's defaults): mutex=N
// samples one contention event in N, block=N one blocking event per N
// nanoseconds blocked (1 records all).
func Register(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/allocs", allocs)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", cpuProfile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/debug/pprof/wall", fgprof.Handler())
	mux.HandleFunc("GET /debug/pprof/rates", getRates)
	mux.HandleFunc("POST /debug/pprof/rates", setRates)
}

// cpuProfiles counts the CPU profiles being taken (CPUProfiling).
var cpuProfiles atomic.Int32

// cpuProfile serves a CPU profile, counted while it is taken.
func cpuProfile(w http.ResponseWriter, r *http.Request) {
	cpuProfiles.Add(1)
	defer cpuProfiles.Add(-1)
	pprof.Profile(w, r)
}

// CPUProfiling reports whether a CPU profile is being taken through
// /debug/pprof/profile: of the profiles served, only CPU profiles record
// pprof labels (goroutine profiles too, of the goroutines they catch).
// Work too short for a label to pay off, such as an index lookup run on a
// connection's reader, may go unlabelled while it reports false.
func CPUProfiling() bool { return cpuProfiles.Load() > 0 }

// blockRate remembers the block profile rate: the runtime has no getter.
var blockRate struct {
	sync.Mutex
	rate int
}

func getRates(w http.ResponseWriter, _ *http.Request) {
	blockRate.Lock()
	block := blockRate.rate
	blockRate.Unlock()
	fmt.Fprintf(w, "mutex %d\nblock %d\n", runtime.SetMutexProfileFraction(-1), block)
}

func setRates(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	parse := func(name string) (int, bool, error) {
		s := r.Form.Get(name)
		if s == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("%s=%q: want a whole number >= 0 (0 turns sampling off)", name, s)
		}
		return n, true, nil
	}
	mutex, setMutex, err := parse("mutex")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	block, setBlock, err := parse("block")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !setMutex && !setBlock {
		http.Error(w, "give mutex=N and/or block=N", http.StatusBadRequest)
		return
	}
	if setMutex {
		runtime.SetMutexProfileFraction(mutex)
	}
	if setBlock {
		blockRate.Lock()
		runtime.SetBlockProfileRate(block)
		blockRate.rate = block
		blockRate.Unlock()
	}
	getRates(w, r)
}

// allocs serves the allocation profile. With seconds it is the
// allocations made during that window: Go's own delta handler diffs two
// snapshots of the heap profile, which only show what garbage collections
// completed before them had recorded, so a window without a collection
// came out empty. A collection at each end makes the window exact.
func allocs(w http.ResponseWriter, r *http.Request) {
	sec := r.FormValue("seconds")
	if sec == "" {
		pprof.Handler("allocs").ServeHTTP(w, r)
		return
	}
	n, err := strconv.Atoi(sec)
	if err != nil || n <= 0 {
		http.Error(w, fmt.Sprintf("seconds=%q: want a whole number > 0", sec), http.StatusBadRequest)
		return
	}
	snapshot := func() (*profile.Profile, error) {
		runtime.GC()
		var buf bytes.Buffer
		if err := rpprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
			return nil, err
		}
		return profile.Parse(&buf)
	}
	p0, err := snapshot()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	t := time.NewTimer(time.Duration(n) * time.Second)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return
	case <-t.C:
	}
	p1, err := snapshot()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	p0.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{p0, p1})
	if err != nil {
		http.Error(w, "computing the delta: "+err.Error(), http.StatusInternalServerError)
		return
	}
	d.TimeNanos, d.DurationNanos = p1.TimeNanos, p1.TimeNanos-p0.TimeNanos
	w.Header().Set("Content-Type", "application/octet-stream")
	_ = d.Write(w)
}
