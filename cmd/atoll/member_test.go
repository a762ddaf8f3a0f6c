package main

import (
	"bufio"
	"context"
	"net/http"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/atolldb/atoll/internal/testcluster"
)

// TestMemberMemoryLimit: --memory-limit becomes the process's Go soft
// limit and the member's memory limit, of which queries may hold half.
func TestMemberMemoryLimit(t *testing.T) {
	cmd := exec.Command(testcluster.Binary(t), "member", "start", "--bind", "127.0.0.1:0", "--admin", "127.0.0.1:0",
		"--cluster-name", "limit", "--memory-limit", "300MiB")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	started := regexp.MustCompile(`msg="member started".* admin=(\S+)`)
	limitLine := regexp.MustCompile(`msg="memory limit" bytes=314572800 size=300MiB from=configuration`)
	admin, sawLimit := make(chan string, 1), make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if limitLine.MatchString(sc.Text()) {
				sawLimit <- true
			}
			if m := started.FindStringSubmatch(sc.Text()); m != nil {
				admin <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-admin:
	case <-time.After(60 * time.Second):
		t.Fatal("the member did not start")
	}
	select {
	case <-sawLimit:
	default:
		t.Fatal("the member did not log its memory limit before it started")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{
		"go_gc_gomemlimit_bytes":          300 << 20,
		"atoll_member_memory_limit_bytes": 300 << 20,
		"atoll_query_memory_limit_bytes":  150 << 20,
	} {
		f := fams[name]
		if f == nil || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetGauge().GetValue() != want {
			t.Errorf("%s: %v, want %v", name, f, want)
		}
	}
}
