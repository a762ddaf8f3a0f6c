// Command gen writes Atoll's Grafana dashboards (deploy/grafana/dashboards)
// from the panel lists below, built with the typed builders of Grafana's
// foundation SDK (github.com/grafana/grafana-foundation-sdk/go), so that
// the dashboards share one layout and one set of variables and follow the
// dashboard schema the SDK's version targets:
//
//	go run ./deploy/grafana/gen
//
// Every expression uses only metrics a member exports; a test runs each
// one against a real Prometheus scraping real members.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// panel is one graph or number on a dashboard.
type panel struct {
	title   string
	kind    string // "timeseries" or "stat"
	unit    string // Grafana unit: s, bytes, Bps, ops, short, percentunit
	width   int    // of 24 columns; 0 = 12
	targets []target
}

type target struct{ expr, legend string }

// board is one dashboard file: its panels and whether it has a $map
// variable.
type board struct {
	file, uid, title, description string
	mapVar                        bool
	panels                        []panel
}

// sel is the common label selector: the members chosen with $instance.
const sel = `instance=~"$instance"`

// msel adds the maps chosen with $map.
const msel = `instance=~"$instance",map=~"$map"`

const ri = "[$__rate_interval]"

func ts(title, unit string, targets ...target) panel {
	return panel{title: title, kind: "timeseries", unit: unit, targets: targets}
}

// number is a stat panel: one figure, a quarter of the width.
func number(title, unit string, targets ...target) panel {
	return panel{title: title, kind: "stat", unit: unit, width: 6, targets: targets}
}

func t(expr, legend string) target { return target{expr, legend} }

func quantile(q float64, metric, by, selector string) string {
	return fmt.Sprintf("histogram_quantile(%g, sum by (le, %s) (rate(%s_bucket{%s}%s)))", q, by, metric, selector, ri)
}

