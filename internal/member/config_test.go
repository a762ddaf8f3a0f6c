package member

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atolldb/atoll/internal/store"
)

func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "member.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfig(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, `
cluster-name: prod
bind: 127.0.0.1:6701
maps:
  sessions-*:
    ttl: 30m
    max-idle: 5m
    eviction: {policy: LRU, max-entries: 100000}
    backup-count: 2
  audit:
    per-entry-stats-enabled: true
log: {level: debug, format: json}
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClusterName != "prod" || cfg.Bind != "127.0.0.1:6701" || cfg.Admin != "127.0.0.1:8080" || cfg.PartitionCount != 271 {
		t.Fatalf("config %+v", cfg)
	}
	mc, err := cfg.Maps["sessions-*"].toMaps()
	if err != nil || mc.TTL != 30*time.Minute || mc.MaxIdle != 5*time.Minute || mc.Eviction.Policy != store.EvictionLRU || mc.Eviction.MaxEntries != 100000 || mc.BackupCount != 2 {
		t.Fatalf("map config %+v, %v", mc, err)
	}
	if mc.PerEntryStats {
		t.Fatal("per-entry statistics on without per-entry-stats-enabled")
	}
	if mc, err := cfg.Maps["audit"].toMaps(); err != nil || !mc.PerEntryStats {
		t.Fatalf("audit map config %+v, %v", mc, err)
	}
}

func TestLoadConfigRejects(t *testing.T) {
	cases := map[string]string{
		"unknown key":      "cluster-nmae: typo\n",
		"bad duration":     "maps: {m: {ttl: soon}}\n",
		"bad policy":       "maps: {m: {eviction: {policy: RANDOM}}}\n",
		"bad bind":         "bind: nowhere\n",
		"too many backups": "maps: {m: {backup-count: 7}}\n",
		"bad log level":    "log: {level: loud}\n",
		"zero partitions":  "partition-count: 0\n",
		"tls without a ca": "tls: {cert-file: a, key-file: b}\n",
		"bad client-auth":  "tls: {cert-file: a, key-file: b, ca-file: c, client-auth: maybe}\n",
		"unknown role":     "security: {users: [{name: u, password-hash: '$2a$04$abcdefghijklmnopqrstuu5Yh7oo6G9Yv4yX3p8Rp7Kqf2Eez1cOK', roles: [nope]}]}\n",
		"bad hash":         "security: {users: [{name: u, password-hash: plain, roles: [r]}], roles: {r: {}}}\n",
		"no principals":    "security: {roles: {r: {}}}\n",
		"zero listeners":   "limits: {max-listeners-per-connection: 0}\n",
		"failure timeout":  "gossip: {failure-timeout: 10ms}\n",
	}
	for name, yaml := range cases {
		if _, err := LoadConfig(writeConfig(t, yaml)); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), "config") {
			t.Errorf("%s: error does not say it is about the config: %v", name, err)
		}
	}
}

func TestAdvertiseAddr(t *testing.T) {
	for _, tc := range []struct {
		configured string
		bound      *net.TCPAddr
		check      func(string) bool
	}{
		{"db1.example:5701", &net.TCPAddr{IP: net.IPv4zero, Port: 5701}, func(s string) bool { return s == "db1.example:5701" }},
		{"", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5702}, func(s string) bool { return s == "127.0.0.1:5702" }},
		{"", &net.TCPAddr{IP: net.IPv4zero, Port: 5703}, func(s string) bool {
			host, port, err := net.SplitHostPort(s)
			ip := net.ParseIP(host)
			return err == nil && port == "5703" && ip != nil && !ip.IsUnspecified()
		}},
	} {
		got, err := advertiseAddr(tc.configured, tc.bound)
		if err != nil || !tc.check(got) {
			t.Errorf("advertiseAddr(%q, %v) = %q, %v", tc.configured, tc.bound, got, err)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "100B": 100, "64KiB": 64 << 10, "512MiB": 512 << 20, "1GiB": 1 << 30,
		"1.5GiB": 3 << 29, "2GB": 2e9, "10MB": 1e7, " 3 TiB ": 3 << 40, "4KB": 4000,
	} {
		got, err := ParseByteSize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1GiB", "1 GiG", "1e30GiB", "NaN", "GiB"} {
		if _, err := ParseByteSize(in); err == nil || !strings.Contains(err.Error(), "size") {
			t.Errorf("%q: accepted (%v)", in, err)
		}
	}
	for _, n := range []int64{0, 100, 64 << 10, 3 << 29, 1 << 30, 5 << 40} {
		if back, err := ParseByteSize(FormatByteSize(n)); err != nil || back != n {
			t.Errorf("%d → %q → %d, %v", n, FormatByteSize(n), back, err)
		}
	}
}

