// Package member runs an Atoll member inside a Go program: an embedded
// member for services that want their data grid in-process, and for tests.
//
//	m, err := member.Start(ctx, member.DefaultConfig())
//	if err != nil { ... }
//	defer m.Shutdown(context.Background())
//	// clients connect to m.Addr()
//
// A member started this way is the same member `atoll member start` runs.
package member

import (
	"context"

	imember "github.com/atolldb/atoll/internal/member"
)

// Config configures a member; see DefaultConfig for the defaults.
type Config = imember.Config

// MapConfig configures maps by name or pattern.
type MapConfig = imember.MapConfig

// EvictionConfig bounds a map's size per member.
type EvictionConfig = imember.EvictionConfig

// Limits bound what a member accepts.
type Limits = imember.Limits

// TLSConfig names the member's TLS files.
type TLSConfig = imember.TLSConfig

// LogConfig configures the member's logger.
type LogConfig = imember.LogConfig

// Heap is a member process's Go heap after a garbage collection.
type Heap = imember.Heap

// Duration is a duration written as "30s" in YAML configuration.
type Duration = imember.Duration

// ByteSize is a number of bytes written as "512MiB" or "1GiB" in YAML
// configuration.
type ByteSize = imember.ByteSize

// BreakerConfig configures the query memory circuit breaker.
type BreakerConfig = imember.BreakerConfig

// ParseByteSize reads a size: a number of bytes, or a number with a unit
// (KiB, MiB, GiB, TiB; KB, MB, GB, TB).
func ParseByteSize(s string) (int64, error) { return imember.ParseByteSize(s) }

// Member is a running member.
type Member = imember.Member

// DefaultConfig returns the embedded defaults: cluster "dev", clients on
// 127.0.0.1:5701, admin HTTP on 127.0.0.1:8080, 271 partitions. Set Bind
// and Admin to "127.0.0.1:0" to pick free ports (tests, several members in
// one process).
func DefaultConfig() Config { return imember.DefaultConfig() }

// LoadConfig reads a YAML configuration file over the defaults.
func LoadConfig(path string) (Config, error) { return imember.LoadConfig(path) }

// Start starts a member and returns once it accepts connections. Stop it
// with Shutdown.
func Start(ctx context.Context, cfg Config) (*Member, error) { return imember.Start(ctx, cfg) }
