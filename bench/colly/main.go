// Command colly is the peer of bench/crawler: gocolly/colly v2 crawling
// the same generated site by following a[href] links, configured the way
// its documentation suggests (async, a parallelism limit per host, an
// optional delay per host, allowed domain). It stores and publishes
// nothing. It prints one line, "requests=<n> errors=<n> elapsed_s=<s>",
// and leaves CPU and memory to be read by its parent from its rusage.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

func main() {
	seed := flag.String("seed", "", "start URL")
	hosts := flag.String("hosts", "", "comma-separated host:port list; each gets its own limit rule")
	parallelism := flag.Int("parallelism", 16, "concurrent requests per host")
	delay := flag.Duration("delay", 0, "delay per host after each request (0: none)")
	maxDepth := flag.Int("max-depth", 6, "colly MaxDepth (the seed is depth 1)")
	flag.Parse()
	if *seed == "" || *hosts == "" {
		fmt.Fprintln(os.Stderr, "colly: -seed and -hosts are required")
		os.Exit(2)
	}

	c := colly.NewCollector(colly.Async(true), colly.MaxDepth(*maxDepth), colly.AllowedDomains("127.0.0.1"))
	for _, h := range strings.Split(*hosts, ",") {
		p := *parallelism
		if *delay > 0 {
			p = 1 // a delay per host only means something one request at a time
		}
		if err := c.Limit(&colly.LimitRule{DomainGlob: h, Parallelism: p, Delay: *delay}); err != nil {
			fmt.Fprintln(os.Stderr, "colly: limit:", err)
			os.Exit(1)
		}
	}
	var requests, errs atomic.Int64
	c.OnRequest(func(*colly.Request) { requests.Add(1) })
	c.OnError(func(*colly.Response, error) { errs.Add(1) })
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = e.Request.Visit(e.Attr("href")) // already visited, off-domain or too deep: colly says no
	})
	start := time.Now()
	if err := c.Visit(*seed); err != nil {
		fmt.Fprintln(os.Stderr, "colly: visit seed:", err)
		os.Exit(1)
	}
	c.Wait()
	fmt.Printf("requests=%d errors=%d elapsed_s=%.3f\n", requests.Load(), errs.Load(), time.Since(start).Seconds())
}
