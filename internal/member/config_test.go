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
