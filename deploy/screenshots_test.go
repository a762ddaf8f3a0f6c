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
)

// screenshotLoad is how long the load runs before the screenshots, so
// that the graphs show some history.
const screenshotLoad = 3 * time.Minute

// screenshots renders every dashboard from Prometheus with the page in
// grafana/render and saves a PNG of each in dir, taken by headless
// Chromium (Debian package chromium).
func screenshots(t *testing.T, prom, dir string) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("%s is set but chromium is not installed (apt-get install chromium)", screenshotsEnv)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("letting the load run %v before the screenshots", screenshotLoad)
	start := time.Now()
	time.Sleep(screenshotLoad)

	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("grafana/render")))
	mux.Handle("/dashboards/", http.StripPrefix("/dashboards/", http.FileServer(http.Dir("grafana/dashboards"))))
	mux.Handle("/api/", httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: prom}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
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
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, b)
		}
		t.Logf("wrote %s", out)
	}
}
