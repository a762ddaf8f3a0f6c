package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// screenshotsEnv names a directory: when set, the test also renders every
// dashboard from the Prometheus it started and saves a PNG per dashboard
// there (see README, Dashboards).
const screenshotsEnv = "ATOLL_DASHBOARD_SCREENSHOTS"

// rateInterval replaces Grafana's $__rate_interval.
const rateInterval = "30s"

type dashboardFile struct {
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// expr is one PromQL expression of a dashboard panel.
type expr struct {
	file, panel, promql string
}

func dashboardExprs(t *testing.T) []expr {
	t.Helper()
	files, err := filepath.Glob("grafana/dashboards/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "dashboards")
	var out []expr
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var d dashboardFile
		require.NoError(t, json.Unmarshal(b, &d), f)
		for _, p := range d.Panels {
			for _, tg := range p.Targets {
				out = append(out, expr{filepath.Base(f), p.Title, expand(tg.Expr)})
			}
		}
	}
	return out
}

var grafanaVar = regexp.MustCompile(`\$\{?\w+\}?`)

// expand replaces Grafana's variables as the dashboards' "All" does.
func expand(e string) string {
	e = strings.ReplaceAll(e, "$__rate_interval", rateInterval)
	return grafanaVar.ReplaceAllString(e, ".*")
}

var metricName = regexp.MustCompile(`\b(?:atoll|go|process)_[a-zA-Z0-9_]+`)

// exposed lists the series names a member's metric families expose.
func exposed(fams map[string]*dto.MetricFamily, into map[string]bool) {
	for name, f := range fams {
		into[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			into[name+"_bucket"], into[name+"_count"], into[name+"_sum"] = true, true, true
		case dto.MetricType_SUMMARY:
			into[name+"_count"], into[name+"_sum"] = true, true
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// startPrometheus runs the Debian prometheus package's server scraping
// targets every second, and returns its address.
func startPrometheus(t *testing.T, targets []string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		testcluster.Missing(t, "prometheus is not installed (scripts/install-deps.sh installs the Debian package prometheus)")
	}
	dir := t.TempDir()
	quoted, _ := json.Marshal(targets)
	cfg := fmt.Sprintf("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n  - job_name: atoll\n    static_configs: [{targets: %s}]\n", quoted)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644))
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	var logs strings.Builder
	var mu sync.Mutex
	cmd.Stdout, cmd.Stderr = io.Discard, writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) })
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			mu.Lock()
			t.Logf("prometheus logs:\n%s", logs.String())
			mu.Unlock()
		}
	})
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		var r struct {
			Data struct {
				ActiveTargets []struct{ Health string } `json:"activeTargets"`
			} `json:"data"`
		}
		require.NoError(c, getJSON("http://"+addr+"/api/v1/targets", &r))
		up := 0
		for _, tg := range r.Data.ActiveTargets {
			if tg.Health == "up" {
				up++
			}
		}
		assert.Equal(c, len(targets), up, "targets up")
	}, 60*time.Second, 500*time.Millisecond, "prometheus scrapes every member")
	return addr
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func getJSON(u string, v any) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("GET %s: %s: %s", u, resp.Status, b)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// instantQuery returns how many series expression e has now, or the
// error Prometheus reports for it.
func instantQuery(prom, e string) (int, error) {
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := getJSON("http://"+prom+"/api/v1/query?"+url.Values{"query": {e}}.Encode(), &r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s", r.Error)
	}
	return len(r.Data.Result), nil
}

