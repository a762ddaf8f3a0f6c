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
)

func TestLabels(t *testing.T) {
	ctx := QueryLabels(context.Background(), 7, "sql")
	for k, want := range map[string]string{LabelQueryID: "7", LabelKind: "sql"} {
		if got, _ := pprof.Label(ctx, k); got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	ctx = OpLabels("m", "set")
	if got, _ := pprof.Label(ctx, LabelOp); got != "set" {
		t.Errorf("op label %q", got)
	}
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
	if err := g.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		if _, err := dec.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
	return buf.String()
}

func TestKeepLabelDiffAndFlameGraph(t *testing.T) {
	p := synthetic(map[string]int64{"a": 300, "b": 100, "c": 100})
	n, err := KeepLabel(p, LabelOp, "set")
	if err != nil || n != 2 {
		t.Fatalf("KeepLabel: %d samples, %v", n, err)
	}
	g, err := NewFlameGraph(p, "sets")
	if err != nil {
		t.Fatal(err)
	}
	if frames := strings.Join(g.Frames(), " "); strings.Contains(frames, " a ") || !strings.Contains(frames, "b") {
		t.Errorf("frames after keeping op=set: %s", frames)
	}
	if g.Total() != 200 {
		t.Errorf("total %d, want 200", g.Total())
	}
	if svg := svgOf(t, g); !strings.Contains(svg, "c&lt;T&gt;&amp;") {
		t.Error("function names are not escaped")
	}

	unlabelled := synthetic(map[string]int64{"a": 1})
	for _, s := range unlabelled.Sample {
		s.Label = nil
	}
	if _, err := KeepLabel(unlabelled, LabelOp, "set"); !errors.Is(err, ErrNoLabels) {
		t.Errorf("KeepLabel of a profile without labels: %v", err)
	}

	// b got hotter, a cooler.
	base := synthetic(map[string]int64{"a": 300, "b": 100, "c": 100})
	cur := synthetic(map[string]int64{"a": 100, "b": 300, "c": 100})
	d, err := Diff(cur, base)
	if err != nil {
		t.Fatal(err)
	}
	g, err = NewFlameGraph(d, "diff")
	if err != nil {
		t.Fatal(err)
	}
	svg := svgOf(t, g)
	if !strings.Contains(svg, "hotter") || !strings.Contains(svg, "b&#xA;now 400ns, base 200ns, +200ns") {
		t.Errorf("the diff does not show b hotter:\n%s", svg)
	}
	heap := &profile.Profile{SampleType: []*profile.ValueType{{Type: "inuse_space", Unit: "bytes"}}}
	if _, err := Diff(cur, heap); err == nil {
		t.Error("a CPU profile was diffed against a heap profile")
	}
}
