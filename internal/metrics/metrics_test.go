package metrics

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
)

func TestQueries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := New(reg, Sources{}, Options{Version: "test"})
	refused, err := m.Queries.Start("graphql")
	require.Error(t, err, "an unknown query kind")
	refused.End(nil) // records nothing
	run, err := m.Queries.Start(QuerySQL)
	require.NoError(t, err)
	require.Equal(t, 1.0, testutil.ToFloat64(m.Queries.active.WithLabelValues(QuerySQL)), "active sql queries")
	m.Queries.Scanned(QuerySQL, 1000)
	m.Queries.Returned(QuerySQL, 10)
	run.End(nil)
	run, _ = m.Queries.Start(QueryPredicate)
	m.Queries.Scanned(QueryPredicate, 50)
	m.Queries.Scanned("graphql", 7)
	m.Queries.ScanRead(1)
	m.Queries.ScanRead(3)
	run.End(errors.New("boom"))
	want := `
# HELP atoll_queries_active Queries running now, by kind.
# TYPE atoll_queries_active gauge
atoll_queries_active{kind="predicate"} 0
atoll_queries_active{kind="sql"} 0
# HELP atoll_queries_total Queries run, by kind (sql or predicate); a query a client runs by partitions counts once on each owner.
# TYPE atoll_queries_total counter
atoll_queries_total{kind="predicate"} 1
atoll_queries_total{kind="sql"} 1
# HELP atoll_query_errors_total Queries that failed, by kind.
# TYPE atoll_query_errors_total counter
atoll_query_errors_total{kind="predicate"} 1
atoll_query_errors_total{kind="sql"} 0
# HELP atoll_query_rows_returned_total Rows queries returned, by kind.
# TYPE atoll_query_rows_returned_total counter
atoll_query_rows_returned_total{kind="predicate"} 0
atoll_query_rows_returned_total{kind="sql"} 10
# HELP atoll_query_rows_scanned_total Entries queries read, by kind.
# TYPE atoll_query_rows_scanned_total counter
atoll_query_rows_scanned_total{kind="predicate"} 50
atoll_query_rows_scanned_total{kind="sql"} 1000
# HELP atoll_query_scan_partitions_total Partitions queries' scans were given, each by a read of its own or one it shared; divided by atoll_query_scan_reads_total, the scans a read served.
# TYPE atoll_query_scan_partitions_total counter
atoll_query_scan_partitions_total 4
# HELP atoll_query_scan_reads_total Partition reads of queries' scans (index lookups and counts apart); one read serves every scan of the map that shares it.
# TYPE atoll_query_scan_reads_total counter
atoll_query_scan_reads_total 2
`
	names := []string{"atoll_queries_active", "atoll_queries_total", "atoll_query_errors_total", "atoll_query_rows_returned_total", "atoll_query_rows_scanned_total",
		"atoll_query_scan_partitions_total", "atoll_query_scan_reads_total"}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), names...))
	require.Equal(t, 2, testutil.CollectAndCount(m.Queries.latency, "atoll_query_duration_seconds"), "query latency series")
}

