// Command cleaner is the pipeline's second stage: it turns fetched pages
// into article text and metadata. With no arguments it runs as a worker,
// configured by the environment; `cleaner extract` cleans one page from a
// file or stdin and prints the text (or JSON).
package main

import (
	"flag"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/article"
	"github.com/newscrawl/newscrawl/internal/clean"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "extract" {
		os.Exit(runExtract(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	app.Main("cleaner", runWorker)
}

func runWorker(args []string) error {
	s := config.NewSet(flag.NewFlagSet("cleaner", flag.ContinueOnError))
	common := config.BindCommon(s, "127.0.0.1:9102")
	stage := config.BindStage(s, "CLEAN", runtime.NumCPU(), 15*time.Second)
	forwardDups := s.Bool("CLEAN_FORWARD_DUPLICATES", false, "send duplicates on to extraction and embedding")
	maxHamming := s.Int("CLEAN_MAX_HAMMING", clean.DefaultMaxHamming, "SimHash bits within which two texts are near duplicates")
	pageWork := s.Int("CLEAN_PAGE_WORK", article.DefaultMaxWork, "work budget per page in steps (nodes measured, scored, rendered; 4 KiB parsed): past it a page is dead-lettered too_complex, busy machine or not")
	pageTimeout := s.Duration("CLEAN_PAGE_TIMEOUT", article.DefaultTimeout, "wall-clock guard per page behind the work budget: its expiry is a runaway (back later, no attempt spent; dead-lettered runaway after CLEAN_MAX_RUNAWAYS in a row)")
	maxBytes := s.Int("CLEAN_MAX_BYTES", article.DefaultMaxBytes, "largest page cleaned")
	maxText := s.Int("CLEAN_MAX_TEXT_CHARS", clean.DefaultMaxTextChars, "longest article text kept; a longer one is cut at a paragraph break (cleaned.text_cut_from records it)")
	renderMode := s.String("RENDER", clean.RenderOff, "pages sent to the renderer: off; auto (script-built pages whose static version gave no story, and every page of RENDER_HOSTS); always")
	renderHosts := s.String("RENDER_HOSTS", "", "comma-separated hosts every page of which is rendered under RENDER=auto")
	if err := s.Parse(args); err != nil {
		return err
	}
	mode, err := clean.ParseRenderMode(*renderMode)
	if err != nil {
		return err
	}
	w := app.Worker{Name: "cleaner", Stage: pipeline.Clean, Group: pipeline.CleanerGroup,
		Downstream: pipeline.Extract, Version: clean.Version, Key: clean.Key, Common: common, Settings: stage,
		ErrorTypes: []string{"missing_input", "database", "not_html", "too_large", "too_complex", "extract_failed"}}
	return w.Run(func(d app.Deps) (streamkit.Handler, error) {
		return clean.NewStage(d.DB, clean.Config{
			Extract:           article.Options{MaxWork: *pageWork, Timeout: *pageTimeout, MaxBytes: *maxBytes},
			MaxHamming:        *maxHamming,
			MaxTextChars:      *maxText,
			ForwardDuplicates: *forwardDups,
			Render:            mode,
			RenderHosts:       strings.Split(*renderHosts, ","),
			Registry:          d.Registry,
		}, d.Log), nil
	})
}
