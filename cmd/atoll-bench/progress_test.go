package main

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
				if !strings.HasSuffix(b.String(), caseLine(c)+"\n") {
					t.Errorf("output %q does not end with the case line %q", b.String(), caseLine(c))
				}
			}
		})
	}
	if line := caseLine(done); !strings.Contains(line, "check=10") || !strings.Contains(line, "ops/s=617.0") || !strings.Contains(line, "p50=1.500ms") {
		t.Errorf("case line %q", line)
	}
	if line := caseLine(failed); !strings.Contains(line, "ERROR A2/count IDS/SQL: validation check 9, want 10") {
		t.Errorf("case line %q", line)
	}
}