var dashboards = []board{
	{
		file: "cluster.json", uid: "atoll-cluster", title: "Atoll / Cluster overview",
		description: "Members, readiness, load, memory and member-to-member traffic.",
		panels: []panel{
			number("Members", "short", t(`max(atoll_cluster_members{`+sel+`})`, "members")),
			number("Ready members", "short", t(`sum(atoll_member_ready{`+sel+`})`, "ready")),
			number("Partition table version", "short", t(`max(atoll_partition_table_version{`+sel+`})`, "version")),
			number("Coordinator", "short", t(`atoll_cluster_coordinator{`+sel+`} == 1`, "{{instance}}")),
			ts("Map operations per second, by member", "ops", t(`sum by (instance) (rate(atoll_map_operation_duration_seconds_count{`+sel+`}`+ri+`))`, "{{instance}}")),
			ts("Owned entries, by member", "short", t(`sum by (instance) (atoll_map_entries{`+sel+`,role="owner"})`, "{{instance}}")),
			ts("Entry memory, by member and role", "bytes", t(`sum by (instance, role) (atoll_map_entry_memory_bytes{`+sel+`})`, "{{instance}} {{role}}")),
			ts("Resident memory, by member", "bytes", t(`process_resident_memory_bytes{`+sel+`}`, "{{instance}}")),
			ts("Member traffic, bytes per second", "Bps", t(`sum by (instance, peer, direction) (rate(atoll_transport_bytes_total{`+sel+`}`+ri+`))`, "{{instance}} {{direction}} {{peer}}")),
			ts("Member traffic, messages per second", "ops", t(`sum by (instance, direction) (rate(atoll_transport_messages_total{`+sel+`}`+ri+`))`, "{{instance}} {{direction}}")),
			ts("Send queue time, p99", "s", t(quantile(0.99, "atoll_transport_send_queue_seconds", "instance, peer", sel), "{{instance}} to {{peer}}")),
			ts("Clients, by SDK", "short",
				t(`sum by (client_type) (atoll_clients{`+sel+`})`, "{{client_type}} clients"),
				t(`sum by (client_type) (atoll_client_connections{`+sel+`})`, "{{client_type}} connections")),
			ts("Client calls per second, by SDK", "ops",
				t(`sum by (client_type) (rate(atoll_client_calls_total{`+sel+`}`+ri+`))`, "{{client_type}} calls"),
				t(`sum by (client_type) (rate(atoll_client_call_retries_total{`+sel+`}`+ri+`))`, "{{client_type}} retries"),
				t(`sum by (client_type) (rate(atoll_client_call_failures_total{`+sel+`}`+ri+`))`, "{{client_type}} failures")),
			ts("Transactions per second", "ops",
				t(`sum by (kind) (rate(atoll_transaction_commits_total{`+sel+`}`+ri+`))`, "commits {{kind}}"),
				t(`sum by (cause) (rate(atoll_transaction_aborts_total{`+sel+`}`+ri+`))`, "conflicts {{cause}}"),
				t(`sum by (client_type) (rate(atoll_client_transaction_retries_total{`+sel+`}`+ri+`))`, "{{client_type}} retries"),
				t(`sum by (client_type) (rate(atoll_client_transaction_conflicts_total{`+sel+`}`+ri+`))`, "{{client_type}} failed after retries")),
			ts("Locks", "short",
				t(`sum(atoll_locks{`+sel+`})`, "keys locked"),
				t(`sum(rate(atoll_lock_waits_total{`+sel+`}`+ri+`))`, "waits/s"),
				t(`sum by (outcome) (rate(atoll_locks_resolved_total{`+sel+`}`+ri+`))`, "resolved {{outcome}}/s")),
		},
	},
	{
		file: "maps.json", uid: "atoll-maps", title: "Atoll / Maps", mapVar: true,
		description: "Per map: operations, latencies, errors, entries, memory, hits, evictions, expirations and near caches.",
		panels: []panel{
			ts("Operations per second, by kind", "ops", t(`sum by (op) (rate(atoll_map_operation_duration_seconds_count{`+msel+`}`+ri+`))`, "{{op}}")),
			ts("Errors per second, by kind", "ops", t(`sum by (op) (rate(atoll_map_operation_errors_total{`+msel+`}`+ri+`))`, "{{op}}")),
			ts("Latency p50, by kind", "s", t(quantile(0.5, "atoll_map_operation_duration_seconds", "op", msel), "{{op}}")),
			ts("Latency p99, by kind", "s", t(quantile(0.99, "atoll_map_operation_duration_seconds", "op", msel), "{{op}}")),
			ts("Entries, by map and role", "short", t(`sum by (map, role) (atoll_map_entries{`+msel+`})`, "{{map}} {{role}}")),
			ts("Entry memory, by map and role", "bytes", t(`sum by (map, role) (atoll_map_entry_memory_bytes{`+msel+`})`, "{{map}} {{role}}")),
			ts("Hits per second", "ops", t(`sum by (map) (rate(atoll_map_hits_total{`+msel+`}`+ri+`))`, "{{map}}")),
			ts("Evictions and expirations per second", "ops",
				t(`sum by (map) (rate(atoll_map_evictions_total{`+msel+`}`+ri+`))`, "{{map}} evicted"),
				t(`sum by (map) (rate(atoll_map_expirations_total{`+msel+`}`+ri+`))`, "{{map}} expired")),
			ts("Near cache hit ratio", "percentunit", t(`sum by (map) (rate(atoll_near_cache_hits_total{`+msel+`}`+ri+`)) / (sum by (map) (rate(atoll_near_cache_hits_total{`+msel+`}`+ri+`)) + sum by (map) (rate(atoll_near_cache_misses_total{`+msel+`}`+ri+`)))`, "{{map}}")),
			ts("Near cache entries and invalidations", "short",
				t(`sum by (map) (atoll_near_cache_entries{`+msel+`})`, "{{map}} entries"),
				t(`sum by (map) (rate(atoll_near_cache_invalidations_total{`+msel+`}`+ri+`))`, "{{map}} invalidations/s")),
		},
	},
	{
		file: "queries.json", uid: "atoll-queries", title: "Atoll / Queries: SQL and Predicate API",
		description: "Queries by kind, SQL on the left and the Predicate API on the right.",
		panels:      queryPanels(),
	},
	{
		file: "partitions.json", uid: "atoll-partitions", title: "Atoll / Partitions and migrations",
		description: "Partitions owned and backed up by each member, and the migrations that move them.",
		panels: []panel{
			number("Migrations in flight", "short", t(`sum(atoll_partition_migrations_in_flight{`+sel+`})`, "in flight")),
			number("Migrations completed", "short", t(`sum(atoll_partition_migrations_completed_total{`+sel+`})`, "completed")),
			number("Migrations failed", "short", t(`sum(atoll_partition_migrations_failed_total{`+sel+`})`, "failed")),
			number("Partition table version", "short", t(`max(atoll_partition_table_version{`+sel+`})`, "version")),
			ts("Owned partitions, by member", "short", t(`atoll_partitions{`+sel+`,role="owner"}`, "{{instance}}")),
			ts("Backup partitions, by member", "short", t(`atoll_partitions{`+sel+`,role="backup"}`, "{{instance}}")),
			ts("Migrations per second", "ops",
				t(`sum(rate(atoll_partition_migrations_completed_total{`+sel+`}`+ri+`))`, "completed"),
				t(`sum(rate(atoll_partition_migrations_failed_total{`+sel+`}`+ri+`))`, "failed")),
			ts("Members and table version, by member", "short",
				t(`atoll_cluster_members{`+sel+`}`, "{{instance}} members"),
				t(`atoll_partition_table_version{`+sel+`}`, "{{instance}} table version")),
		},
	},
	{
		file: "runtime.json", uid: "atoll-runtime", title: "Atoll / Go runtime",
		description: "Allocation rate, heap, garbage collection, goroutines, scheduling and process resources of each member.",
		panels: []panel{
			ts("Allocation rate", "Bps", t(`rate(go_memstats_alloc_bytes_total{`+sel+`}`+ri+`)`, "{{instance}}")),
			ts("Allocations per second", "ops", t(`rate(go_gc_heap_allocs_objects_total{`+sel+`}`+ri+`)`, "{{instance}}")),
			ts("Heap", "bytes",
				t(`go_memstats_heap_inuse_bytes{`+sel+`}`, "{{instance}} in use"),
				t(`go_gc_heap_goal_bytes{`+sel+`}`, "{{instance}} GC goal")),
			ts("GC pause time per second", "s", t(`rate(go_gc_duration_seconds_sum{`+sel+`}`+ri+`)`, "{{instance}}")),
			ts("GC cycles per second", "ops", t(`rate(go_gc_cycles_total_gc_cycles_total{`+sel+`}`+ri+`)`, "{{instance}}")),
			ts("Goroutines", "short", t(`go_goroutines{`+sel+`}`, "{{instance}}")),
			ts("Scheduling latency p99", "s", t(quantile(0.99, "go_sched_latencies_seconds", "instance", sel), "{{instance}}")),
			ts("CPU", "percentunit", t(`rate(process_cpu_seconds_total{`+sel+`}`+ri+`)`, "{{instance}}")),
			ts("Resident memory", "bytes", t(`process_resident_memory_bytes{`+sel+`}`, "{{instance}}")),
			ts("Open file descriptors", "short", t(`process_open_fds{`+sel+`}`, "{{instance}}")),
		},
	},
}

