// Package report holds the figures of a benchmark run of the workloads of
// bench/WORKLOADS.md and writes them as a table, as JSON and as an HTML
// page with charts. The JSON has the shape of the Hazelcast runner's
// results file (the same case ids and field names, plus Atoll's
// environment), so that a run compares with another run or with
// Hazelcast's figures alike.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/atolldb/atoll/bench/latency"
)

// Run is one benchmark run: its environment, its protocol and every case.
type Run struct {
	// Tool names the program that wrote the run ("atoll-bench",
	// "bench/hazelcast"); Hazelcast's runs name HazelcastVersion too.
	Tool             string `json:"tool,omitempty"`
	Date             string `json:"date"`
	HazelcastVersion string `json:"hazelcastVersion,omitempty"`
	JavaVersion      string `json:"javaVersion,omitempty"`
	GoVersion        string `json:"goVersion,omitempty"`
	OS               string `json:"os,omitempty"`
	Arch             string `json:"arch,omitempty"`
	CPUModel         string `json:"cpuModel,omitempty"`
	CPUs             int    `json:"cpus"`
	GOMAXPROCS       int    `json:"gomaxprocs,omitempty"`
	Mode             string `json:"mode"`
	Members          int    `json:"members"`
	MemberProcess    string `json:"memberProcess"`
	// ClientMemory holds the garbage collector's settings of the benchmark's
	// client process, when it ran alone (atoll-bench --client-memory and
	// --client-gogc).
	ClientMemory     string   `json:"clientMemory,omitempty"`
	Addresses        []string `json:"addresses,omitempty"`
	ClientThreads    int      `json:"clientThreads"`
	AEntries         int      `json:"aEntries"`
	BEntries         int      `json:"bEntries"`
	AWarmupSeconds   Float    `json:"aWarmupSeconds"`
	ADurationSeconds Float    `json:"aDurationSeconds"`
	BWarmupSeconds   Float    `json:"bWarmupSeconds"`
	BDurationSeconds Float    `json:"bDurationSeconds"`
	Rounds           int      `json:"rounds"`
	// RateMode is set for a run in latency mode: every case ran at a fixed
	// rate (its Rate) for one round of the duration, open loop.
	RateMode     bool   `json:"rateMode,omitempty"`
	TotalSeconds Float  `json:"totalSeconds"`
	LoadAvg      *Load  `json:"loadAvg,omitempty"`
	Cases        []Case `json:"cases"`
	// WorkloadB is keyed by kind and size, e.g. "COMPACT SMALL".
	WorkloadB map[string]BInfo `json:"workloadB"`
	// BOrder lists WorkloadB's keys in the order the run measured them
	// (absent in the Hazelcast runner's files: see BKeys).
	BOrder []string `json:"bOrder,omitempty"`
}

// Load is the host's one-minute load average at the start and end of a run.
type Load struct {
	Start Float `json:"start"`
	End   Float `json:"end"`
}

