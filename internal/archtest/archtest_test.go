// Package archtest checks the package map of ARCHITECTURE.md: which packages
// may import which. It runs `go list` over the module, so a new import that
// breaks the layering fails the test suite.
package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/atolldb/atoll"

type pkg struct {
	ImportPath string
	Imports    []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var pkgs []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		err := dec.Decode(&p)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
	require.NoError(t, cmd.Wait())
	return pkgs
}

// rule forbids packages under from (a path prefix relative to the module)
// to import module packages under any of the forbidden prefixes, except
// those under an allowed prefix.
type rule struct {
	from      string
	exempt    []string // importing packages the rule does not apply to
	forbidden []string
	allowed   []string
	why       string
}

var rules = []rule{
	{from: "", forbidden: []string{"cmd/"}, why: "nothing imports a main package"},
	{from: "internal/", exempt: []string{"internal/testcluster"}, forbidden: []string{"internal/member"}, why: "nothing but the embedding API (and the test cluster) imports the composition root"},
	{from: "pkg/client", forbidden: []string{"internal/"}, allowed: []string{"internal/serialization/", "internal/grpcbuf", "internal/frame", "internal/partset"}, why: "the client depends only on serialization internals and the codec, frames and partition sets members speak"},
	{from: "pkg/serialization", forbidden: []string{"internal/"}, allowed: []string{"internal/serialization/"}, why: "the public serialization API depends only on its wire primitives"},
	{from: "pkg/member", forbidden: []string{"internal/"}, allowed: []string{"internal/member"}, why: "the embedding API only exposes the composition root"},
	{from: "internal/server", forbidden: []string{"internal/member", "pkg/client"}, why: "the server is composed by the member and never calls the client SDK"},
	{from: "internal/query/", forbidden: []string{"internal/store", "internal/cluster", "internal/exec", "internal/server"}, why: "the planner sees storage and cluster only through interfaces it declares"},
	{from: "internal/query/plan", forbidden: []string{"internal/query/sql", "internal/query/predicate", "internal/query/catalog"}, why: "the planner knows neither front end nor the catalog's implementation"},
	{from: "internal/query/expr", forbidden: []string{"internal/query/plan", "internal/query/sql", "internal/query/predicate", "internal/query/catalog"}, why: "expressions are the bottom of the query packages"},
	{from: "internal/exec", forbidden: []string{"internal/server", "internal/member", "internal/cluster", "internal/maps", "internal/query/sql", "internal/query/predicate", "internal/query/catalog", "pkg/client"},
		why: "execution sees plans, stores and the partition table; maps, catalog and remote members come through its interfaces"},
	{from: "internal/exec", forbidden: []string{"internal/serialization/"},
		why: "execution reads values through pkg/serialization's FieldReader and decodes no format itself"},
	{from: "internal/serialization/core", forbidden: []string{""}, allowed: []string{"internal/serialization/wire"}, why: "core is what the formats share: it imports only wire"},
	{from: "internal/serialization/compact", forbidden: []string{""}, allowed: []string{"internal/serialization/core", "internal/serialization/wire"},
		why: "a format builds on core and wire only: Compact nests Compact objects only"},
	{from: "internal/serialization/portable", forbidden: []string{""}, allowed: []string{"internal/serialization/core", "internal/serialization/wire"},
		why: "a format builds on core and wire only: Portable nests Portable objects only"},
	{from: "internal/serialization/identified", forbidden: []string{""}, allowed: []string{"internal/serialization/core", "internal/serialization/wire"},
		why: "a format builds on core and wire only: IDS reaches other formats through identified.Objects, which the Service implements"},
	{from: "internal/serialization/json", forbidden: []string{""}, allowed: []string{"internal/serialization/core"}, why: "the JSON scanner builds on core only"},
	{from: "pkg/predicate", forbidden: []string{"internal/", "pkg/client", "pkg/serialization"}, why: "predicate builders depend only on the API messages"},
	{from: "internal/serialization/wire", forbidden: []string{""}, why: "wire is a leaf"},
	{from: "internal/partition", forbidden: []string{"internal/", "pkg/client"}, allowed: []string{"internal/serialization/"}, why: "partitioning is a leaf"},
	{from: "internal/cluster", forbidden: []string{"internal/store", "internal/maps", "internal/server", "internal/query", "internal/exec", "pkg/client"}, why: "the cluster layer drives data only through the ReplicaStore interface"},
	{from: "internal/store", forbidden: []string{"internal/cluster", "internal/server", "internal/exec", "internal/query", "pkg/client"}, why: "storage knows nothing of the layers above it"},
	{from: "internal/metrics", forbidden: []string{""}, why: "metrics is a leaf: the member feeds it plain values"},
	{from: "internal/locks", forbidden: []string{"internal/", "pkg/client"}, allowed: []string{"internal/serialization/wire"}, why: "the lock table's format is a leaf: the server runs the protocol on it"},
	{from: "internal/profiling", forbidden: []string{""}, why: "profiling is a leaf"},
	{from: "internal/grpcbuf", forbidden: []string{""}, why: "the codec is a leaf: members and the Go client share it"},
	{from: "internal/frame", forbidden: []string{""}, why: "the framed pipeline's frames are a leaf: members and the Go client share them"},
	{from: "internal/partset", forbidden: []string{""}, why: "the protocol's partition sets are a leaf: members and the Go client share them"},
	{from: "internal/gopool", forbidden: []string{""}, why: "the goroutine pool is a leaf"},
	{from: "internal/security", forbidden: []string{""}, why: "security is a leaf: the cluster layer, the server and the member use it"},
	{from: "bench/", forbidden: []string{"internal/member", "internal/server"}, allowed: []string{}, why: "workloads drive Atoll through its public client"},
	{from: "", exempt: []string{"bench/", "cmd/atoll-bench"}, forbidden: []string{"bench/"}, why: "only the benchmark command imports the workloads, which import the rest (the benchmark objects are internal/benchmodel)"},
}

func TestImportRules(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, r := range rules {
			if !strings.HasPrefix(rel, r.from) || matches(rel, r.exempt) {
				continue
			}
			for _, imp := range p.Imports {
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				target := strings.TrimPrefix(imp, module+"/")
				if strings.HasPrefix(target, strings.TrimSuffix(rel, "/")) && rel != "" {
					continue // a package may import its own subpackages
				}
				if matches(target, r.forbidden) && !matches(target, r.allowed) {
					t.Errorf("%s imports %s: %s", rel, target, r.why)
				}
			}
		}
	}
}

func matches(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
