// Package deploy holds the deployment files (Dockerfile, compose file,
// Kubernetes manifests, Prometheus configuration, Grafana dashboards);
// its tests validate them against their schemas.
package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// manifests decodes every document of the YAML files in deploy/k8s into
// the Kubernetes API's typed objects, refusing unknown fields, so that a
// misspelt or misplaced field fails.
func manifests(t *testing.T) (sets []*appsv1.StatefulSet, svcs []*corev1.Service, pdbs []*policyv1.PodDisruptionBudget) {
	t.Helper()
	files, err := filepath.Glob("k8s/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/k8s: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s document %d: %v", f, i, err)
			}
			var obj any
			switch tm.APIVersion + " " + tm.Kind {
			case "apps/v1 StatefulSet":
				s := &appsv1.StatefulSet{}
				sets, obj = append(sets, s), s
			case "v1 Service":
				s := &corev1.Service{}
				svcs, obj = append(svcs, s), s
			case "policy/v1 PodDisruptionBudget":
				p := &policyv1.PodDisruptionBudget{}
				pdbs, obj = append(pdbs, p), p
			default:
				t.Fatalf("%s document %d: unexpected %s %s", f, i, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Errorf("%s document %d (%s): %v", f, i, tm.Kind, err)
			}
		}
	}
	return sets, svcs, pdbs
}

func TestKubernetesManifests(t *testing.T) {
	sets, svcs, pdbs := manifests(t)
	if len(sets) != 1 || len(pdbs) != 1 {
		t.Fatalf("%d StatefulSets and %d PodDisruptionBudgets, want one each", len(sets), len(pdbs))
	}
	ss := sets[0]
	pod := ss.Spec.Template
	var headless *corev1.Service
	for _, s := range svcs {
		if s.Name == ss.Spec.ServiceName {
			headless = s
		}
	}
	if headless == nil || headless.Spec.ClusterIP != corev1.ClusterIPNone || !headless.Spec.PublishNotReadyAddresses {
		t.Fatalf("the StatefulSet's service %q must be headless and publish members that are not ready yet", ss.Spec.ServiceName)
	}
	matches := func(sel map[string]string) bool {
		for k, v := range sel {
			if pod.Labels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	if !matches(ss.Spec.Selector.MatchLabels) || !matches(headless.Spec.Selector) || !matches(pdbs[0].Spec.Selector.MatchLabels) {
		t.Error("the StatefulSet, the headless service and the PodDisruptionBudget must select the member pods")
	}
	if a := pod.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" || a["prometheus.io/port"] != "8080" {
		t.Errorf("scrape annotations: %v", a)
	}
	c := pod.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if r := c.ReadinessProbe; r == nil || r.HTTPGet == nil || r.HTTPGet.Path != "/readyz" || ports[r.HTTPGet.Port.String()] != 8080 {
		t.Errorf("the readiness probe must GET /readyz on the admin port: %+v", r)
	}
	if l := c.LivenessProbe; l == nil || l.HTTPGet == nil || l.HTTPGet.Path != "/healthz" {
		t.Errorf("the liveness probe must GET /healthz: %+v", l)
	}
	// Members advertise and join by the headless service's DNS names.
	args := strings.Join(c.Args, " ")
	want := fmt.Sprintf("--advertise=$(POD_NAME).%s:5701", headless.Name)
	if !strings.Contains(args, want) {
		t.Errorf("args %q lack %s", args, want)
	}
	var seeds []string
	for i := range *ss.Spec.Replicas {
		seeds = append(seeds, fmt.Sprintf("%s-%d.%s:5701", ss.Name, i, headless.Name))
	}
	if !slices.Contains(c.Args, "--join="+strings.Join(seeds, ",")) {
		t.Errorf("args %q do not join %v", args, seeds)
	}
}

func TestComposeFile(t *testing.T) {
	abs, err := filepath.Abs("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	// compose-go checks the file against the Compose specification's JSON
	// schema, then loads it.
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs, Content: b}},
		Environment: types.Mapping{},
	}, func(o *loader.Options) { o.SetProjectName("atoll", true) })
	if err != nil {
		t.Fatalf("compose file: %v", err)
	}
	members := 0
	for name, s := range p.Services {
		if strings.HasPrefix(name, "atoll-") {
			members++
			if !slices.Contains(s.Command, "--advertise") || !slices.Contains(s.Command, "--join") {
				t.Errorf("%s: members must advertise their service name and join: %v", name, s.Command)
			}
		}
	}
	if members != 3 {
		t.Errorf("%d members, want 3", members)
	}
	for _, name := range []string{"prometheus", "grafana"} {
		if _, ok := p.Services[name]; !ok {
			t.Errorf("no %s service", name)
		}
	}
	// The mounted configuration exists in the repository.
	for _, f := range []string{"prometheus/prometheus.yml", "grafana/provisioning/datasources/prometheus.yaml", "grafana/provisioning/dashboards/atoll.yaml", "docker/Dockerfile"} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
}
