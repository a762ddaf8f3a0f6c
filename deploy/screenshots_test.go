package deploy

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// screenshotLoad is how long the load runs before the screenshots, so
// that the graphs show some history.
const screenshotLoad = 3 * time.Minute

// screenshots renders every dashboard from Prometheus with the page in
// grafana/render and saves a PNG of each in dir, taken by headless
// Chromium (Debian package chromium).
func screenshots(t *testing.T, prom, dir string) {
	chromium, err := exec.LookPath("chromium")
	require.NoError(t, err, "%s is set but chromium is not installed (apt-get install chromium)", screenshotsEnv)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Logf("letting the load run %v before the screenshots", screenshotLoad)
	start := time.Now()
	time.Sleep(screenshotLoad)

	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("grafana/render")))
	mux.Handle("/dashboards/", http.StripPrefix("/dashboards/", http.FileServer(http.Dir("grafana/dashboards"))))
	mux.Handle("/api/", httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: prom}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	files, _ := filepath.Glob("grafana/dashboards/*.json")
	for _, f := range files {
		var d struct {
			Panels []struct {
				GridPos struct{ Y, H int } `json:"gridPos"`
			} `json:"panels"`
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &d), f)
		rows := 0
		for _, p := range d.Panels {
			rows = max(rows, p.GridPos.Y+p.GridPos.H)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		page := fmt.Sprintf("http://%s/index.html?dashboard=%s&start=%d&end=%d&step=2&rate=%s",
			ln.Addr(), filepath.Base(f), start.Unix(), time.Now().Unix(), rateInterval)
		out := filepath.Join(dir, name+".png")
		cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
			fmt.Sprintf("--window-size=1600,%d", rows*38+90), "--virtual-time-budget=20000",
			"--screenshot="+out, page)
		logs, err := cmd.CombinedOutput()
		require.NoError(t, err, "chromium: %s", logs)
		t.Logf("wrote %s", out)
	}
}
