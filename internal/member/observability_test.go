package member_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// series returns the value of the series of family name whose labels
// include want, and whether there is one.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func httpGet(ctx context.Context, u string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestMetricsOfTwoMembers runs two members in one process (each with a
// registry of its own) and a client with a near cache, and checks what
// /metrics and /readyz report.
func TestMetricsOfTwoMembers(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 2, testcluster.Options{})
	c.WaitStable(1, 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test",
		NearCaches: map[string]client.NearCacheConfig{"m": {}}, StatisticsInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	m := client.GetMap[string, string](cl, "m")
	for i := range 200 {
		if err := m.Set(ctx, fmt.Sprint(i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	nodes := c.Members()
	waitFor(t, "metrics of map operations, replication, clients and near caches", time.Minute, func() error {
		for range 5 {
			if _, _, err := m.Get(ctx, "1"); err != nil {
				return err
			}
		}
		var sets, entries, backups, nearHits, clients float64
		for i, n := range nodes {
			fams, err := n.Metrics(ctx)
			if err != nil {
				return err
			}
			v, _ := series(fams, "atoll_map_operation_duration_seconds", map[string]string{"map": "m", "op": "set"})
			sets += v
			v, _ = series(fams, "atoll_map_entries", map[string]string{"map": "m", "role": "owner"})
			entries += v
			v, _ = series(fams, "atoll_map_entries", map[string]string{"map": "m", "role": "backup"})
			backups += v
			v, _ = series(fams, "atoll_near_cache_hits_total", map[string]string{"map": "m"})
			nearHits += v
			v, _ = series(fams, "atoll_clients", map[string]string{"client_type": "go"})
			clients += v
			if v, ok := series(fams, "atoll_cluster_members", nil); !ok || v != 2 {
				return fmt.Errorf("member %d: atoll_cluster_members %v", i, v)
			}
			other := nodes[1-i].Addr
			if v, _ := series(fams, "atoll_transport_messages_total", map[string]string{"peer": other, "direction": "received"}); v == 0 {
				return fmt.Errorf("member %d received no message from %s", i, other)
			}
			if v, _ := series(fams, "atoll_transport_bytes_total", map[string]string{"peer": other, "direction": "sent"}); v == 0 {
				return fmt.Errorf("member %d sent no bytes to %s", i, other)
			}
			for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "atoll_partition_table_version", "atoll_member_info"} {
				if _, ok := fams[name]; !ok {
					return fmt.Errorf("member %d: no %s", i, name)
				}
			}
		}
		switch {
		case sets != 200:
			return fmt.Errorf("%v sets counted, want 200", sets)
		case entries != 200 || backups != 200:
			return fmt.Errorf("%v owned and %v backup entries, want 200 each", entries, backups)
		case nearHits == 0:
			return fmt.Errorf("no near cache hit reported")
		case clients != 1:
			return fmt.Errorf("%v go clients reported, want 1", clients)
		}
		return nil
	})
	for _, n := range nodes {
		waitFor(t, "ready", 30*time.Second, func() error {
			code, body, err := httpGet(ctx, "http://"+n.AdminAddr+"/readyz")
			if err == nil && code != http.StatusOK {
				err = fmt.Errorf("%d %s", code, body)
			}
			return err
		})
	}
	// Destroying a map drops its operation series.
	if err := m.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		fams, err := n.Metrics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := series(fams, "atoll_map_operation_duration_seconds", map[string]string{"map": "m", "op": "set"}); ok {
			t.Errorf("member %s still reports operations of a destroyed map", n.Addr)
		}
	}
}

// TestMetricsAndLabelsOff checks the switches: with operation metrics off
// the member records no operation series.
func TestMetricsAndLabelsOff(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{Configure: func(cfg *member.Config) {
		cfg.Metrics.Operations, cfg.Profiling.Labels = false, false
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", StatisticsInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := client.GetMap[string, string](cl, "m").Set(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	fams, err := c.Members()[0].Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fams["atoll_map_operation_duration_seconds"]; ok {
		t.Error("operation latencies recorded with metrics.operations off")
	}
	if v, ok := series(fams, "atoll_map_entries", map[string]string{"map": "m", "role": "owner"}); !ok || v != 1 {
		t.Errorf("atoll_map_entries = %v, %v; want 1", v, ok)
	}
}

// TestProfilingEndpoints checks the admin profiling endpoints, including
// setting the mutex and block sampling rates at run time.
func TestProfilingEndpoints(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	admin := "http://" + c.Members()[0].AdminAddr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/pprof/goroutine?debug=1", "/debug/pprof/wall?seconds=1", "/debug/pprof/trace?seconds=1", "/debug/pprof/profile?seconds=1"} {
		if code, body, err := httpGet(ctx, admin+path); err != nil || code != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: %d, %d bytes, %v", path, code, len(body), err)
		}
	}
	post := func(form url.Values) (int, string) {
		resp, err := http.PostForm(admin+"/debug/pprof/rates", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(url.Values{"mutex": {"7"}, "block": {"1000"}}); code != http.StatusOK || !strings.Contains(body, "mutex 7\nblock 1000") {
		t.Errorf("setting rates: %d %q", code, body)
	}
	if _, body, _ := httpGet(ctx, admin+"/debug/pprof/rates"); !strings.Contains(body, "mutex 7\nblock 1000") {
		t.Errorf("rates read back: %q", body)
	}
	if code, body := post(url.Values{"mutex": {"-1"}}); code != http.StatusBadRequest || !strings.Contains(body, "mutex") {
		t.Errorf("a bad rate: %d %q", code, body)
	}
	post(url.Values{"mutex": {"0"}, "block": {"0"}})
}
