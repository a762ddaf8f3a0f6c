package server

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/maps"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/store"
)

// BenchmarkObserve measures what observe adds to one operation: a store
// get of a present key run bare, through observe with metrics and labels
// off, with metrics only, with labels only, and with both (the default).
// The end-to-end figure is BenchmarkHotPath in internal/member.
//
//	go test -run '^$' -bench Observe -count 5 ./internal/server/
func BenchmarkObserve(b *testing.B) {
	reg := maps.NewRegistry(maps.Options{})
	m, err := reg.Get("m")
	if err != nil {
		b.Fatal(err)
	}
	key := []byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf9, 0, 0, 0, 1} // an int32 Data
	if err := m.Store.Set(0, key, key, store.Expiry{}); err != nil {
		b.Fatal(err)
	}
	get := func(_ context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
		v, found, err := m.Store.Get(0, r.Key)
		return &pb.ValueResponse{Found: found, Value: v}, err
	}
	req := &pb.KeyRequest{Map: "m", Key: key}
	ctx := context.Background()
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = get(ctx, req)
		}
	})
	for _, mode := range []struct {
		name            string
		metrics, labels bool
	}{{"off", false, false}, {"metrics", true, false}, {"labels", false, true}, {"both", true, true}} {
		cfg := Config{Maps: reg, ProfileLabels: mode.labels}
		if mode.metrics {
			cfg.Metrics = metrics.New(prometheus.NewRegistry(), metrics.Sources{}, metrics.Options{MapOperations: true}).MapOps
		}
		s := New(cfg)
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = observe(s, ctx, opGet, req, get)
			}
		})
	}
}
