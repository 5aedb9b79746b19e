package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/newscrawl/newscrawl/internal/app"
	"github.com/newscrawl/newscrawl/internal/config"
	"github.com/newscrawl/newscrawl/internal/embed/provider"
	"github.com/newscrawl/newscrawl/internal/search"
	"github.com/newscrawl/newscrawl/internal/store"
)

// Defaults of newsctl serve.
const (
	defaultServeAddr     = ":8080"
	serveShutdownTimeout = 10 * time.Second
)

// runServe implements "newsctl serve [--addr :8080]": it serves until
// SIGTERM/SIGINT, then lets requests in flight finish.
func runServe(ctx context.Context, args []string) error {
	s, c := settings("serve")
	newEmbedder := provider.Bind(s, config.BindOpenAI(s))
	fs := s.FlagSet()
	addr := fs.String("addr", defaultServeAddr, "listen address")
	timeout := fs.Duration("timeout", search.DefaultRequestTimeout, "per-request timeout")
	if err := s.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	emb, err := newEmbedder()
	if err != nil {
		return fmt.Errorf("query embedder: %w", err)
	}
	log := app.Logger(*c.LogLevel).With("binary", "newsctl serve")
	pool, err := store.Open(ctx, *c.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	searcher := search.New(pool, emb, search.Config{}, log)
	h := search.NewHandler(searcher, search.APIConfig{Timeout: *timeout, Log: log, Health: pool.Ping})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: *timeout + 5*time.Second, IdleTimeout: time.Minute}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	log.Info("serving the search API", "addr", ln.Addr().String(), "model", searcher.Identity().String())
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
