package member

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ByteSize is a number of bytes, written in YAML and on the command line
// as a plain number or with a unit: 512MiB, 1GiB, 2GB, 64KiB, 100B
// (KiB, MiB, GiB, TiB are powers of 1024; KB, MB, GB, TB of 1000).
type ByteSize int64

// UnmarshalYAML reads a number of bytes or a size with its unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseByteSize(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = ByteSize(v)
	return nil
}

var byteUnits = []struct {
	suffix string
	factor float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// ParseByteSize reads a size: a non-negative number of bytes, or a
// number with a unit (1GiB, 512MiB, 1.5GB).
func ParseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	factor := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || v*factor >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q: want a number of bytes or a number with a unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB)", s)
	}
	return int64(v * factor), nil
}

// FormatByteSize writes a size the way ParseByteSize reads it.
func FormatByteSize(n int64) string {
	for _, u := range []struct {
		suffix string
		factor int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.factor && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	if n >= 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + "MiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Fractions of the memory a member sees that become its default memory
// limit: a container's limit leaves room for what is not Go's heap (its
// stacks, the runtime, the binary); a machine's also for its other
// processes.
const (
	cgroupFraction  = 0.9
	machineFraction = 0.75
	// poolFraction of the memory limit is what queries may hold together
	// by default (query.memory-limit-per-member); the rest is the maps'.
	poolFraction = 0.5
)

// ResolveMemoryLimit returns the member's memory limit in bytes and where
// it came from: memory-limit in the configuration; else GOMEMLIMIT when
// the environment sets one; else 90% of the cgroup's memory limit (a
// container); else 75% of the machine's memory.
func (c *Config) ResolveMemoryLimit() (int64, string) {
	if c.MemoryLimit > 0 {
		return int64(c.MemoryLimit), "configuration"
	}
	return defaultMemoryLimit("/")
}

// defaultMemoryLimit derives the limit from the environment, reading the
// cgroup and the machine's memory under root (tests pass a directory of
// their own).
func defaultMemoryLimit(root string) (int64, string) {
	if os.Getenv("GOMEMLIMIT") != "" {
		if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
			return l, "GOMEMLIMIT"
		}
	}
	machine := machineMemory(root)
	if cg, ok := cgroupMemory(root); ok && (machine == 0 || cg < machine) {
		return int64(float64(cg) * cgroupFraction), "cgroup"
	}
	if machine > 0 {
		return int64(float64(machine) * machineFraction), "machine"
	}
	return 1 << 30, "fallback (no cgroup or /proc/meminfo)"
}

// machineMemory reads MemTotal from /proc/meminfo (0 when unknown).
func machineMemory(root string) int64 {
	f, err := os.Open(filepath.Join(root, "proc", "meminfo"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupMemory returns the smallest memory limit of this process's cgroup
// and its ancestors (cgroup v2 memory.max, v1 memory.limit_in_bytes), if
// one is set.
func cgroupMemory(root string) (int64, bool) {
	f, err := os.Open(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	best, found := int64(math.MaxInt64), false
	consider := func(dir, base, file string) {
		for d := dir; ; d = filepath.Dir(d) {
			if v, ok := readLimit(filepath.Join(d, file)); ok && v < best {
				best, found = v, true
			}
			if d == base || len(d) <= len(base) {
				return
			}
		}
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-id:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		path := filepath.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "":
			base := filepath.Join(root, "sys", "fs", "cgroup")
			consider(filepath.Join(base, path), base, "memory.max")
		case hasController(parts[1], "memory"):
			base := filepath.Join(root, "sys", "fs", "cgroup", "memory")
			consider(filepath.Join(base, path), base, "memory.limit_in_bytes")
		}
	}
	return best, found
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readLimit reads a cgroup memory limit file: "max" or a huge number mean
// none.
func readLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<60 {
		return 0, false
	}
	return v, true
}
