package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseCPULine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       CPUTimes
	}{
		{"with guest columns", "cpu  3437164 0 600147 2398720 4149 0 118384 25531 7 0", CPUTimes{Total: 6584095, Steal: 25531}},
		{"eight columns", "cpu 10 0 10 70 0 0 0 10", CPUTimes{Total: 100, Steal: 10}},
		{"a single CPU's line", "cpu0 10 0 10 70 0 0 0 10", CPUTimes{}},
		{"too short", "cpu 10 0 10 70", CPUTimes{}},
		{"not a number", "cpu 10 0 x 70 0 0 0 10", CPUTimes{}},
		{"empty", "", CPUTimes{}},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, parseCPULine(tc.line)) })
	}
}

func TestCPUTimesArithmetic(t *testing.T) {
	a, b := CPUTimes{Total: 1000, Steal: 10}, CPUTimes{Total: 1400, Steal: 50}
	d := b.Sub(a)
	assert.Equal(t, CPUTimes{Total: 400, Steal: 40}, d)
	assert.InDelta(t, 10.0, d.StealPercent(), 1e-9)
	assert.Equal(t, CPUTimes{Total: 800, Steal: 80}, d.Add(d))
	assert.Equal(t, CPUTimes{}, a.Sub(b), "counters that went back (a reboot) give nothing")
	assert.Zero(t, CPUTimes{}.StealPercent())
	now := ReadCPUTimes()
	assert.GreaterOrEqual(t, now.Total, now.Steal)
}
