package deploy

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/member"
)

// makeSecrets runs deploy/make-secrets.sh into a temporary directory and
// returns it.
func makeSecrets(t *testing.T, hosts string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("./make-secrets.sh", dir, hosts)
	cmd.Env = append(os.Environ(), "ATOLL="+testcluster.Binary(t))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make-secrets.sh: %s", out)
	return dir
}

// memberPaths are where the secured deployments mount what the member
// configuration names.
var memberPaths = map[string]string{
	"/etc/atoll/tls/ca.crt":            "ca.crt",
	"/etc/atoll/tls/tls.crt":           "tls.crt",
	"/etc/atoll/tls/tls.key":           "tls.key",
	"/etc/atoll/secret/cluster-secret": "cluster-secret",
}

// TestSecureCompose: the secured compose file passes the Compose schema;
// each member mounts every file the generated member configuration names,
// at the path it names, and Prometheus the CA its configuration trusts.
func TestSecureCompose(t *testing.T) {
	p := loadCompose(t, "compose/compose-secure.yaml", "atoll-secure")
	members := 0
	for name, s := range p.Services {
		if !strings.HasPrefix(name, "atoll-") {
			continue
		}
		members++
		targets := map[string]string{}
		for _, sec := range s.Secrets {
			targets[sec.Target] = filepath.Base(p.Secrets[sec.Source].File)
		}
		for path, file := range memberPaths {
			assert.Equal(t, file, targets[path], "%s mounts %s at %s", name, file, path)
		}
		i := slices.Index(s.Command, "--config")
		require.GreaterOrEqual(t, i, 0, "%s: %v", name, s.Command)
		assert.Equal(t, "member.yaml", targets[s.Command[i+1]], "%s reads the generated member.yaml", name)
	}
	assert.Equal(t, 3, members)
	prom := p.Services["prometheus"]
	require.Len(t, prom.Secrets, 1)
	assert.Equal(t, "ca.crt", filepath.Base(p.Secrets[prom.Secrets[0].Source].File))
	promCfg, err := os.ReadFile("prometheus/prometheus-secure.yml")
	require.NoError(t, err)
	assert.Contains(t, string(promCfg), "ca_file: "+prom.Secrets[0].Target)
	if promtool, err := exec.LookPath("promtool"); err == nil {
		out, err := exec.Command(promtool, "check", "config", "prometheus/prometheus-secure.yml").CombinedOutput()
		assert.NoError(t, err, "%s", out)
	} else {
		testcluster.Missing(t, "promtool (Debian package prometheus)")
	}
}

// TestSecureKubernetes: the secured StatefulSet decodes strictly into the
// API's types, mounts the Secrets atoll-tls and atoll-config where the
// generated member configuration looks, probes over HTTPS, and lets the
// non-root user read the secrets.
func TestSecureKubernetes(t *testing.T) {
	b, err := os.ReadFile("k8s/secure/statefulset.yaml")
	require.NoError(t, err)
	ss := &appsv1.StatefulSet{}
	require.NoError(t, yaml.UnmarshalStrict(b, ss))
	pod := ss.Spec.Template
	assert.Equal(t, "https", pod.Annotations["prometheus.io/scheme"])
	require.NotNil(t, pod.Spec.SecurityContext.FSGroup)
	assert.Equal(t, int64(65532), *pod.Spec.SecurityContext.FSGroup)
	secrets := map[string]*corev1.SecretVolumeSource{}
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = v.Secret
		}
	}
	c := pod.Spec.Containers[0]
	mounts := map[string]string{} // mount path → Secret name
	for _, m := range c.VolumeMounts {
		require.Contains(t, secrets, m.Name, "%s is mounted from a Secret", m.MountPath)
		assert.True(t, m.ReadOnly)
		mounts[m.MountPath] = secrets[m.Name].SecretName
	}
	assert.Equal(t, "atoll-tls", mounts["/etc/atoll/tls"])
	assert.Equal(t, "atoll-config", mounts["/etc/atoll/secret"])
	for path := range memberPaths {
		assert.Contains(t, mounts, filepath.Dir(path), "%s is mounted", path)
	}
	assert.Contains(t, c.Args, "--config=/etc/atoll/secret/member.yaml")
	for _, p := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
		require.NotNil(t, p)
		assert.Equal(t, corev1.URISchemeHTTPS, p.HTTPGet.Scheme)
	}
	// The header's kubectl commands create the keys the mounts expect.
	for _, key := range []string{"secrets/ca.crt", "secrets/tls.crt", "secrets/tls.key", "secrets/member.yaml", "secrets/cluster-secret"} {
		assert.Contains(t, string(b), "--from-file="+key)
	}
	// The plain manifests' members are the same members: same name,
	// service and ports.
	sets, _, _ := manifests(t)
	assert.Equal(t, sets[0].Spec.ServiceName, ss.Spec.ServiceName)
	assert.Equal(t, sets[0].Spec.Template.Spec.Containers[0].Ports, c.Ports)
}

