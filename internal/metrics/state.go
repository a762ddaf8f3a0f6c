package metrics

import "github.com/prometheus/client_golang/prometheus"

// stateCollector turns the Sources into metrics at every scrape.
type stateCollector struct{ src Sources }

var (
	mapEntriesDesc = prometheus.NewDesc("atoll_map_entries",
		"Entries of the map on this member, by role: owner (partitions it owns) or backup (backup copies it holds).",
		[]string{"map", "role"}, nil)
	mapMemoryDesc = prometheus.NewDesc("atoll_map_entry_memory_bytes",
		"Memory cost of the map's entries on this member (keys, values and record overhead), by role.",
		[]string{"map", "role"}, nil)
	mapHitsDesc = prometheus.NewDesc("atoll_map_hits_total",
		"Reads that found an entry of the map on this member.", []string{"map"}, nil)
	mapEvictionsDesc = prometheus.NewDesc("atoll_map_evictions_total",
		"Entries of the map evicted on this member (size limits and explicit evictions).", []string{"map"}, nil)
	mapExpirationsDesc = prometheus.NewDesc("atoll_map_expirations_total",
		"Entries of the map that expired on this member (time to live or max idle).", []string{"map"}, nil)

	membersDesc = prometheus.NewDesc("atoll_cluster_members",
		"Members of the cluster this member sees alive.", nil, nil)
	coordinatorDesc = prometheus.NewDesc("atoll_cluster_coordinator",
		"1 when this member coordinates the partition table, else 0.", nil, nil)
	tableVersionDesc = prometheus.NewDesc("atoll_partition_table_version",
		"Version of the partition table this member applies.", nil, nil)
	partitionsDesc = prometheus.NewDesc("atoll_partitions",
		"Partitions this member holds, by role: owner or backup.", []string{"role"}, nil)
	migrationsInFlightDesc = prometheus.NewDesc("atoll_partition_migrations_in_flight",
		"Partition migrations in flight (only the coordinator runs them).", nil, nil)
	migrationsCompletedDesc = prometheus.NewDesc("atoll_partition_migrations_completed_total",
		"Partition migrations this member completed as coordinator.", nil, nil)
	migrationsFailedDesc = prometheus.NewDesc("atoll_partition_migrations_failed_total",
		"Partition migrations that failed while this member coordinated.", nil, nil)
	readyDesc = prometheus.NewDesc("atoll_member_ready",
		"1 when the member is ready (joined, partition table stable), else 0.", nil, nil)
	cursorsDesc = prometheus.NewDesc("atoll_query_cursors",
		"Queries running or holding an open cursor on this member (bounded by query.max-cursors).", nil, nil)

	exchangeMessagesDesc = prometheus.NewDesc("atoll_exchange_messages_total",
		"Messages of join rows this member exchanged with other members, by direction (sent or received).", []string{"direction"}, nil)
	exchangeBytesDesc = prometheus.NewDesc("atoll_exchange_bytes_total",
		"Bytes of join rows this member exchanged with other members, by direction.", []string{"direction"}, nil)
	exchangeRowsDesc = prometheus.NewDesc("atoll_exchange_rows_shipped_total",
		"Join rows this member sent to other members.", nil, nil)
	exchangeWriteBlockDesc = prometheus.NewDesc("atoll_exchange_write_block_seconds_total",
		"Time this member's join senders waited to write to a peer (its in-flight limit or flow control).", nil, nil)
	exchangeSchedulingDesc = prometheus.NewDesc("atoll_exchange_scheduling_wait_seconds_total",
		"Time spent waiting for the locks and queues that hand exchanged rows to the join.", nil, nil)

	queryMemoryReservedDesc = prometheus.NewDesc("atoll_query_memory_reserved_bytes",
		"Memory queries hold on this member (join tables, exchange buffers, aggregation and DISTINCT tables, sort buffers, result pages).", nil, nil)
	queryMemoryLimitDesc = prometheus.NewDesc("atoll_query_memory_limit_bytes",
		"Memory all queries together may hold on this member (query.memory-limit-per-member); 0 when the breaker is off.", nil, nil)
	memberMemoryLimitDesc = prometheus.NewDesc("atoll_member_memory_limit_bytes",
		"The member's memory limit (Go's soft limit for a member process), of which the breaker's heap thresholds are fractions.", nil, nil)
	breakerOpenDesc = prometheus.NewDesc("atoll_query_breaker_open",
		"1 while the memory circuit breaker refuses new queries that need memory, else 0.", nil, nil)
	admissionWaitingDesc = prometheus.NewDesc("atoll_query_admission_waiting",
		"Queries that need memory waiting on this member for the running queries to leave them room (query.breaker.admission-wait).", nil, nil)
	locksDesc = prometheus.NewDesc("atoll_locks",
		"Keys locked in the partitions this member owns (by clients' per-key locks or by transactions).", nil, nil)
	breakerDesc = prometheus.NewDesc("atoll_query_breaker_total",
		"Queries the memory circuit breaker refused (action reject) or terminated (action terminate) on this member.", []string{"action"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{mapEntriesDesc, mapMemoryDesc, mapHitsDesc, mapEvictionsDesc, mapExpirationsDesc,
		membersDesc, coordinatorDesc, tableVersionDesc, partitionsDesc, migrationsInFlightDesc,
		migrationsCompletedDesc, migrationsFailedDesc, readyDesc, cursorsDesc,
		exchangeMessagesDesc, exchangeBytesDesc, exchangeRowsDesc, exchangeWriteBlockDesc, exchangeSchedulingDesc,
		queryMemoryReservedDesc, queryMemoryLimitDesc, memberMemoryLimitDesc, breakerOpenDesc, breakerDesc, admissionWaitingDesc, locksDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	if c.src.Maps != nil {
		for _, m := range c.src.Maps() {
			gauge(mapEntriesDesc, float64(m.OwnedEntries), m.Name, "owner")
			gauge(mapEntriesDesc, float64(m.BackupEntries), m.Name, "backup")
			gauge(mapMemoryDesc, float64(m.OwnedEntryBytes), m.Name, "owner")
			gauge(mapMemoryDesc, float64(m.BackupEntryBytes), m.Name, "backup")
			counter(mapHitsDesc, float64(m.Hits), m.Name)
			counter(mapEvictionsDesc, float64(m.Evictions), m.Name)
			counter(mapExpirationsDesc, float64(m.Expirations), m.Name)
		}
	}
	if c.src.Cluster != nil {
		s := c.src.Cluster()
		gauge(membersDesc, float64(s.Members))
		gauge(coordinatorDesc, boolFloat(s.Coordinator))
		gauge(tableVersionDesc, float64(s.TableVersion))
		gauge(partitionsDesc, float64(s.OwnedPartitions), "owner")
		gauge(partitionsDesc, float64(s.BackupPartitions), "backup")
		gauge(migrationsInFlightDesc, float64(s.MigrationsInFlight))
		counter(migrationsCompletedDesc, float64(s.MigrationsCompleted))
		counter(migrationsFailedDesc, float64(s.MigrationsFailed))
	}
	if c.src.Ready != nil {
		gauge(readyDesc, boolFloat(c.src.Ready()))
	}
	if c.src.Cursors != nil {
		gauge(cursorsDesc, float64(c.src.Cursors()))
	}
	if c.src.Locks != nil {
		gauge(locksDesc, float64(c.src.Locks()))
	}
	if c.src.Exchange != nil {
		x := c.src.Exchange()
		counter(exchangeMessagesDesc, float64(x.MessagesSent), "sent")
		counter(exchangeMessagesDesc, float64(x.MessagesReceived), "received")
		counter(exchangeBytesDesc, float64(x.BytesSent), "sent")
		counter(exchangeBytesDesc, float64(x.BytesReceived), "received")
		counter(exchangeRowsDesc, float64(x.RowsShipped))
		counter(exchangeWriteBlockDesc, x.WriteBlockSeconds)
		counter(exchangeSchedulingDesc, x.SchedulingWaitSeconds)
	}
	if c.src.QueryMemory != nil {
		q := c.src.QueryMemory()
		gauge(queryMemoryReservedDesc, float64(q.Reserved))
		gauge(queryMemoryLimitDesc, float64(q.Limit))
		gauge(memberMemoryLimitDesc, float64(q.MemberLimit))
		gauge(breakerOpenDesc, boolFloat(q.Open))
		gauge(admissionWaitingDesc, float64(q.Waiting))
		counter(breakerDesc, float64(q.Rejected), "reject")
		counter(breakerDesc, float64(q.Terminated), "terminate")
	}
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
