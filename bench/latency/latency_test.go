package latency

import (
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// javaEncoded is what Java's HdrHistogram 2.2.2 writes for
// new Histogram(1, 3_600_000_000L, 3) holding 1 000, 2 000, ... 1 000 000
// and 2 500 000 µs (encodeIntoCompressedByteBuffer, base64); Java reads
// its p50 as 501 247 µs, its p99 as 991 231 µs and its max as
// 2 500 607 µs.
const javaEncoded = "HISTFAAAAIx4nJNpmSzMwMB+jgECmKE0I4i4NnkJg/0HiMB5fqaz/ExTOZiesjMtZGH6yAxFy5mYvjNiQSsZmaqZKvHgbCZrILQFk+TRukzSTLJAiCDpz+dn4mXiBmIIRLCwiw5XeXYmVjBkhtKokHjRUf1DXz8zEwMaxBDABYlWSAszRy0ftXxkWH5YhAkAb1o+pg=="

func TestPercentiles(t *testing.T) {
	h := New()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	assert.Equal(t, int64(1000), h.Count())
	// Three significant digits: a value is exact to within 0.1%.
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 500 * time.Millisecond}, {90, 900 * time.Millisecond}, {99, 990 * time.Millisecond}, {99.9, 999 * time.Millisecond}, {100, time.Second}} {
		assert.InEpsilon(t, tc.want, h.Percentile(tc.p), 0.001, "p%v", tc.p)
		assert.GreaterOrEqual(t, h.Percentile(tc.p), tc.want, "p%v is the highest equivalent value", tc.p)
	}
	assert.InEpsilon(t, time.Second, h.Max(), 0.001)
	assert.InEpsilon(t, 500500*time.Microsecond, h.Mean(), 0.001)
}

func TestRecordOutOfRange(t *testing.T) {
	h := New()
	h.Record(0)
	h.Record(-time.Second)
	h.Record(2 * time.Hour)
	require.Equal(t, int64(3), h.Count())
	assert.Equal(t, time.Microsecond, h.Percentile(50), "below a microsecond counts as one")
	assert.InEpsilon(t, time.Hour, h.Max(), 0.001, "over an hour counts as an hour")
}

func TestMerge(t *testing.T) {
	a, b := New(), New()
	a.Record(time.Millisecond)
	b.Record(time.Second)
	a.Merge(b)
	assert.Equal(t, int64(2), a.Count())
	assert.InEpsilon(t, time.Second, a.Max(), 0.001)
}

func TestEncodeDecode(t *testing.T) {
	h := New()
	for i := 1; i <= 5000; i++ {
		h.Record(time.Duration(i*i) * time.Microsecond)
	}
	s, err := h.Encode()
	require.NoError(t, err)
	assert.Regexp(t, `^HISTF`, s)
	back, err := Decode(s)
	require.NoError(t, err)
	assert.Equal(t, h.Count(), back.Count())
	for _, p := range []float64{50, 90, 99, 99.9, 99.99, 100} {
		assert.Equal(t, h.Percentile(p), back.Percentile(p), "p%v", p)
	}
}

// TestDecodeJava reads a histogram that Java's HdrHistogram encoded (what
// the Hazelcast runner writes) and finds Java's own percentiles.
func TestDecodeJava(t *testing.T) {
	h, err := Decode(javaEncoded)
	require.NoError(t, err)
	assert.Equal(t, int64(1001), h.Count())
	assert.Equal(t, 501247*time.Microsecond, h.Percentile(50))
	assert.Equal(t, 991231*time.Microsecond, h.Percentile(99))
	assert.Equal(t, 2500607*time.Microsecond, h.Max())
}

func TestDecodeErrors(t *testing.T) {
	var de *DecodeError
	_, err := Decode("not base64!")
	require.ErrorAs(t, err, &de)
	assert.Contains(t, err.Error(), "not an HdrHistogram")

	_, err = Decode("AAAA")
	require.ErrorAs(t, err, &de)

	// Another geometry: nanoseconds from 1 000, 2 significant digits.
	other := hdrhistogram.New(1000, Highest, 2)
	require.NoError(t, other.RecordValue(5000))
	s, err := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	_, err = Decode(string(s))
	require.ErrorAs(t, err, &de)
	assert.Contains(t, err.Error(), "significant digits")
}

func TestDistribution(t *testing.T) {
	h := New()
	for i := 1; i <= 10000; i++ {
		h.Record(time.Duration(i) * time.Microsecond)
	}
	d := h.Distribution()
	require.NotEmpty(t, d)
	last := d[len(d)-1]
	assert.Equal(t, 100.0, last.Percentile)
	assert.Equal(t, h.Max(), last.Latency)
	assert.Equal(t, int64(10000), last.Count)
	assert.True(t, math.IsInf(last.InvertedPercentile(), 1))
	for i := 1; i < len(d); i++ {
		assert.GreaterOrEqual(t, d[i].Percentile, d[i-1].Percentile)
		assert.GreaterOrEqual(t, d[i].Latency, d[i-1].Latency)
	}
	// The plot's x axis: 99% is 100, 99.9% is 1000.
	assert.InDelta(t, 100, Point{Percentile: 99}.InvertedPercentile(), 1e-9)
	assert.InDelta(t, 1000, Point{Percentile: 99.9}.InvertedPercentile(), 1e-6)
}
