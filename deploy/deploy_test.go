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
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	require.NotEmpty(t, files, "manifests in deploy/k8s")
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			var tm metav1.TypeMeta
			require.NoError(t, yaml.Unmarshal(doc, &tm), "%s document %d", f, i)
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
				require.Failf(t, "unexpected kind", "%s document %d: %s %s", f, i, tm.APIVersion, tm.Kind)
			}
			assert.NoError(t, yaml.UnmarshalStrict(doc, obj), "%s document %d (%s)", f, i, tm.Kind)
		}
	}
	return sets, svcs, pdbs
}

func TestKubernetesManifests(t *testing.T) {
	sets, svcs, pdbs := manifests(t)
	require.Len(t, sets, 1, "StatefulSets")
	require.Len(t, pdbs, 1, "PodDisruptionBudgets")
	ss := sets[0]
	pod := ss.Spec.Template
	var headless *corev1.Service
	for _, s := range svcs {
		if s.Name == ss.Spec.ServiceName {
			headless = s
		}
	}
	require.NotNil(t, headless, "the StatefulSet's service %q", ss.Spec.ServiceName)
	require.Equal(t, corev1.ClusterIPNone, headless.Spec.ClusterIP, "the StatefulSet's service is headless")
	require.True(t, headless.Spec.PublishNotReadyAddresses, "the headless service publishes members that are not ready yet")
	matches := func(sel map[string]string) bool {
		for k, v := range sel {
			if pod.Labels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	assert.True(t, matches(ss.Spec.Selector.MatchLabels), "the StatefulSet selects the member pods")
	assert.True(t, matches(headless.Spec.Selector), "the headless service selects the member pods")
	assert.True(t, matches(pdbs[0].Spec.Selector.MatchLabels), "the PodDisruptionBudget selects the member pods")
	assert.Subset(t, pod.Annotations, map[string]string{"prometheus.io/scrape": "true", "prometheus.io/path": "/metrics", "prometheus.io/port": "8080"},
		"scrape annotations")
	c := pod.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	require.NotNil(t, c.ReadinessProbe)
	require.NotNil(t, c.ReadinessProbe.HTTPGet, "the readiness probe is an HTTP GET")
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, int32(8080), ports[c.ReadinessProbe.HTTPGet.Port.String()], "the readiness probe asks the admin port")
	require.NotNil(t, c.LivenessProbe)
	require.NotNil(t, c.LivenessProbe.HTTPGet, "the liveness probe is an HTTP GET")
	assert.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	// Members advertise and join by the headless service's DNS names.
	args := strings.Join(c.Args, " ")
	assert.Contains(t, args, fmt.Sprintf("--advertise=$(POD_NAME).%s:5701", headless.Name))
	var seeds []string
	for i := range *ss.Spec.Replicas {
		seeds = append(seeds, fmt.Sprintf("%s-%d.%s:5701", ss.Name, i, headless.Name))
	}
	assert.Contains(t, c.Args, "--join="+strings.Join(seeds, ","))
}

func TestComposeFile(t *testing.T) {
	abs, err := filepath.Abs("compose/compose.yaml")
	require.NoError(t, err)
	b, err := os.ReadFile(abs)
	require.NoError(t, err)
	// compose-go checks the file against the Compose specification's JSON
	// schema, then loads it.
	p, err := loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs, Content: b}},
		Environment: types.Mapping{},
	}, func(o *loader.Options) { o.SetProjectName("atoll", true) })
	require.NoError(t, err, "compose file")
	members := 0
	for name, s := range p.Services {
		if strings.HasPrefix(name, "atoll-") {
			members++
			assert.Subset(t, []string(s.Command), []string{"--advertise", "--join"}, "%s: members advertise their service name and join", name)
		}
	}
	assert.Equal(t, 3, members, "members")
	assert.Contains(t, p.Services, "prometheus")
	assert.Contains(t, p.Services, "grafana")
	// The mounted configuration exists in the repository.
	for _, f := range []string{"prometheus/prometheus.yml", "grafana/provisioning/datasources/prometheus.yaml", "grafana/provisioning/dashboards/atoll.yaml", "docker/Dockerfile"} {
		assert.FileExists(t, f)
	}
}