// runLoad drives the members until ctx ends: writes, reads, removes and
// near-cache hits on two maps, with a client that reports its statistics.
func runLoad(ctx context.Context, t *testing.T, addrs []string) {
	cl, err := client.New(ctx, client.Config{Addresses: addrs, ClusterName: "test",
		NearCaches: map[string]client.NearCacheConfig{"sessions": {}}, StatisticsInterval: 500 * time.Millisecond})
	if !assert.NoError(t, err) {
		return
	}
	defer cl.Close()
	var wg sync.WaitGroup
	// Queries through both front ends, over the orders the map workers
	// write, for the query dashboard.
	rows, err := cl.SQL(ctx, `CREATE MAPPING orders TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')`)
	if !assert.NoError(t, err) {
		return
	}
	rows.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		orders := client.GetMap[int32, string](cl, "orders")
		for i := 0; ctx.Err() == nil; i++ {
			var err error
			if i%2 == 0 {
				var rows *client.Rows
				if rows, err = cl.SQL(ctx, "SELECT COUNT(*) FROM orders WHERE this LIKE 'value%'"); err == nil {
					rows.Close()
				}
			} else {
				_, err = orders.Aggregate(ctx, predicate.Count(), predicate.Like("this", "value%"))
			}
			if err != nil && ctx.Err() == nil {
				assert.NoError(t, err, "a query of the load")
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			maps := []*client.Map[int32, string]{client.GetMap[int32, string](cl, "sessions"), client.GetMap[int32, string](cl, "orders")}
			for i := 0; ctx.Err() == nil; i++ {
				m := maps[i%2]
				k := rand.Int32N(2000)
				var err error
				switch r := rand.IntN(10); {
				case r < 5:
					_, _, err = m.Get(ctx, k)
				case r < 8:
					err = m.Set(ctx, k, fmt.Sprintf("value %d of worker %d", i, w))
				case r < 9:
					_, _, err = m.Put(ctx, k, "put")
				default:
					_, _, err = m.Remove(ctx, k)
				}
				if err != nil && ctx.Err() == nil {
					assert.NoError(t, err, "a map call of the load")
					return
				}
				if i%50 == 0 {
					time.Sleep(time.Millisecond) // leave the machine some air
				}
			}
		}()
	}
	wg.Wait()
}

// TestDashboards lets a real Prometheus scrape two member processes under
// load and checks every expression of every dashboard through its HTTP
// API, and that every metric a dashboard names exists in /metrics.
func TestDashboards(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 2, testcluster.Options{})
	c.WaitStable(1, 60*time.Second)
	var admins []string
	for _, n := range c.Members() {
		admins = append(admins, n.AdminAddr)
	}
	prom := startPrometheus(t, admins)

	ctx, cancel := context.WithCancel(context.Background())
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		runLoad(ctx, t, c.Addrs())
	}()
	defer func() {
		cancel()
		<-loadDone
	}()

	exprs := dashboardExprs(t)
	// Every metric the dashboards name exists on the members.
	require.EventuallyWithT(t, func(col *assert.CollectT) {
		have := map[string]bool{}
		for _, n := range c.Members() {
			fams, err := n.Metrics(ctx)
			require.NoError(col, err)
			exposed(fams, have)
		}
		var missing []string
		for _, e := range exprs {
			for _, name := range metricName.FindAllString(e.promql, -1) {
				if !have[name] && !slices.Contains(missing, name) {
					missing = append(missing, name)
				}
			}
		}
		assert.Empty(col, missing, "metrics the dashboards name that are not in /metrics")
	}, 60*time.Second, 500*time.Millisecond, "every metric the dashboards name is in /metrics")

	// Prometheus accepts every expression (a refusal does not heal)...
	for _, e := range exprs {
		_, err := instantQuery(prom, e.promql)
		require.NoError(t, err, "%s, %q: Prometheus refused %s", e.file, e.panel, e.promql)
	}
	// ... and each returns data once the load has run.
	require.EventuallyWithT(t, func(col *assert.CollectT) {
		var empty []string
		for _, e := range exprs {
			n, err := instantQuery(prom, e.promql)
			require.NoError(col, err)
			if n == 0 {
				empty = append(empty, fmt.Sprintf("%s %q: %s", e.file, e.panel, e.promql))
			}
		}
		assert.Empty(col, empty, "expressions that return nothing")
	}, 2*time.Minute, 500*time.Millisecond, "every dashboard expression returns data")
	t.Logf("all %d dashboard expressions return data", len(exprs))
	if dir := os.Getenv(screenshotsEnv); dir != "" {
		screenshots(t, prom, dir)
	}
}