// queryPanels puts each SQL panel beside its Predicate API twin.
func queryPanels() []panel {
	var ps []panel
	ksel := func(kind string) string { return sel + `,kind="` + kind + `"` }
	pair := func(title, unit string, targets func(ks string) []target) {
		for _, kind := range []string{"sql", "predicate"} {
			name := map[string]string{"sql": "SQL", "predicate": "Predicate API"}[kind]
			ps = append(ps, ts(name+": "+title, unit, targets(ksel(kind))...))
		}
	}
	one := func(expr func(ks string) string) func(string) []target {
		return func(ks string) []target { return []target{t(expr(ks), "{{instance}}")} }
	}
	pair("queries per second", "ops", one(func(ks string) string {
		return `sum by (instance) (rate(atoll_queries_total{` + ks + `}` + ri + `))`
	}))
	pair("latency p99", "s", one(func(ks string) string { return quantile(0.99, "atoll_query_duration_seconds", "instance", ks) }))
	pair("latency p50", "s", one(func(ks string) string { return quantile(0.5, "atoll_query_duration_seconds", "instance", ks) }))
	pair("errors per second", "ops", one(func(ks string) string {
		return `sum by (instance) (rate(atoll_query_errors_total{` + ks + `}` + ri + `))`
	}))
	pair("rows scanned and returned per second", "ops", func(ks string) []target {
		return []target{
			t(`sum by (instance) (rate(atoll_query_rows_scanned_total{`+ks+`}`+ri+`))`, "{{instance}} scanned"),
			t(`sum by (instance) (rate(atoll_query_rows_returned_total{`+ks+`}`+ri+`))`, "{{instance}} returned"),
		}
	})
	pair("queries running", "short", one(func(ks string) string { return `sum by (instance) (atoll_queries_active{` + ks + `})` }))
	return append(ps,
		ts("p99 latency, SQL and Predicate API together", "s", t(quantile(0.99, "atoll_query_duration_seconds", "kind", sel), "{{kind}}")),
		ts("Selectivity: rows returned per row scanned", "percentunit", t(`sum by (kind) (rate(atoll_query_rows_returned_total{`+sel+`}`+ri+`)) / sum by (kind) (rate(atoll_query_rows_scanned_total{`+sel+`}`+ri+`))`, "{{kind}}")),
		// Shared scans: the scans of a map running at once share reads.
		ts("Shared scans: scans served per partition read, by member", "short",
			t(`sum by (instance) (rate(atoll_query_scan_partitions_total{`+sel+`}`+ri+`)) / sum by (instance) (rate(atoll_query_scan_reads_total{`+sel+`}`+ri+`))`, "{{instance}}")),
		// The join exchange: rows of joins that move between members.
		ts("Join exchange: messages per second, by member", "ops",
			t(`sum by (instance, direction) (rate(atoll_exchange_messages_total{`+sel+`}`+ri+`))`, "{{instance}} {{direction}}")),
		ts("Join exchange: bytes per second, by member", "Bps",
			t(`sum by (instance, direction) (rate(atoll_exchange_bytes_total{`+sel+`}`+ri+`))`, "{{instance}} {{direction}}")),
		ts("Join exchange: rows shipped per second", "ops",
			t(`sum by (instance) (rate(atoll_exchange_rows_shipped_total{`+sel+`}`+ri+`))`, "{{instance}}")),
		ts("Join exchange: write-block and scheduling wait (seconds per second)", "percentunit",
			t(`sum by (instance) (rate(atoll_exchange_write_block_seconds_total{`+sel+`}`+ri+`))`, "{{instance}} write-block"),
			t(`sum by (instance) (rate(atoll_exchange_scheduling_wait_seconds_total{`+sel+`}`+ri+`))`, "{{instance}} scheduling wait")),
		// The query memory pool and its circuit breaker.
		ts("Query memory: reserved, limits and live heap, by member", "bytes",
			t(`atoll_query_memory_reserved_bytes{`+sel+`}`, "{{instance}} reserved by queries"),
			t(`atoll_query_memory_limit_bytes{`+sel+`}`, "{{instance}} queries' limit"),
			t(`atoll_member_memory_limit_bytes{`+sel+`}`, "{{instance}} member's memory limit"),
			t(`go_gc_heap_live_bytes{`+sel+`}`, "{{instance}} live heap")),
		ts("Memory breaker: queries refused and terminated per second", "ops",
			t(`sum by (instance, action) (rate(atoll_query_breaker_total{`+sel+`}`+ri+`))`, "{{instance}} {{action}}")),
		ts("Memory breaker open, and queries waiting for room", "short",
			t(`atoll_query_breaker_open{`+sel+`}`, "{{instance}} open"),
			t(`atoll_query_admission_waiting{`+sel+`}`, "{{instance}} waiting")),
	)
}

