// Package latency records request latencies of the benchmark runs in
// HdrHistogram (github.com/HdrHistogram/hdrhistogram-go): microseconds
// from 1 µs to one hour at 3 significant digits, the geometry the
// Hazelcast runner's Java HdrHistogram uses too, so that both runners'
// histograms travel in their results files in HdrHistogram's own
// compressed V2 encoding and decode alike.
package latency

import (
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry of every histogram: values in microseconds.
const (
	Unit              = time.Microsecond
	Lowest            = 1
	Highest           = int64(time.Hour / Unit)
	SignificantDigits = 3
)

// Histogram is a latency distribution. It is not safe for concurrent
// use: give every recording goroutine its own and Merge them.
type Histogram struct {
	h *hdrhistogram.Histogram
}

// New returns an empty histogram.
func New() *Histogram {
	return &Histogram{h: hdrhistogram.New(Lowest, Highest, SignificantDigits)}
}

// Record adds one latency. Latencies under a microsecond count as one,
// those over an hour as an hour.
func (h *Histogram) Record(d time.Duration) {
	v := int64(d / Unit)
	switch {
	case v < Lowest:
		v = Lowest
	case v > Highest:
		v = Highest
	}
	// The value is within the geometry, so recording cannot fail.
	_ = h.h.RecordValue(v)
}

// Merge adds every value of o.
func (h *Histogram) Merge(o *Histogram) {
	h.h.Merge(o.h)
}

// Count is the number of latencies recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Percentile returns the latency at percentile p (0 < p ≤ 100): the
// highest value equivalent, at the histogram's precision, to the one
// below which p percent of the latencies lie (HdrHistogram's
// getValueAtPercentile). 0 for an empty histogram.
func (h *Histogram) Percentile(p float64) time.Duration {
	return time.Duration(h.h.ValueAtPercentile(p)) * Unit
}

// Max is the longest latency recorded (at the histogram's precision).
func (h *Histogram) Max() time.Duration { return time.Duration(h.h.Max()) * Unit }

// Mean is the mean latency.
func (h *Histogram) Mean() time.Duration { return time.Duration(h.h.Mean() * float64(Unit)) }

// Encode returns the histogram in HdrHistogram's compressed V2 encoding,
// base64 ("HISTFAAA..."), as Java's HdrHistogram and hdrhistogram-go read.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encoding a latency histogram: %w", err)
	}
	return string(b), nil
}

// DecodeError reports a histogram string that is not an HdrHistogram of
// this package's unit.
type DecodeError struct {
	Why string
	Err error
}

func (e *DecodeError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("latency histogram: %s: %v", e.Why, e.Err)
	}
	return "latency histogram: " + e.Why
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Decode reads a histogram written by Encode (or by Java's HdrHistogram
// with the same geometry).
func Decode(s string) (*Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, &DecodeError{Why: "not an HdrHistogram in compressed V2 encoding", Err: err}
	}
	if h.LowestTrackableValue() != Lowest || h.SignificantFigures() != SignificantDigits {
		return nil, &DecodeError{Why: fmt.Sprintf("lowest value %d and %d significant digits, want %d µs and %d",
			h.LowestTrackableValue(), h.SignificantFigures(), Lowest, SignificantDigits)}
	}
	return &Histogram{h: h}, nil
}

// Point is one step of a percentile distribution: the latency at or
// below which Percentile percent of the requests completed, and how many
// did.
type Point struct {
	Percentile float64       `json:"percentile"`
	Latency    time.Duration `json:"-"`
	Count      int64         `json:"count"`
}

// InvertedPercentile is 1/(1-p): the x position of the point on
// HdrHistogram's percentile plot (a log axis where 90%, 99%, 99.9%...
// are equally spaced); +Inf at 100%.
func (p Point) InvertedPercentile() float64 {
	if p.Percentile >= 100 {
		return math.Inf(1)
	}
	return 1 / (1 - p.Percentile/100)
}

// TicksPerHalfDistance is the resolution of Distribution, as in
// HdrHistogram's outputPercentileDistribution (5 points for each halving
// of the distance to 100%).
const TicksPerHalfDistance = 5

// Distribution returns the percentile distribution that HdrHistogram's
// outputPercentileDistribution prints and its plotter draws, ending with
// the maximum at 100%.
func (h *Histogram) Distribution() []Point {
	var out []Point
	for _, b := range h.h.CumulativeDistributionWithTicks(TicksPerHalfDistance) {
		out = append(out, Point{Percentile: b.Quantile, Latency: time.Duration(b.ValueAt) * Unit, Count: b.Count})
	}
	return out
}
