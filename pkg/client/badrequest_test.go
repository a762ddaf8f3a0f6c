package client_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// TestBadRequestFailsAlone: while 8 goroutines keep writing, requests the
// client cannot send (a map name that is not valid UTF-8, a predicate whose
// attribute is not, a value over the maximum message size, an SQL text
// that is not valid UTF-8) each fail alone, at once, with a typed error:
// no healthy call fails, none is retried, the connection stays.
func TestBadRequestFailsAlone(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	cl := connect(t, c, client.Config{MaxMessageSize: 1 << 20})
	healthy := client.GetMap[int32, string](cl, "healthy")
	ctx := ctxT(t)
	if err := healthy.Set(ctx, 0, "warm"); err != nil {
		t.Fatal(err)
	}
	if _, err := healthy.ValuesWithPredicate(ctx, predicate.Equal("this", "warm")); err != nil {
		t.Fatal(err) // opens the query stream
	}
	stop := make(chan struct{})
	var writes, failed atomic.Int64
	var firstMu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int32(w); ; k += 8 {
				select {
				case <-stop:
					return
				default:
				}
				if err := healthy.Set(ctx, k, "v"); err != nil {
					if failed.Add(1) == 1 {
						firstMu.Lock()
						firstErr = err
						firstMu.Unlock()
					}
				}
				writes.Add(1)
			}
		}()
	}
	waitFor(t, "writes under way", func() bool { return writes.Load() > 200 })
	retries := cl.Stats().Retries

	bad := []struct {
		name string
		call func() error
		kind error
	}{
		{"a map name that is not UTF-8", func() error {
			_, _, err := client.GetMap[int32, string](cl, "bad\xffname").Get(ctx, 1)
			return err
		}, client.ErrInvalidArgument},
		{"an empty map name", func() error {
			return client.GetMap[int32, string](cl, "").Set(ctx, 1, "v")
		}, client.ErrInvalidArgument},
		{"a predicate attribute that is not UTF-8", func() error {
			_, err := healthy.ValuesWithPredicate(ctx, predicate.Equal("\xff", "v"))
			return err
		}, client.ErrInvalidArgument},
		{"SQL that is not UTF-8", func() error {
			_, err := cl.SQL(ctx, "SELECT '\xff'")
			return err
		}, client.ErrInvalidArgument},
		{"a value over the maximum message size", func() error {
			return healthy.Set(ctx, -1, strings.Repeat("x", 2<<20))
		}, client.ErrTooLarge},
	}
	for _, b := range bad {
		start := time.Now()
		err := b.call()
		took := time.Since(start)
		var re *client.RequestError
		if !errors.As(err, &re) || !errors.Is(err, b.kind) {
			t.Errorf("%s: %v, want a *RequestError matching %v", b.name, err, b.kind)
		}
		if took > time.Second {
			t.Errorf("%s failed after %v, want under a second", b.name, took)
		}
		t.Logf("%s: failed alone after %v", b.name, took)
	}
	// The healthy writers go on over the same connection.
	after := writes.Load()
	waitFor(t, "writes after the bad requests", func() bool { return writes.Load() > after+200 })
	close(stop)
	wg.Wait()
	if n := failed.Load(); n > 0 {
		firstMu.Lock()
		defer firstMu.Unlock()
		t.Fatalf("%d of %d healthy writes failed beside the bad requests; the first: %v", n, writes.Load(), firstErr)
	}
	t.Logf("%d healthy writes beside the bad requests, none failed", writes.Load())
	if st := cl.Stats(); st.Retries != retries || st.Connections != 1 {
		t.Fatalf("the bad requests cost %d retries and left %d connections", st.Retries-retries, st.Connections)
	}
	if _, err := healthy.ValuesWithPredicate(ctx, predicate.Equal("this", "warm")); err != nil {
		t.Fatalf("a query after the bad ones: %v", err)
	}
	var ne *client.RequestError
	if err := client.GetMap[int32, string](cl, strings.Repeat("m", 1025)).Set(context.Background(), 1, "v"); !errors.As(err, &ne) || ne.Field != "map" {
		t.Fatalf("a map name of 1025 bytes: %v", err)
	}
}
