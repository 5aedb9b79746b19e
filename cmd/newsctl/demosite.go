package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/newscrawl/newscrawl/internal/demosite"
)

// runDemoSite implements "newsctl demo-site [--addr 127.0.0.1:18600]".
func runDemoSite(ctx context.Context, args []string) error {
	s, _ := settings("demo-site")
	addr := s.FlagSet().String("addr", "127.0.0.1:18600", "listen address")
	baseURL := s.FlagSet().String("base-url", "", "the URL the crawler reaches the site at, for the links in feeds and sitemaps (default http://ADDR)")
	if err := s.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	base := *baseURL
	if base == "" {
		base = "http://" + ln.Addr().String()
	}
	srv := &http.Server{Handler: demosite.Handler(base), ReadHeaderTimeout: 5 * time.Second}
	fmt.Printf("%s (%d articles) on %s\n", demosite.Name, demosite.Articles(), base)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
