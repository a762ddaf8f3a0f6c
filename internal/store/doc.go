// Package store holds a member's records of partitioned maps: per map, per
// partition, serialized keys and values with their metadata, TTL and
// max-idle expiry, eviction, exact memory accounting, change events for
// listeners and indexes, and export/import for replication and migration.
package store