// Case holds the figures of one case through one API.
type Case struct {
	ID    string `json:"id"`    // "A3/sum IDS/SQL"
	Group string `json:"group"` // "A3"
	Name  string `json:"case"`  // "sum IDS"
	API   string `json:"api"`   // SQL, PRED or MAP
	Map   string `json:"map"`
	Text  string `json:"text"`
	// Check is what the validation run returned (nil if it did not run).
	Check *int64 `json:"check"`
	// Expected is the check the workload defines.
	Expected *int64 `json:"expected,omitempty"`
	// Ops counts the operations of all measured rounds.
	Ops             int64     `json:"ops"`
	OpsPerSecMedian Float     `json:"opsPerSecMedian"`
	RoundOpsPerSec  []float64 `json:"roundOpsPerSec"`
	P50ms           Float     `json:"p50ms"`
	P90ms           Float     `json:"p90ms"`
	P99ms           Float     `json:"p99ms"`
	P999ms          Float     `json:"p999ms"`
	P9999ms         Float     `json:"p9999ms"`
	Maxms           Float     `json:"maxms"`
	// Histogram holds every latency the percentiles come from: an
	// HdrHistogram in microseconds (bench/latency), in its compressed V2
	// encoding, base64. Files of older runs have none.
	Histogram string `json:"histogram,omitempty"`
	// The latency mode's figures: the requests per second scheduled, the
	// requests per second sent, whether the schedule was kept (every
	// request sent, the last at most a hundredth of the schedule, or
	// 100 ms, behind its time), the requests scheduled and those never
	// sent (recorded with the time they had waited when the run gave up on
	// them, a lower bound of their latency).
	Rate         Float `json:"rate,omitempty"`
	AchievedRate Float `json:"achievedRate,omitempty"`
	KeptUp       *bool `json:"keptUp,omitempty"`
	Scheduled    int64 `json:"scheduled,omitempty"`
	Unsent       int64 `json:"unsent,omitempty"`
	Load1        Float `json:"load1"`
	// ProcessCPU is the CPU the benchmark process used during the rounds,
	// in cores (CPU seconds per second): with an embedded cluster the
	// members' and the client's, with --addr the client's alone. Far below
	// the machine's cores, other work had the processor.
	ProcessCPU Float     `json:"processCpuCores,omitempty"`
	Seconds    Float     `json:"seconds,omitempty"`
	Error      string    `json:"error,omitempty"`
	Profiles   []Profile `json:"profiles,omitempty"`
}

// Title is the case's name in tables, e.g. "A3 sum IDS".
func (c Case) Title() string { return c.Group + " " + c.Name }

// UnmarshalJSON reads a case; figures older files lack (p99.9 and
// p99.99) read as missing (NaN), not as zero.
func (c *Case) UnmarshalJSON(b []byte) error {
	type plain Case
	p := plain{P999ms: NaN(), P9999ms: NaN()}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*c = Case(p)
	return nil
}

// SetLatency sets the case's percentiles and histogram from h.
func (c *Case) SetLatency(h *latency.Histogram) error {
	enc, err := h.Encode()
	if err != nil {
		return err
	}
	ms := func(d time.Duration) Float { return Float(float64(d) / 1e6) }
	c.Histogram = enc
	c.P50ms, c.P90ms, c.P99ms = ms(h.Percentile(50)), ms(h.Percentile(90)), ms(h.Percentile(99))
	c.P999ms, c.P9999ms, c.Maxms = ms(h.Percentile(99.9)), ms(h.Percentile(99.99)), ms(h.Max())
	return nil
}

// Latency decodes the case's histogram; nil when the case has none.
func (c Case) Latency() (*latency.Histogram, error) {
	if c.Histogram == "" {
		return nil, nil
	}
	return latency.Decode(c.Histogram)
}

// OK reports whether the case ran and passed its validation.
func (c Case) OK() bool { return c.Error == "" && !math.IsNaN(float64(c.OpsPerSecMedian)) }

// Profile is a profile captured during a case's rounds (or its measured
// schedule): of a member, or of the benchmark's own process (the client).
// Its samples carry the labels case and api.
type Profile struct {
	Member string `json:"member"` // admin address, or "client"
	Kind   string `json:"kind"`   // cpu, allocs or wall
	API    string `json:"api,omitempty"`
	File   string `json:"file"` // the profile (.pb.gz); a flame graph beside it (.svg)
	// Top are the functions with the most samples of their own (flat),
	// with their share of the profile's total.
	Top []TopEntry `json:"top,omitempty"`
}

// TopEntry is one function of a profile's flat top list.
type TopEntry struct {
	Function string  `json:"function"`
	Percent  float64 `json:"percent"`
}

