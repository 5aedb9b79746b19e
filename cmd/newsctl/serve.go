package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/ask"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/crawl"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/pipeline"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/web"
	"github.com/newscrawl/newscrawl/pkg/streamkit"
)

// Defaults of newsctl serve.
const (
	defaultServeAddr     = "127.0.0.1:8080"
	serveShutdownTimeout = 10 * time.Second
)

// runServe implements "newsctl serve [--addr 127.0.0.1:8080]": the search,
// document and pipeline pages and the JSON API, until SIGTERM/SIGINT; then
// it lets requests in flight finish.
func runServe(ctx context.Context, args []string) error {
	s, c := settings("serve")
	server := config.BindOpenAI(s)
	newEmbedder := provider.Bind(s, server)
	asking := bindAsk(s, server)
	searchConfig := bindSearch(s)
	fs := s.FlagSet()
	addr := fs.String("addr", defaultServeAddr, "listen address; other than loopback needs SERVE_TOKEN or SERVE_PUBLIC_READONLY")
	timeout := fs.Duration("timeout", search.DefaultRequestTimeout, "per-request timeout")
	token := s.Secret("SERVE_TOKEN", "bearer token (or /login) for replay and purge, and for everything when not on loopback")
	readOnly := s.Bool("SERVE_PUBLIC_READONLY", false, "off loopback, open the search and document pages without the token (nothing that changes state)")
	inFlight := s.Int("SERVE_MAX_SEARCHES", web.DefaultInFlight, "searches running at once; more wait briefly, then get 503")
	rateLimit := s.Int("SERVE_RATE_LIMIT", web.DefaultRatePerSec, "searches per second per client address (loopback exempt; 0 = no limit)")
	rateLoopback := s.Bool("SERVE_RATE_LIMIT_LOOPBACK", false, "apply SERVE_RATE_LIMIT to loopback clients too")
	askRate := s.Float("SERVE_ASK_RATE_LIMIT", 0, fmt.Sprintf("questions per second per client address (0 = %g, or %g while a model answers; below 0 = no limit)",
		web.DefaultAskRatePerSec, web.DefaultAskModelRatePerSec))
	if err := s.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	defer ln.Close()
	emb, err := newEmbedder()
	if err != nil {
		return fmt.Errorf("query embedder: %w", err)
	}
	log := app.Logger(*c.LogLevel).With("binary", "newsctl serve")
	rdb, pool, closeAll, err := connect(ctx, c, 2*(*inFlight)+4) // a hybrid search runs two lists at once
	if err != nil {
		return err
	}
	defer closeAll()
	searcher := search.New(pool, emb, searchConfig(), log)
	reg := prometheus.NewRegistry()
	asker, err := asking.asker(searcher, ask.NewMetrics(reg), log)
	if err != nil {
		return err
	}
	admin := adminOf(rdb, c)
	// Crawl dead letters go back through the crawl stage's window.
	admin.Windows = map[string]*streamkit.Window{pipeline.Crawl: crawl.Window(ctx, admin)}
	askTimeout := *asking.timeout + *timeout
	w, err := web.New(web.Config{Searcher: searcher, Asker: asker, AskRatePerSec: *askRate, AskTimeout: askTimeout, Registry: reg, Admin: admin, Stages: pipeline.Stages(),
		Health: pool.Ping, Timeout: *timeout, Token: *token, Loopback: isLoopback(ln.Addr()), ReadOnly: *readOnly,
		InFlight: *inFlight, RatePerSec: float64(*rateLimit), RateLoopback: *rateLoopback, Log: log})
	if err != nil {
		return err
	}
	wctx, stopSampler := context.WithCancel(ctx)
	defer stopSampler()
	go w.Run(wctx)
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: max(*timeout, askTimeout) + 5*time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	log.Info("serving the search page and API", "url", "http://"+ln.Addr().String()+"/", "model", searcher.Identity().String(),
		"token", *token != "", "public_readonly", *readOnly, "ask_model", asker.HasModel())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down the API server: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// isLoopback reports whether the listener accepts loopback connections only.
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
