package profiling

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// FlameGraph is a profile folded into a tree of call stacks, ready to
// draw: each node is a function called from the path above it.
type FlameGraph struct {
	Title string
	unit  string
	root  *frame
	diff  bool
}

type frame struct {
	name     string
	cur      int64 // value in the profile
	base     int64 // value in the base profile (diffs only)
	children map[string]*frame
}

func (f *frame) child(name string) *frame {
	c, ok := f.children[name]
	if !ok {
		c = &frame{name: name, children: map[string]*frame{}}
		f.children[name] = c
	}
	return c
}

// NewFlameGraph folds p's samples, using its default sample type (the
// last one when it names none). Samples labelled pprof::base (a Diff)
// count as the base, negated back.
func NewFlameGraph(p *profile.Profile, title string) (*FlameGraph, error) {
	if len(p.SampleType) == 0 {
		return nil, fmt.Errorf("the profile has no sample types")
	}
	idx := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == p.DefaultSampleType {
			idx = i
		}
	}
	g := &FlameGraph{Title: title, unit: p.SampleType[idx].Unit, root: &frame{name: "all", children: map[string]*frame{}}}
	var stack []string
	for _, s := range p.Sample {
		if idx >= len(s.Value) {
			continue
		}
		v := s.Value[idx]
		isBase := len(s.Label[baseLabel]) > 0
		if isBase {
			g.diff = true
			v = -v
		}
		stack = stack[:0]
		for i := len(s.Location) - 1; i >= 0; i-- {
			lines := s.Location[i].Line
			if len(lines) == 0 {
				stack = append(stack, fmt.Sprintf("0x%x", s.Location[i].Address))
				continue
			}
			for j := len(lines) - 1; j >= 0; j-- { // lines[0] is the innermost inlined call
				name := "?"
				if fn := lines[j].Function; fn != nil {
					name = fn.Name
				}
				stack = append(stack, name)
			}
		}
		f := g.root
		add(f, v, isBase)
		for _, name := range stack {
			f = f.child(name)
			add(f, v, isBase)
		}
	}
	return g, nil
}

func add(f *frame, v int64, base bool) {
	if base {
		f.base += v
	} else {
		f.cur += v
	}
}

// Frames returns the names of every function in the graph, for tests and
// summaries.
func (g *FlameGraph) Frames() []string {
	seen := map[string]bool{}
	var walk func(*frame)
	walk = func(f *frame) {
		seen[f.name] = true
		for _, c := range f.children {
			walk(c)
		}
	}
	walk(g.root)
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Total returns the root's value (the profile's total; in a diff, the
// profile's total, which the base was scaled to).
func (g *FlameGraph) Total() int64 { return g.root.cur }

// Layout of the SVG.
const (
	svgWidth   = 1200.0
	frameH     = 17.0
	topMargin  = 52.0
	sideMargin = 10.0
	minWidth   = 0.4 // narrower frames are not drawn
	charWidth  = 6.6 // of the 11px monospace font
)

// WriteSVG draws the graph as a self-contained SVG (no scripts, no fonts
// or styles from elsewhere): the roots at the bottom, callees above their
// callers, widths proportional to the value. Hovering a frame shows its
// function and value. In a diff, widths are the mean of the two profiles
// and colours say what got hotter (red) or cooler (blue).
func (g *FlameGraph) WriteSVG(w io.Writer) error {
	depth := g.depth(g.root)
	height := topMargin + float64(depth)*frameH + 2*sideMargin
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="monospace" font-size="11">
<rect x="0" y="0" width="100%%" height="100%%" fill="#f8f8f2"/>
`, svgWidth, height, svgWidth, height)
	fmt.Fprintf(bw, `<text x="%.0f" y="20" font-size="15" text-anchor="middle">%s</text>`+"\n", svgWidth/2, esc(g.Title))
	sub := fmt.Sprintf("total %s", g.format(g.root.cur))
	if g.diff {
		sub += fmt.Sprintf("; base scaled to the same total; red: hotter than the base, blue: cooler")
	}
	fmt.Fprintf(bw, `<text x="%.0f" y="38" fill="#555" text-anchor="middle">%s</text>`+"\n", svgWidth/2, esc(sub))
	scale := (svgWidth - 2*sideMargin) / float64(g.weight(g.root))
	g.draw(bw, g.root, sideMargin, height-sideMargin-frameH, scale)
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// weight is a frame's width in value units.
func (g *FlameGraph) weight(f *frame) int64 {
	if g.diff {
		return (f.cur + f.base + 1) / 2
	}
	return f.cur
}

func (g *FlameGraph) depth(f *frame) int {
	d := 0
	for _, c := range f.children {
		d = max(d, g.depth(c))
	}
	return d + 1
}

func (g *FlameGraph) draw(w *bufio.Writer, f *frame, x, y, scale float64) {
	width := float64(g.weight(f)) * scale
	if width < minWidth {
		return
	}
	tip := fmt.Sprintf("%s\n%s (%.2f%%)", f.name, g.format(f.cur), 100*float64(f.cur)/float64(max(g.root.cur, 1)))
	if g.diff {
		tip = fmt.Sprintf("%s\nnow %s, base %s, %s", f.name, g.format(f.cur), g.format(f.base), g.signed(f.cur-f.base))
	}
	fmt.Fprintf(w, `<g><title>%s</title><rect x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s" rx="2"/>`,
		esc(tip), x, y, width, frameH-1, g.color(f))
	if chars := int((width - 6) / charWidth); chars >= 3 {
		label := f.name
		if len(label) > chars {
			label = label[:chars-2] + ".."
		}
		fmt.Fprintf(w, `<text x="%.2f" y="%.1f">%s</text>`, x+3, y+frameH-5, esc(label))
	}
	fmt.Fprintln(w, "</g>")
	names := make([]string, 0, len(f.children))
	for n := range f.children {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := f.children[n]
		g.draw(w, c, x, y-frameH, scale)
		x += float64(g.weight(c)) * scale
	}
}

// color is a warm colour chosen by name in a plain graph, and in a diff
// red or blue by how much hotter or cooler the frame got.
func (g *FlameGraph) color(f *frame) string {
	if g.diff {
		sum := f.cur + f.base
		if sum == 0 {
			return "rgb(220,220,220)"
		}
		d := float64(f.cur-f.base) / float64(sum) // -1 .. 1
		if math.Abs(d) < 0.005 {
			return "rgb(220,220,220)"
		}
		v := int(220 - 160*math.Abs(d))
		if d > 0 {
			return fmt.Sprintf("rgb(255,%d,%d)", v, v)
		}
		return fmt.Sprintf("rgb(%d,%d,255)", v, v)
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(f.name))
	n := h.Sum32()
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+n%50, 80+(n>>8)%130, 40+(n>>16)%55)
}

func (g *FlameGraph) format(v int64) string {
	switch g.unit {
	case "nanoseconds":
		d := time.Duration(v)
		switch {
		case d >= time.Second || d <= -time.Second:
			return d.Round(time.Millisecond).String()
		case d >= time.Millisecond || d <= -time.Millisecond:
			return d.Round(time.Microsecond).String()
		}
		return d.String()
	case "bytes":
		return fmt.Sprintf("%.2f MiB", float64(v)/(1<<20))
	}
	if g.unit == "" || g.unit == "count" {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%d %s", v, g.unit)
}

func (g *FlameGraph) signed(v int64) string {
	if v >= 0 {
		return "+" + g.format(v)
	}
	return "-" + g.format(-v)
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
