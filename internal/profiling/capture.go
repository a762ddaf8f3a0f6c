package profiling

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// Kinds are the profiles `atoll profile` captures, with the admin path of
// each.
var Kinds = map[string]string{
	"cpu":    "/debug/pprof/profile",
	"wall":   "/debug/pprof/wall",
	"allocs": "/debug/pprof/allocs",
	"heap":   "/debug/pprof/heap",
	"mutex":  "/debug/pprof/mutex",
	"block":  "/debug/pprof/block",
}

// KindNames lists the kinds, sorted, for messages.
func KindNames() []string {
	var names []string
	for k := range Kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// Admin is a member's admin HTTP address and how to reach it: over TLS
// (trusting the cluster's CA) and with an Authorization header naming a
// principal with the admin action, when the member has them.
type Admin struct {
	Addr string
	// TLS, when set, speaks HTTPS with this client configuration.
	TLS *tls.Config
	// Authorization is the header's value ("Basic ...", "Bearer ...").
	Authorization string
}

func (a Admin) url(path string) url.URL {
	scheme := "http"
	if a.TLS != nil {
		scheme = "https"
	}
	return url.URL{Scheme: scheme, Host: a.Addr, Path: path}
}

// do sends a request to the admin address and returns the body of a 200
// answer (any other status is an error with the answer's text).
func (a Admin) do(req *http.Request) ([]byte, error) {
	if a.Authorization != "" {
		req.Header.Set("Authorization", a.Authorization)
	}
	c := http.DefaultClient
	if a.TLS != nil {
		c = &http.Client{Transport: &http.Transport{TLSClientConfig: a.TLS, DisableKeepAlives: true}}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
	}
	return body, nil
}

// Get reads a path of the admin address (a 200 answer's body).
func (a Admin) Get(ctx context.Context, path string) ([]byte, error) {
	u := a.url(path)
	return a.get(ctx, u)
}

func (a Admin) get(ctx context.Context, u url.URL) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	return a.do(req)
}

// Fetch captures a profile of kind from the member whose admin HTTP
// address is admin. cpu and wall profile the next seconds; allocs, mutex
// and block are the events of the next seconds (a delta); heap is the
// memory in use now (seconds does not apply). It returns the raw profile
// (gzipped protobuf, as served) and its parsed form.
func Fetch(ctx context.Context, admin Admin, kind string, seconds int) ([]byte, *profile.Profile, error) {
	path, ok := Kinds[kind]
	if !ok {
		return nil, nil, fmt.Errorf("unknown profile type %q: want one of %s", kind, strings.Join(KindNames(), ", "))
	}
	if seconds < 1 {
		return nil, nil, fmt.Errorf("--seconds %d: want at least 1", seconds)
	}
	u := admin.url(path)
	if kind != "heap" {
		u.RawQuery = url.Values{"seconds": {fmt.Sprint(seconds)}}.Encode()
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+30*time.Second)
	defer cancel()
	body, err := admin.get(ctx, u)
	if err != nil {
		return nil, nil, fmt.Errorf("member admin %s: %w", admin.Addr, err)
	}
	p, err := profile.ParseData(body)
	if err != nil {
		return nil, nil, fmt.Errorf("member admin %s sent a %s profile that does not parse: %w", admin.Addr, kind, err)
	}
	if kind == "allocs" {
		// A delta of the heap profile loses its default, and its in-use
		// columns go negative as memory is freed: an allocation profile
		// shows the bytes allocated.
		p.DefaultSampleType = "alloc_space"
	}
	return body, p, nil
}

// SetRate sets the sampling rate of the mutex or block profile on the
// member and returns the rate it had.
func SetRate(ctx context.Context, admin Admin, kind string, rate int) (previous int, err error) {
	if kind != "mutex" && kind != "block" {
		return 0, fmt.Errorf("a sampling rate applies to mutex and block profiles, not %s", kind)
	}
	u := admin.url("/debug/pprof/rates")
	before, err := admin.get(ctx, u)
	if err != nil {
		return 0, fmt.Errorf("member admin %s: %w", admin.Addr, err)
	}
	for _, line := range strings.Split(string(before), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == kind {
			_, _ = fmt.Sscan(f[1], &previous)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(url.Values{kind: {fmt.Sprint(rate)}}.Encode()))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if _, err := admin.do(req); err != nil {
		return 0, fmt.Errorf("member admin %s: %w", admin.Addr, err)
	}
	return previous, nil
}

// ParseLabel parses a --label argument, KEY=VALUE.
func ParseLabel(s string) (key, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" || value == "" {
		return "", "", fmt.Errorf("--label %q: want KEY=VALUE, e.g. %s=set or %s=sql", s, LabelOp, LabelKind)
	}
	return key, value, nil
}

// ErrNoLabels reports a profile whose samples carry no labels at all: Go
// records labels in CPU and goroutine profiles only.
var ErrNoLabels = errors.New("the profile carries no labels (Go records pprof labels in CPU profiles, not in wall, heap, allocs, mutex or block profiles)")

// KeepLabel keeps the samples of p whose label key has value (pprof's
// FilterSamplesByTag) and returns how many samples remain.
func KeepLabel(p *profile.Profile, key, value string) (int, error) {
	labelled := slices.ContainsFunc(p.Sample, func(s *profile.Sample) bool { return len(s.Label) > 0 })
	if !labelled && len(p.Sample) > 0 {
		return 0, ErrNoLabels
	}
	p.FilterSamplesByTag(func(s *profile.Sample) bool { return slices.Contains(s.Label[key], value) }, nil)
	return len(p.Sample), nil
}

// baseLabel marks the samples of the base profile in a diff, as pprof's
// own -diff_base does.
const baseLabel = "pprof::base"

// Diff returns cur minus base as one profile (pprof's Merge of cur and the
// negated base; the base's samples carry the label pprof::base). base is
// first scaled to cur's total, so that the diff shows what took a larger
// or smaller share rather than a longer or busier capture. It fails when
// the two profiles are of different types.
func Diff(cur, base *profile.Profile) (*profile.Profile, error) {
	cur, base = cur.Copy(), base.Copy()
	for _, p := range []*profile.Profile{cur, base} {
		if p.PeriodType == nil { // pprof's comparison expects one
			p.PeriodType = &profile.ValueType{}
		}
	}
	if err := base.Normalize(cur); err != nil {
		return nil, fmt.Errorf("--diff-base: %w", err)
	}
	base.Scale(-1)
	base.SetLabel(baseLabel, []string{"true"})
	d, err := profile.Merge([]*profile.Profile{cur, base})
	if err != nil {
		return nil, fmt.Errorf("--diff-base: the profiles cannot be compared: %w", err)
	}
	return d, nil
}
