package profiling

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLabels(t *testing.T) {
	ctx := QueryLabels(context.Background(), 7, "sql")
	for k, want := range map[string]string{LabelQueryID: "7", LabelKind: "sql"} {
		got, _ := pprof.Label(ctx, k)
		assert.Equal(t, want, got, "label %s", k)
	}
	got, _ := pprof.Label(OpLabels("m", "set"), LabelOp)
	assert.Equal(t, "set", got, "op label")
}

// synthetic builds a CPU-like profile: main -> a -> b with labels.
func synthetic(values map[string]int64) *profile.Profile {
	fn := map[string]*profile.Function{}
	loc := map[string]*profile.Location{}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	for i, name := range []string{"main", "a", "b", "c<T>&"} {
		fn[name] = &profile.Function{ID: uint64(i + 1), Name: name}
		loc[name] = &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn[name]}}}
		p.Function = append(p.Function, fn[name])
		p.Location = append(p.Location, loc[name])
	}
	add := func(op string, v int64, stack ...string) {
		s := &profile.Sample{Value: []int64{1, v}, Label: map[string][]string{LabelOp: {op}}}
		for i := len(stack) - 1; i >= 0; i-- {
			s.Location = append(s.Location, loc[stack[i]])
		}
		p.Sample = append(p.Sample, s)
	}
	add("get", values["a"], "main", "a")
	add("set", values["b"], "main", "b")
	add("set", values["c"], "main", "b", "c<T>&")
	return p
}

func svgOf(t *testing.T, g *FlameGraph) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, g.WriteSVG(&buf))
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "not well-formed")
	}
	return buf.String()
}

func TestKeepLabelDiffAndFlameGraph(t *testing.T) {
	p := synthetic(map[string]int64{"a": 300, "b": 100, "c": 100})
	n, err := KeepLabel(p, LabelOp, "set")
	require.NoError(t, err)
	require.Equal(t, 2, n, "samples kept")
	g, err := NewFlameGraph(p, "sets")
	require.NoError(t, err)
	frames := strings.Join(g.Frames(), " ")
	assert.NotContains(t, frames, " a ", "frames after keeping op=set")
	assert.Contains(t, frames, "b", "frames after keeping op=set")
	assert.Equal(t, int64(200), g.Total())
	assert.Contains(t, svgOf(t, g), "c&lt;T&gt;&amp;", "function names are escaped")

	unlabelled := synthetic(map[string]int64{"a": 1})
	for _, s := range unlabelled.Sample {
		s.Label = nil
	}
	_, err = KeepLabel(unlabelled, LabelOp, "set")
	assert.ErrorIs(t, err, ErrNoLabels, "KeepLabel of a profile without labels")

	// b got hotter, a cooler.
	base := synthetic(map[string]int64{"a": 300, "b": 100, "c": 100})
	cur := synthetic(map[string]int64{"a": 100, "b": 300, "c": 100})
	d, err := Diff(cur, base)
	require.NoError(t, err)
	g, err = NewFlameGraph(d, "diff")
	require.NoError(t, err)
	svg := svgOf(t, g)
	assert.Contains(t, svg, "hotter", "the diff shows b hotter")
	assert.Contains(t, svg, "b&#xA;now 400ns, base 200ns, +200ns", "the diff shows b hotter")
	heap := &profile.Profile{SampleType: []*profile.ValueType{{Type: "inuse_space", Unit: "bytes"}}}
	_, err = Diff(cur, heap)
	assert.Error(t, err, "a CPU profile diffed against a heap profile")
}
