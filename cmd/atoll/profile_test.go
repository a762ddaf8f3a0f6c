package main

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// Frames of the server's map-operation handlers, as they appear in
// profiles.
const (
	setFrame = "github.com/atolldb/atoll/internal/server.(*Server).set"
	getFrame = "github.com/atolldb/atoll/internal/server.(*Server).get"
)

// load runs sets and gets (one set in every setShare operations) on a
// member until ctx ends.
func load(ctx context.Context, t *testing.T, addr string, setShare int) {
	cl, err := client.New(ctx, client.Config{Addresses: []string{addr}, ClusterName: "test", StatisticsInterval: -1})
	if err != nil {
		t.Error(err)
		return
	}
	defer cl.Close()
	m := client.GetMap[int32, string](cl, "profiled")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int32(w); ctx.Err() == nil; i += 8 {
				var err error
				if int(i)%setShare == 0 {
					err = m.Set(ctx, i%5000, "a value of a few dozen bytes, for the profile")
				} else {
					_, _, err = m.Get(ctx, i%5000)
				}
				if err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// svgText checks that path is well-formed XML with an <svg> root and
// returns its text.
func svgText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q, want svg", path, root)
	}
	return string(b)
}

// TestProfile captures CPU and allocation profiles of a member process
// under load with `atoll profile`, cuts one to the set operations with
// --label, and diffs two captures with --diff-base.
func TestProfile(t *testing.T) {
	c := testcluster.Start(t, testcluster.Process, 1, testcluster.Options{})
	admin := c.Members()[0].AdminAddr
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	profile := func(setShare int, args ...string) string {
		t.Helper()
		lctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			load(lctx, t, c.Addrs()[0], setShare)
		}()
		out, errOut, code := c.Run(append([]string{"profile", "--member", admin, "--seconds", "2"}, args...)...)
		stop()
		<-done
		if code != 0 {
			t.Fatalf("atoll profile %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}

	cpu := filepath.Join(dir, "cpu")
	profile(2, "cpu", "--out", cpu)
	if fi, err := os.Stat(cpu + ".pb.gz"); err != nil || fi.Size() == 0 {
		t.Fatalf("raw profile: %v", err)
	}
	text := svgText(t, cpu+".svg")
	for _, frame := range []string{setFrame, getFrame} {
		if !strings.Contains(text, frame) {
			t.Errorf("the CPU flame graph has no frame %s", frame)
		}
	}

	allocs := filepath.Join(dir, "allocs")
	profile(2, "allocs", "--out", allocs+".svg")
	if text := svgText(t, allocs+".svg"); !strings.Contains(text, setFrame) {
		t.Errorf("the allocation flame graph has no frame %s", setFrame)
	}

	sets := filepath.Join(dir, "sets")
	if out := profile(2, "cpu", "--label", "op=set", "--out", sets); !strings.Contains(out, "flame graph of") {
		t.Errorf("unexpected output %q", out)
	}
	text = svgText(t, sets+".svg")
	if !strings.Contains(text, setFrame) || strings.Contains(text, getFrame) {
		t.Errorf("--label op=set: set frame %v, get frame %v; want only set", strings.Contains(text, setFrame), strings.Contains(text, getFrame))
	}

	// Mostly sets against the first, balanced capture: sets got hotter.
	diff := filepath.Join(dir, "diff")
	profile(20, "cpu", "--diff-base", cpu+".pb.gz", "--out", diff)
	text = svgText(t, diff+".svg")
	if !strings.Contains(text, "hotter") || !strings.Contains(text, setFrame) || !strings.Contains(text, "base ") {
		t.Error("the diff flame graph does not show the set handler against the base")
	}
}

// TestProfileBadInput checks that bad input gets a clear error.
func TestProfileBadInput(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	admin := c.Members()[0].AdminAddr
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "not.pb.gz")
	if err := os.WriteFile(notProfile, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "gpu", "--out", dir + "/x"}, `unknown profile type "gpu"`},
		{[]string{"profile", "cpu", "--member", "127.0.0.1:1", "--seconds", "1", "--out", dir + "/x"}, "member admin 127.0.0.1:1"},
		{[]string{"profile", "cpu", "--member", admin, "--label", "op", "--out", dir + "/x"}, "want KEY=VALUE"},
		{[]string{"profile", "cpu", "--member", admin, "--seconds", "0", "--out", dir + "/x"}, "want at least 1"},
		{[]string{"profile", "cpu", "--member", admin, "--out", dir + "/x", "--diff-base", notProfile}, "not a profile"},
		{[]string{"profile", "heap", "--member", admin, "--out", dir + "/x", "--label", "op=set"}, "carries no labels"},
		{[]string{"profile", "cpu", "--member", admin, "--out", dir + "/x", "--rate", "5"}, "mutex and block"},
		{[]string{"profile", "cpu", "--member", admin}, "--out FILE is required"},
	} {
		out, errOut, code := c.Run(tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "panic") {
			t.Errorf("atoll %s: exit %d, stdout %q, stderr %q; want an error with %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	// A CPU profile cannot be diffed against a heap profile.
	heap := filepath.Join(dir, "heap")
	if _, errOut, code := c.Run("profile", "heap", "--member", admin, "--out", heap); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code := c.Run("profile", "cpu", "--member", admin, "--seconds", "1", "--out", dir+"/y", "--diff-base", heap+".pb.gz")
	if code == 0 || !strings.Contains(errOut, "--diff-base") || strings.Contains(errOut, "panic") {
		t.Errorf("cpu against a heap base: exit %d, %q", code, errOut)
	}
}
