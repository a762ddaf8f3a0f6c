package profiling

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocateForProfile allocates a little (about 200 KB/s, too little to
// start a collection) until ctx ends.
// It returns the last buffer, so that every buffer is a heap allocation.
func allocateForProfile(ctx context.Context) []byte {
	var last []byte
	for ctx.Err() == nil {
		last = make([]byte, 1<<10)
		time.Sleep(5 * time.Millisecond)
	}
	return last
}

// TestAllocsWindow checks that allocs?seconds=N holds the allocations made
// during the window even when they are too few to start a collection.
func TestAllocsWindow(t *testing.T) {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1 // record every allocation: the test counts them
	runtime.GC()
	mux := http.NewServeMux()
	Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []byte, 1)
	go func() { done <- allocateForProfile(ctx) }()
	defer func() {
		cancel()
		<-done
	}()

	resp, err := http.Get(srv.URL + "/debug/pprof/allocs?seconds=1")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, resp.Status)
	p, err := profile.Parse(resp.Body)
	require.NoError(t, err)
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "alloc_space" {
			idx = i
		}
	}
	require.GreaterOrEqual(t, idx, 0, "sample types %v: no alloc_space", p.SampleType)
	var bytes int64
	for _, s := range p.Sample {
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if strings.HasSuffix(l.Function.Name, "allocateForProfile") {
					bytes += s.Value[idx]
				}
			}
		}
	}
	require.Positive(t, bytes, "the window's profile holds the bytes allocateForProfile allocated")

	for _, bad := range []string{"0", "x"} {
		resp, err := http.Get(srv.URL + "/debug/pprof/allocs?seconds=" + bad)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "seconds=%s", bad)
	}
}