// datasource refers to the dashboard's Prometheus variable.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// Panel heights, in grid rows: a number is half a graph's height.
const (
	graphHeight = 8
	statHeight  = 4
)

// builder turns the panel into the SDK's builder of its kind, with its
// queries, unit, size and id; the dashboard builder lays panels out left
// to right in rows of 24 columns.
func (p panel) builder(id int) cog.Builder[dashboard.Panel] {
	w := p.width
	if w == 0 {
		w = 12
	}
	queries := make([]cog.Builder[variants.Dataquery], len(p.targets))
	for j, tg := range p.targets {
		queries[j] = prometheus.NewDataqueryBuilder().Datasource(datasource).Expr(tg.expr).LegendFormat(tg.legend).RefId(string(rune('A' + j)))
	}
	if p.kind == "stat" {
		return stat.NewPanelBuilder().Id(uint32(id)).Title(p.title).Datasource(datasource).Unit(p.unit).
			Span(uint32(w)).Height(statHeight).Targets(queries).
			Orientation(common.VizOrientationAuto).
			ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"}))
	}
	return timeseries.NewPanelBuilder().Id(uint32(id)).Title(p.title).Datasource(datasource).Unit(p.unit).
		Span(uint32(w)).Height(graphHeight).Targets(queries).
		Legend(common.NewVizLegendOptionsBuilder().ShowLegend(true).DisplayMode(common.LegendDisplayModeList).Placement(common.LegendPlacementBottom)).
		Tooltip(common.NewVizTooltipOptionsBuilder().Mode(common.TooltipDisplayModeMulti).Sort(common.SortOrderNone))
}

