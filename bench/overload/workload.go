// Package overload is the join overload workload of the query memory
// circuit breaker, after OpenSearch's hash join benchmark: from 1 to 256
// clients each loop a join whose build side takes a sizeable share of a
// member's query memory (about 20 such joins fit on a member at once),
// and for each client count the run reports the error rate, the
// throughput (minimum, median and maximum of its one-second samples),
// the latency (p50, p90, p100), and whether a member died, stalled or
// went past its memory limit. Run with the breaker on and off, it draws
// the document's five graphs.
//
// The package drives Atoll through the public client; the members are
// the caller's (Member), started as processes with a memory limit or
// reached at their addresses.
package overload

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/atolldb/atoll/pkg/client"
)

// BuildRow is a value of the build map: the join's hash table holds its
// padding.
type BuildRow struct {
	Group int32  `compact:"grp"`
	Pad   string `compact:"pad"`
}

// CompactTypeName names the Compact type.
func (BuildRow) CompactTypeName() string { return "overload.build" }

// ProbeRow is a value of the probe map: the build row it refers to.
type ProbeRow struct {
	Ref int32  `compact:"ref"`
	Tag string `compact:"tag"`
}

// CompactTypeName names the Compact type.
func (ProbeRow) CompactTypeName() string { return "overload.probe" }

// Mappings are the SQL mappings of both maps.
var Mappings = []string{
	`CREATE OR REPLACE MAPPING overload_build (id INT EXTERNAL NAME "__key", grp INT, pad VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='overload.build')`,
	`CREATE OR REPLACE MAPPING overload_probe (id INT EXTERNAL NAME "__key", ref INT, tag VARCHAR)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='overload.probe')`,
}

// Query joins every probe row to its build row. The residual condition
// reads the build row's padding, so the hash table keeps it: the build
// side holds about BuildRows × (PadBytes + 200) bytes across the members.
// It counts the probe rows.
const Query = `SELECT COUNT(*) FROM overload_probe p JOIN overload_build b ON p.ref = b.id AND p.tag <> b.pad`

// Size is the data of a run.
type Size struct {
	BuildRows, ProbeRows, PadBytes int
}

// rowCost is about what a build row costs in a member's hash table beyond
// its padding: its values, their batch's bytes, its header and its index
// entry.
const rowCost = 200

// SizeFor sizes the build map so that about fit joins at once fill the
// query memory the breaker admits on each of members members whose
// memory limit is memoryLimit (by default queries may hold half of it,
// and new ones are admitted up to pool-close, 70% of that).
func SizeFor(memoryLimit int64, members, fit, padBytes int) Size {
	perQuery := float64(memoryLimit) * 0.5 * 0.7 / float64(fit)
	perMember := int(perQuery / float64(padBytes+rowCost))
	build := max(perMember*members, 1)
	return Size{BuildRows: build, ProbeRows: 2 * build, PadBytes: padBytes}
}

// Load creates the mappings and puts the rows, with threads writers.
func Load(ctx context.Context, c *client.Client, s Size, threads int) error {
	for _, ddl := range Mappings {
		rows, err := c.SQL(ctx, ddl)
		if err != nil {
			return fmt.Errorf("creating the mappings: %w", err)
		}
		rows.Close()
	}
	build := client.GetMap[int32, *BuildRow](c, "overload_build")
	probe := client.GetMap[int32, *ProbeRow](c, "overload_probe")
	pad := strings.Repeat("x", s.PadBytes)
	return loadParallel(ctx, threads, max(s.BuildRows, s.ProbeRows), func(ctx context.Context, from, to int) error {
		var bs []client.Entry[int32, *BuildRow]
		var ps []client.Entry[int32, *ProbeRow]
		for k := from; k < to; k++ {
			if k < s.BuildRows {
				bs = append(bs, client.Entry[int32, *BuildRow]{Key: int32(k), Value: &BuildRow{Group: int32(k % 100), Pad: pad}})
			}
			if k < s.ProbeRows {
				ps = append(ps, client.Entry[int32, *ProbeRow]{Key: int32(k), Value: &ProbeRow{Ref: int32(k % s.BuildRows), Tag: "t"}})
			}
		}
		if len(bs) > 0 {
			if err := build.PutAll(ctx, bs); err != nil {
				return err
			}
		}
		if len(ps) > 0 {
			return probe.PutAll(ctx, ps)
		}
		return nil
	})
}

// loadParallel calls put for runs of at most 500 keys of [0, n) on
// threads goroutines.
func loadParallel(ctx context.Context, threads, n int, put func(ctx context.Context, from, to int) error) error {
	const batch = 500
	next := make(chan int)
	errc := make(chan error, threads)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range max(threads, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				if err := put(ctx, from, min(from+batch, n)); err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for from := 0; from < n; from += batch {
		select {
		case next <- from:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errc:
		return fmt.Errorf("loading: %w", err)
	default:
		return ctx.Err()
	}
}

// Check runs the query once and checks its answer: every probe row meets
// its build row.
func Check(ctx context.Context, c *client.Client, s Size) error {
	n, err := count(ctx, c)
	if err != nil {
		return err
	}
	if n != int64(s.ProbeRows) {
		return fmt.Errorf("the join counted %d rows, want %d", n, s.ProbeRows)
	}
	return nil
}

// count runs the query and returns its count.
func count(ctx context.Context, c *client.Client) (int64, error) {
	rows, err := c.SQL(ctx, Query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var n int64
	if rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, err
		}
	}
	return n, rows.Err()
}
