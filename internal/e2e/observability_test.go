package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/testenv"
	"github.com/newscrawl/newscrawl/pkg/streamkit/streamkittest"
)

// Every metric the alert rules and the Grafana dashboard name is one that
// the four workers or newsctl serve export: a renamed metric cannot leave
// an alert that never fires.
func TestObservability_EveryNamedMetricIsExported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	bin := build(t)
	pool := testenv.Postgres(t)
	_, prefix := streamkittest.Redis(t)
	environ := env(t, streamkittest.SchemaOf(pool), prefix)
	exported := map[string]bool{"up": true} // Prometheus' own
	family := regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)`)
	// each binary, with a metric it exports once it is fully started
	for name, ready := range map[string]string{"crawler": "newscrawl_crawl_outcomes_total", "cleaner": "newscrawl_clean_pages_total",
		"extractor": "newscrawl_extract_outcomes_total", "embedder": "newscrawl_stage_visibility_seconds", "newsctl": "newscrawl_serve_requests_total"} {
		cmd := exec.Command(filepath.Join(bin, name))
		cmd.Env = append(environ, "METRICS_ADDR=127.0.0.1:0")
		listening := "serving /metrics, /livez and /healthz"
		if name == "newsctl" {
			cmd.Args = append(cmd.Args, "serve", "--addr", "127.0.0.1:0")
			listening = "serving the search page and API"
		}
		addr, stop := testenv.StartListening(t, cmd, listening)
		var body string
		(&testenv.Env{T: t}).Eventually(name+"'s /metrics", 30*time.Second, func() bool {
			if name == "newsctl" { // serve counts requests by route: make one
				if r, err := http.Get("http://" + addr + "/healthz"); err == nil {
					r.Body.Close()
				}
			}
			resp, err := http.Get("http://" + addr + "/metrics")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			body = string(b)
			return strings.Contains(body, "# TYPE "+ready+" ")
		})
		stop()
		for _, m := range family.FindAllStringSubmatch(body, -1) {
			exported[m[1]] = true
			if m[2] == "histogram" {
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					exported[m[1]+suffix] = true
				}
			}
		}
	}
	named := map[string][]string{}
	metric := regexp.MustCompile(`\b(newscrawl_[a-z_]+|up)\b`)
	for _, f := range []string{"alerts.yml", "alerts_test.yml", "grafana/dashboards/newscrawl.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "observability", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metric.FindAllString(string(b), -1) {
			named[m] = append(named[m], f)
		}
	}
	if len(named) < 10 {
		t.Fatalf("only %d metric names found in the rules and dashboard", len(named))
	}
	var missing []string
	for m, files := range named {
		if !exported[m] {
			slices.Sort(files)
			missing = append(missing, fmt.Sprintf("%s (in %s)", m, strings.Join(slices.Compact(files), ", ")))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("named but not exported by any binary:\n  %s", strings.Join(missing, "\n  "))
	}
}
