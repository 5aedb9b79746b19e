package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/web"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// chromium finds Debian's chromium (scripts/test.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if testing.Short() {
		t.Skip("no chromium (-short)")
	}
	t.Fatal("no chromium on PATH: `make test` installs Debian's chromium (or set CHROMIUM)")
	return ""
}

// browser starts a headless Chromium that reaches nothing but loopback.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-quic", true), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The three pages as a user meets them in a real browser: search, a facet,
// a document and its extraction, the pipeline's numbers, and a replay that
// needs the token.
func TestBrowser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, web.Config{Loopback: true, Token: token})
	dl := e.deadLetter(t, "doc-1")
	ctx := browser(t)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}

	do("search", chromedp.Navigate(e.srv.URL+"/"),
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "bridge reopened after repairs"),
		chromedp.Submit(chromedp.CSS(`input[name=q]`)),
		chromedp.WaitVisible(chromedp.CSS(`article.result`)))
	if first := text(`article.result h2`); !strings.Contains(first, "Harbour bridge reopens") {
		t.Fatalf("first result %q, want the bridge article", first)
	}
	screenshot(t, ctx, "search")

	do("facet", chromedp.Click(`//aside[@class="facets"]//a[text()="labour"]`),
		chromedp.WaitVisible(chromedp.CSS(`.chip`)))
	if titles := text(`section.results`); !strings.Contains(titles, "Train drivers strike") || strings.Contains(titles, "Harbour bridge") {
		t.Fatalf("with topic labour the results are %q, want the strike article alone", titles)
	}

	do("document", chromedp.Navigate(e.srv.URL+"/?q=bridge+reopened"),
		chromedp.Click(chromedp.CSS(`article.result h2 a`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`aside.side`)))
	side := text(`aside.side`)
	for _, want := range []string{"Summary of bridge.", "Mara Lindqvist", "qwen2.5:7b"} {
		if !strings.Contains(side, want) {
			t.Errorf("the document page's extraction lacks %q:\n%s", want, side)
		}
	}
	screenshot(t, ctx, "document")

	do("ask", chromedp.Navigate(e.srv.URL+"/"), chromedp.Click(`//nav/a[text()="Ask"]`),
		chromedp.WaitVisible(chromedp.CSS(`form.ask`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "How much did the harbour bridge repairs cost?"),
		chromedp.Submit(chromedp.CSS(`input[name=q]`)),
		chromedp.WaitVisible(chromedp.CSS(`ol.sources`)))
	if answer := text(`p.sentences`); !strings.Contains(answer, "18 million euros") || !strings.Contains(answer, "[1]") {
		t.Fatalf("the answer reads %q, want the cost cited [1]", answer)
	}
	screenshot(t, ctx, "ask")
	do("follow a source", chromedp.Click(chromedp.CSS(`ol.sources li#source-1 a`), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS(`aside.side`)))
	if title := text(`h1`); !strings.Contains(title, "Harbour bridge reopens") {
		t.Fatalf("source 1 leads to %q, want the bridge article", title)
	}

	do("pipeline", chromedp.Navigate(e.srv.URL+"/pipeline"), chromedp.WaitVisible(chromedp.CSS(`table.stages`)))
	dlq := text(`tr[data-stage=clean] td.dlq`)
	stats, err := e.admin.Stats(context.Background(), pipeline.Stages())
	if err != nil {
		t.Fatal(err)
	}
	if want := stats[1].DLQ; dlq != "1" || want != 1 {
		t.Fatalf("pipeline page: clean DLQ %q, stats say %d; want 1 on both", dlq, want)
	}
	if strings.Contains(text(`main`), "Purge") {
		t.Fatal("replay and purge buttons are shown without the token")
	}
	screenshot(t, ctx, "pipeline")

	do("log in and replay", chromedp.Navigate(e.srv.URL+"/login?next=/pipeline"),
		chromedp.SendKeys(chromedp.CSS(`input[name=token]`), token),
		chromedp.Submit(chromedp.CSS(`input[name=token]`)),
		chromedp.WaitVisible(chromedp.CSS(`button.replay-one`)),
		chromedp.Click(chromedp.CSS(`button.replay-one`)),
		chromedp.WaitVisible(chromedp.CSS(`p[role=status]`)))
	if notice := text(`p[role=status]`); !strings.Contains(notice, "replayed 1") {
		t.Fatalf("after replay the page says %q", notice)
	}
	left, err := e.admin.DLQList(context.Background(), pipeline.Clean, streamkit.DLQFilter{IDs: []string{dl}})
	if err != nil || len(left) != 0 {
		t.Fatalf("the replayed dead letter is still there: %v %v", left, err)
	}
	screenshot(t, ctx, "pipeline-replayed")
}