func TestMemoryConfig(t *testing.T) {
	cfg, err := LoadConfig(writeConfig(t, `
memory-limit: 2GiB
query:
  memory-limit-per-query: 64MiB
  memory-limit-per-member: 1GiB
  breaker: {pool-open: 0.8, pool-close: 0.6, retry-after: 500ms, admission-wait: 2s}
`))
	if err != nil {
		t.Fatal(err)
	}
	if limit, from := cfg.ResolveMemoryLimit(); limit != 2<<30 || from != "configuration" {
		t.Fatalf("memory limit %d from %s", limit, from)
	}
	q := cfg.Query
	if q.MemoryLimitPerQuery != 64<<20 || q.MemoryLimitPerMember != 1<<30 || !q.Breaker.Enabled || q.Breaker.PoolOpen != 0.8 ||
		q.Breaker.HeapOpen != 0.85 || time.Duration(q.Breaker.RetryAfter) != 500*time.Millisecond || time.Duration(q.Breaker.AdmissionWait) != 2*time.Second {
		t.Fatalf("query config %+v", q)
	}
	pc := poolConfig(q, 2<<30, nil)
	if pc.Limit != 1<<30 || pc.MemoryLimit != 2<<30 || !pc.Breaker || pc.PoolClose != 0.6 || pc.AdmissionWait != 2*time.Second {
		t.Fatalf("pool %+v", pc)
	}
	// By default queries may hold half of the memory limit.
	if pc := poolConfig(DefaultConfig().Query, 2<<30, nil); pc.Limit != 1<<30 {
		t.Fatalf("default pool limit %d", pc.Limit)
	}
	for name, yaml := range map[string]string{
		"bad size":              "memory-limit: much\n",
		"negative per query":    "query: {memory-limit-per-query: -5}\n",
		"pool above the member": "memory-limit: 1GiB\nquery: {memory-limit-per-member: 2GiB}\n",
		"fraction above one":    "query: {breaker: {heap-open: 1.5}}\n",
		"close above open":      "query: {breaker: {pool-open: 0.5, pool-close: 0.6}}\n",
		"negative wait":         "query: {breaker: {admission-wait: -1s}}\n",
	} {
		if _, err := LoadConfig(writeConfig(t, yaml)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// fakeRoot writes files under a directory standing for /.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestDefaultMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	meminfo := "MemTotal:       16777216 kB\nMemFree:         1000 kB\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
		from  string
	}{
		{"cgroup v2", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/kubepods/pod1\n",
			"sys/fs/cgroup/kubepods/pod1/memory.max": "4294967296\n", "sys/fs/cgroup/kubepods/memory.max": "max\n"}, 4 << 30 * 9 / 10, "cgroup"},
		{"cgroup v2, limit on a parent", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "max\n", "sys/fs/cgroup/a/memory.max": "2147483648\n"}, 2 << 30 * 9 / 10, "cgroup"},
		{"cgroup v1", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n",
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "1073741824\n"}, 1 << 30 * 9 / 10, "cgroup"},
		{"cgroup v1 unlimited", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "4:memory:/\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 16 << 30 * 3 / 4, "machine"},
		{"cgroup above the machine", map[string]string{"proc/meminfo": meminfo, "proc/self/cgroup": "0::/\n",
			"sys/fs/cgroup/memory.max": "68719476736\n"}, 16 << 30 * 3 / 4, "machine"},
		{"no cgroup", map[string]string{"proc/meminfo": meminfo}, 16 << 30 * 3 / 4, "machine"},
	} {
		got, from := defaultMemoryLimit(fakeRoot(t, tc.files))
		if got != tc.want || from != tc.from {
			t.Errorf("%s: %d from %s, want %d from %s", tc.name, got, from, tc.want, tc.from)
		}
	}
}