func TestState(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	New(reg, Sources{
		Maps: func() []MapStats {
			return []MapStats{{Name: "m", OwnedEntries: 3, OwnedEntryBytes: 300, BackupEntries: 2, BackupEntryBytes: 200, Hits: 7, Evictions: 1, Expirations: 4}}
		},
		Cluster: func() ClusterStats {
			return ClusterStats{Members: 3, Coordinator: true, TableVersion: 12, OwnedPartitions: 90, BackupPartitions: 91, MigrationsInFlight: 2, MigrationsCompleted: 40, MigrationsFailed: 1}
		},
		Ready: func() bool { return true },
	}, Options{Version: "test"})
	want := `
# HELP atoll_map_entries Entries of the map on this member, by role: owner (partitions it owns) or backup (backup copies it holds).
# TYPE atoll_map_entries gauge
atoll_map_entries{map="m",role="backup"} 2
atoll_map_entries{map="m",role="owner"} 3
# HELP atoll_map_expirations_total Entries of the map that expired on this member (time to live or max idle).
# TYPE atoll_map_expirations_total counter
atoll_map_expirations_total{map="m"} 4
# HELP atoll_partitions Partitions this member holds, by role: owner or backup.
# TYPE atoll_partitions gauge
atoll_partitions{role="backup"} 91
atoll_partitions{role="owner"} 90
# HELP atoll_cluster_coordinator 1 when this member coordinates the partition table, else 0.
# TYPE atoll_cluster_coordinator gauge
atoll_cluster_coordinator 1
# HELP atoll_member_ready 1 when the member is ready (joined, partition table stable), else 0.
# TYPE atoll_member_ready gauge
atoll_member_ready 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "atoll_map_entries", "atoll_map_expirations_total", "atoll_partitions", "atoll_cluster_coordinator", "atoll_member_ready"))
	// The Go runtime and process collectors are there too.
	n, err := testutil.GatherAndCount(reg, "go_goroutines", "process_cpu_seconds_total")
	require.NoError(t, err)
	require.Equal(t, 2, n, "runtime and process metrics")
}

func TestClients(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := New(reg, Sources{}, Options{})
	now := time.Unix(1000, 0)
	m.Clients.now = func() time.Time { return now }
	m.Clients.Record(ClientReport{ID: "a", Type: "go", Interval: time.Second, Calls: 10, Retries: 1, Connections: 2,
		NearCaches: []NearCacheReport{{Map: "m", Hits: 5, Misses: 2, Entries: 7}}})
	m.Clients.Record(ClientReport{ID: "a", Type: "go", Interval: time.Second, Calls: 5, Connections: 3,
		NearCaches: []NearCacheReport{{Map: "m", Hits: 1, Entries: 8}}})
	m.Clients.Record(ClientReport{ID: "b", Type: "cobol", Interval: time.Minute, Calls: 1, Connections: 1})
	want := `
# HELP atoll_client_calls_total Calls clients made, as they report them, by SDK type.
# TYPE atoll_client_calls_total counter
atoll_client_calls_total{client_type="go"} 15
atoll_client_calls_total{client_type="other"} 1
# HELP atoll_clients Clients that report their statistics to this member, by SDK type.
# TYPE atoll_clients gauge
atoll_clients{client_type="go"} 1
atoll_clients{client_type="other"} 1
# HELP atoll_near_cache_entries Entries in the near caches of those clients, by map.
# TYPE atoll_near_cache_entries gauge
atoll_near_cache_entries{map="m"} 8
# HELP atoll_near_cache_hits_total Reads clients answered from their near cache, by map.
# TYPE atoll_near_cache_hits_total counter
atoll_near_cache_hits_total{map="m"} 6
`
	names := []string{"atoll_client_calls_total", "atoll_clients", "atoll_near_cache_entries", "atoll_near_cache_hits_total"}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), names...))
	// A client that stops reporting is forgotten; its counters stay.
	now = now.Add(time.Minute)
	want = `
# HELP atoll_clients Clients that report their statistics to this member, by SDK type.
# TYPE atoll_clients gauge
atoll_clients{client_type="other"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "atoll_clients", "atoll_near_cache_entries"))
}

func TestMapOpsAndTransport(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m := New(reg, Sources{}, Options{MapOperations: true})
	m.MapOps.Latency("m", "get").Observe(0.001)
	m.MapOps.Errors("m", "set").Inc()
	m.MapOps.Latency("other", "get").Observe(0.001)
	p := m.Transport.Peer("10.0.0.1:5701")
	require.Same(t, p, m.Transport.Peer("10.0.0.1:5701"), "the recorders of a peer are reused")
	p.SentMessages.Inc()
	p.SentBytes.Add(100)
	p.SendQueue.Observe(1e-5)
	n, err := testutil.GatherAndCount(reg, "atoll_map_operation_duration_seconds", "atoll_map_operation_errors_total", "atoll_transport_bytes_total")
	require.NoError(t, err)
	require.Equal(t, 3+2, n, "series")
	m.MapOps.Forget("m")
	n, err = testutil.GatherAndCount(reg, "atoll_map_operation_duration_seconds", "atoll_map_operation_errors_total")
	require.NoError(t, err)
	require.Equal(t, 1, n, "series after Forget")
	require.Nil(t, New(prometheus.NewRegistry(), Sources{}, Options{}).MapOps, "operation metrics are off when Options say so")
}

func TestExchangeMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	New(reg, Sources{Exchange: func() ExchangeStats {
		return ExchangeStats{MessagesSent: 3, MessagesReceived: 4, BytesSent: 300, BytesReceived: 400, RowsShipped: 60,
			WriteBlockSeconds: 0.25, SchedulingWaitSeconds: 0.5}
	}}, Options{Version: "test"})
	want := `
# HELP atoll_exchange_bytes_total Bytes of join rows this member exchanged with other members, by direction.
# TYPE atoll_exchange_bytes_total counter
atoll_exchange_bytes_total{direction="received"} 400
atoll_exchange_bytes_total{direction="sent"} 300
# HELP atoll_exchange_messages_total Messages of join rows this member exchanged with other members, by direction (sent or received).
# TYPE atoll_exchange_messages_total counter
atoll_exchange_messages_total{direction="received"} 4
atoll_exchange_messages_total{direction="sent"} 3
# HELP atoll_exchange_rows_shipped_total Join rows this member sent to other members.
# TYPE atoll_exchange_rows_shipped_total counter
atoll_exchange_rows_shipped_total 60
# HELP atoll_exchange_scheduling_wait_seconds_total Time spent waiting for the locks and queues that hand exchanged rows to the join.
# TYPE atoll_exchange_scheduling_wait_seconds_total counter
atoll_exchange_scheduling_wait_seconds_total 0.5
# HELP atoll_exchange_write_block_seconds_total Time this member's join senders waited to write to a peer (its in-flight limit or flow control).
# TYPE atoll_exchange_write_block_seconds_total counter
atoll_exchange_write_block_seconds_total 0.25
`
	names := []string{"atoll_exchange_bytes_total", "atoll_exchange_messages_total", "atoll_exchange_rows_shipped_total",
		"atoll_exchange_scheduling_wait_seconds_total", "atoll_exchange_write_block_seconds_total"}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), names...))
}

func TestQueryMemoryMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	New(reg, Sources{QueryMemory: func() QueryMemoryStats {
		return QueryMemoryStats{Reserved: 1000, Limit: 5000, MemberLimit: 10000, Open: true, Rejected: 7, Terminated: 2, Waiting: 3}
	}}, Options{Version: "test"})
	want := `
# HELP atoll_query_admission_waiting Queries that need memory waiting on this member for the running queries to leave them room (query.breaker.admission-wait).
# TYPE atoll_query_admission_waiting gauge
atoll_query_admission_waiting 3
# HELP atoll_member_memory_limit_bytes The member's memory limit (Go's soft limit for a member process), of which the breaker's heap thresholds are fractions.
# TYPE atoll_member_memory_limit_bytes gauge
atoll_member_memory_limit_bytes 10000
# HELP atoll_query_breaker_open 1 while the memory circuit breaker refuses new queries that need memory, else 0.
# TYPE atoll_query_breaker_open gauge
atoll_query_breaker_open 1
# HELP atoll_query_breaker_total Queries the memory circuit breaker refused (action reject) or terminated (action terminate) on this member.
# TYPE atoll_query_breaker_total counter
atoll_query_breaker_total{action="reject"} 7
atoll_query_breaker_total{action="terminate"} 2
# HELP atoll_query_memory_limit_bytes Memory all queries together may hold on this member (query.memory-limit-per-member); 0 when the breaker is off.
# TYPE atoll_query_memory_limit_bytes gauge
atoll_query_memory_limit_bytes 5000
# HELP atoll_query_memory_reserved_bytes Memory queries hold on this member (join tables, exchange buffers, aggregation and DISTINCT tables, sort buffers, result pages).
# TYPE atoll_query_memory_reserved_bytes gauge
atoll_query_memory_reserved_bytes 1000
`
	names := []string{"atoll_member_memory_limit_bytes", "atoll_query_admission_waiting", "atoll_query_breaker_open", "atoll_query_breaker_total",
		"atoll_query_memory_limit_bytes", "atoll_query_memory_reserved_bytes"}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), names...))
}