// build assembles the dashboard: its variables (the Prometheus data
// source, the members, and the maps where it has $map) and its panels.
func (d board) build() (dashboard.Dashboard, error) {
	b := dashboard.NewDashboardBuilder(d.title).Uid(d.uid).Description(d.description).Tags([]string{"atoll"}).
		Editable().Refresh("10s").Time("now-30m", "now").Version(1).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus")).
		WithVariable(queryVar("instance", "Member", "label_values(atoll_member_info, instance)"))
	if d.mapVar {
		b = b.WithVariable(queryVar("map", "Map", "label_values(atoll_map_entries, map)"))
	}
	for i, p := range d.panels {
		b = b.WithPanel(p.builder(i + 1))
	}
	return b.Build()
}

// queryVar is a variable over a label's values: several or all of them
// (All selects every value through the regular expression .*).
func queryVar(name, label, query string) *dashboard.QueryVariableBuilder {
	return dashboard.NewQueryVariableBuilder(name).Label(label).Datasource(datasource).
		Query(dashboard.StringOrMap{String: cog.ToPtr(query)}).Definition(query).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).IncludeAll(true).Multi(true).AllValue(".*").
		Current(dashboard.VariableOption{Text: dashboard.StringOrArrayOfString{String: cog.ToPtr("All")},
			Value: dashboard.StringOrArrayOfString{String: cog.ToPtr("$__all")}})
}

// Render returns each dashboard file's content by name.
func Render() (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, d := range dashboards {
		built, err := d.build()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.file, err)
		}
		b, err := json.MarshalIndent(built, "", "  ")
		if err != nil {
			return nil, err
		}
		out[d.file] = append(b, '\n')
	}
	return out, nil
}

// Dir is where the dashboards live.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "dashboards")
}

func main() {
	files, err := Render()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(Dir(), name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	fmt.Println("wrote", strings.Join(names(files), ", "))
}

func names(files map[string][]byte) []string {
	var out []string
	for _, d := range dashboards {
		if _, ok := files[d.file]; ok {
			out = append(out, d.file)
		}
	}
	return out
}