// BInfo describes a workload B map after loading.
type BInfo struct {
	Map                   string `json:"map"`
	Entries               int    `json:"entries"`
	LoadSeconds           Float  `json:"loadSeconds"`
	ValueDataTotalSize    int    `json:"valueDataTotalSize"`
	ByteArrayLength       int    `json:"byteArrayLength"`
	OwnedEntryCount       int64  `json:"ownedEntryCount"`
	OwnedEntryMemoryCost  int64  `json:"ownedEntryMemoryCost"`
	MemoryCostPerEntry    Float  `json:"memoryCostPerEntry"`
	BackupEntryCount      int64  `json:"backupEntryCount"`
	BackupEntryMemoryCost int64  `json:"backupEntryMemoryCost"`
}

// Float is a float64 that is written as null when it is not a number
// (a case that failed has no throughput) and read back from null as NaN.
type Float float64

// NaN is the Float of a figure that does not exist.
func NaN() Float { return Float(math.NaN()) }

// MarshalJSON writes null for NaN and infinities.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e' // as encoding/json writes float64s
	}
	return strconv.AppendFloat(nil, v, format, -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = NaN()
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*f = Float(v)
	return nil
}

// WriteJSON writes the run as indented JSON.
func (r *Run) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// FileError reports a results file that cannot be read or is not a run.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("results file %s: %v", e.Path, e.Err) }
func (e *FileError) Unwrap() error { return e.Err }

// ErrNotARun is wrapped by FileError when a JSON file holds no cases.
var ErrNotARun = errors.New("not a benchmark run (no \"cases\")")

// ReadFile reads a run written by WriteJSON or by the Hazelcast runner.
func ReadFile(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	if _, ok := probe["cases"]; !ok {
		return nil, &FileError{Path: path, Err: ErrNotARun}
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	for i, c := range r.Cases {
		if c.ID == "" {
			return nil, &FileError{Path: path, Err: fmt.Errorf("case %d has no id", i)}
		}
		if _, err := c.Latency(); err != nil {
			return nil, &FileError{Path: path, Err: fmt.Errorf("case %s: %w", c.ID, err)}
		}
	}
	return &r, nil
}

// Name describes the run in one phrase, e.g. "Hazelcast 5.7.0" or
// "Atoll (2 members)".
func (r *Run) Name() string {
	if r.HazelcastVersion != "" {
		return "Hazelcast " + r.HazelcastVersion
	}
	if r.Members == 1 {
		return "Atoll (1 member)"
	}
	return fmt.Sprintf("Atoll (%d members)", r.Members)
}

// Case returns the case with the given id.
func (r *Run) Case(id string) (Case, bool) {
	for _, c := range r.Cases {
		if c.ID == id {
			return c, true
		}
	}
	return Case{}, false
}

// BKeys returns the keys of WorkloadB in the order they were measured
// (the workload's order for files that do not record it).
func (r *Run) BKeys() []string {
	if len(r.BOrder) > 0 {
		return r.BOrder
	}
	var keys []string
	for _, size := range []string{"SMALL", "LARGE"} {
		for _, kind := range []string{"COMPACT", "PORTABLE", "IDENTIFIED", "BYTE_ARRAY"} {
			if _, ok := r.WorkloadB[kind+" "+size]; ok {
				keys = append(keys, kind+" "+size)
			}
		}
	}
	return keys
}

// Failed returns the ids of the cases that failed.
func (r *Run) Failed() []string {
	var ids []string
	for _, c := range r.Cases {
		if c.Error != "" {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// SQLToPred returns the ratio of a SQL case's median throughput to its
// predicate twin's (ok false when the case is not SQL or either is missing).
func (r *Run) SQLToPred(c Case) (float64, bool) {
	if c.API != "SQL" || !c.OK() {
		return 0, false
	}
	p, ok := r.Case(c.Group + "/" + c.Name + "/PRED")
	if !ok || !p.OK() || p.OpsPerSecMedian == 0 {
		return 0, false
	}
	return float64(c.OpsPerSecMedian / p.OpsPerSecMedian), true
}
