package main

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/atolldb/atoll/bench/harness"
	"github.com/atolldb/atoll/bench/report"
	"github.com/atolldb/atoll/bench/workload"
)

// TestObservers drives both observers through a case and checks the line
// each leaves: the bar is cleared and replaced by the case's figures.
func TestObservers(t *testing.T) {
	cs := workload.ACases(10)[2] // A2 count IDS, SQL
	check := int64(10)
	done := report.Case{ID: cs.ID(), Group: cs.Group, Name: cs.Name, API: cs.API, Check: &check, Ops: 1234,
		OpsPerSecMedian: 617, P50ms: 1.5, P99ms: 9, Seconds: 2.5}
	failed := report.Case{ID: cs.ID(), Group: cs.Group, Name: cs.Name, API: cs.API, Error: "A2/count IDS/SQL: validation check 9, want 10"}
	for _, tc := range []struct {
		name string
		obs  func(*bytes.Buffer) harness.Observer
	}{
		{"plain", func(b *bytes.Buffer) harness.Observer { return plainObserver{w: b} }},
		{"bar", func(b *bytes.Buffer) harness.Observer { return &barObserver{w: b} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []report.Case{done, failed} {
				var b bytes.Buffer
				o := tc.obs(&b)
				var n atomic.Int64
				o.CaseStart(cs, 300*time.Millisecond, &n)
				o.Phase(cs, harness.PhaseWarmup)
				n.Add(5)
				o.Phase(cs, "round 1/1")
				o.CaseDone(c)
				assert.True(t, strings.HasSuffix(b.String(), caseLine(c)+"\n"), "output %q ends with the case line %q", b.String(), caseLine(c))
			}
		})
	}
	line := caseLine(done)
	assert.Contains(t, line, "check=10")
	assert.Contains(t, line, "ops/s=617.0")
	assert.Contains(t, line, "p50=1.500ms")
	assert.Contains(t, caseLine(failed), "ERROR A2/count IDS/SQL: validation check 9, want 10")

	kept, late := true, false
	rated := done
	rated.Rate, rated.AchievedRate, rated.KeptUp, rated.P999ms, rated.Maxms = 24, 23.9, &kept, 12.5, 20
	assert.Contains(t, caseLine(rated), "rate=24/s sent=23.9/s kept up p50=1.500ms p99=9.000ms p99.9=12.500ms max=20.000ms")
	rated.KeptUp, rated.Unsent = &late, 7
	assert.Contains(t, caseLine(rated), "DID NOT KEEP UP (7 unsent)")
}