// TestSecureDeploymentRuns runs what deploy/make-secrets.sh writes: three
// member processes with its member.yaml (the mounted paths pointed at its
// files) form a cluster over TLS with the cluster secret; the app user
// writes and reads over TLS, the ops token reads the cluster's state, a
// client without credentials is refused; Prometheus scrapes every member
// over HTTPS with the secured scrape configuration's TLS settings.
func TestSecureDeploymentRuns(t *testing.T) {
	dir := makeSecrets(t, "atoll-1,atoll-2,atoll-3,localhost,127.0.0.1")
	conf, err := os.ReadFile(filepath.Join(dir, "member.yaml"))
	require.NoError(t, err)
	text := string(conf)
	for path, file := range memberPaths {
		require.Contains(t, text, path)
		text = strings.ReplaceAll(text, path, filepath.Join(dir, file))
	}
	local := filepath.Join(dir, "member-local.yaml")
	require.NoError(t, os.WriteFile(local, []byte(text), 0o600))
	cfg, err := member.LoadConfig(local)
	require.NoError(t, err, "the generated member.yaml")
	require.Equal(t, "atoll", cfg.ClusterName)

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		return strings.TrimSpace(string(b))
	}
	tlsCfg, err := client.LoadTLS(filepath.Join(dir, "ca.crt"), "", "")
	require.NoError(t, err)
	body := strings.Replace(text, "cluster-name: atoll\n", "", 1)
	c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{
		ClusterName: "atoll", ConfigYAML: body,
		Access: &testcluster.Access{TLS: tlsCfg, Authorization: "Bearer " + read("ops.token")},
	})
	c.WaitStable(1, 3*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "atoll", TLS: tlsCfg,
		Credentials: client.Credentials{Username: "app", Password: read("app.password")}})
	require.NoError(t, err)
	defer app.Close()
	m := client.GetMap[string, string](app, "orders")
	require.NoError(t, m.Set(ctx, "1", "one"))
	v, ok, err := m.Get(ctx, "1")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "one", v)
	_, err = app.ClusterState(ctx)
	assert.ErrorIs(t, err, client.ErrPermissionDenied, "app is no admin")
	_, err = client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "atoll", TLS: tlsCfg})
	assert.ErrorIs(t, err, client.ErrUnauthenticated)

	// Prometheus with the secured scrape configuration, pointed at these
	// members and at the CA file.
	promCfg, err := os.ReadFile("prometheus/prometheus-secure.yml")
	require.NoError(t, err)
	var admins []string
	for _, n := range c.Live() {
		admins = append(admins, n.AdminAddr)
	}
	quoted, _ := json.Marshal(admins)
	pc := strings.Replace(string(promCfg), "/etc/prometheus/tls/ca.crt", filepath.Join(dir, "ca.crt"), 1)
	pc = strings.Replace(pc, `["atoll-1:8080", "atoll-2:8080", "atoll-3:8080"]`, string(quoted), 1)
	pc = strings.Replace(pc, "scrape_interval: 5s", "scrape_interval: 1s", 1)
	require.NotEqual(t, string(promCfg), pc)
	runPrometheus(t, pc, 3)
}
