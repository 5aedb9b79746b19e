package seed_test

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/newscrawl/newscrawl/internal/seed"
	"github.com/newscrawl/newscrawl/internal/testenv"
)

// dnsServer is a DNS server on loopback that answers by the name's last
// label: "ok" with a public address, "lan" with a private one, "slow" never,
// anything else NXDOMAIN. It counts the queries per name.
type dnsServer struct {
	conn    net.PacketConn
	mu      sync.Mutex
	queries map[string]int
}

func newDNSServer(t *testing.T) *dnsServer {
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &dnsServer{conn: conn, queries: map[string]int{}}
	t.Cleanup(func() { conn.Close() })
	go s.serve()
	return s
}

func (s *dnsServer) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var q dnsmessage.Message
		if q.Unpack(buf[:n]) != nil || len(q.Questions) != 1 {
			continue
		}
		question := q.Questions[0]
		name := strings.TrimSuffix(question.Name.String(), ".")
		s.mu.Lock()
		s.queries[name]++
		s.mu.Unlock()
		resp := dnsmessage.Message{Header: dnsmessage.Header{ID: q.ID, Response: true, Authoritative: true}, Questions: q.Questions}
		switch name[strings.LastIndexByte(name, '.')+1:] {
		case "slow":
			continue
		case "ok", "lan":
			if question.Type == dnsmessage.TypeA {
				a := [4]byte{93, 184, 216, 34}
				if strings.HasSuffix(name, ".lan") {
					a = [4]byte{10, 1, 2, 3}
				}
				resp.Answers = []dnsmessage.Resource{{Header: dnsmessage.ResourceHeader{Name: question.Name, Type: dnsmessage.TypeA,
					Class: dnsmessage.ClassINET, TTL: 60}, Body: &dnsmessage.AResource{A: a}}}
			}
		default:
			resp.RCode = dnsmessage.RCodeNameError
		}
		out, _ := resp.Pack()
		s.conn.WriteTo(out, from)
	}
}

// names are the distinct names asked about, and the most queries of one.
func (s *dnsServer) names() (distinct, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.queries {
		most = max(most, n)
	}
	return len(s.queries), most
}

func (s *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.conn.LocalAddr().String())
	}}
}

func frontierRows(t *testing.T, ctx context.Context, e *testenv.Env) int {
	var n int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM urls WHERE pending_nonce IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// 100,000 URLs over 1,000 names that do not resolve, and one host that
// does: every name is asked about once (A and AAAA), each refused host is
// reported once with its count of URLs, and the good host's URLs are stored.
func TestRun_EachHostJudgedOnceAndReportedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := testenv.New(t)
	dns := newDNSServer(t)
	var urls []string
	for h := range 1000 {
		for i := range 100 {
			urls = append(urls, fmt.Sprintf("http://site%d.nowhere/story/%d", h, i))
		}
	}
	for i := range 10 {
		urls = append(urls, fmt.Sprintf("https://news.ok/story/%d", i))
	}
	urls = append(urls, "ftp://news.ok/file", "http://")
	var progress strings.Builder
	rep, err := seed.Run(ctx, urls, seed.Into(e.Pool), seed.Config{Resolver: dns.resolver(), Progress: &progress, ProgressEvery: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Read != 100_012 || rep.Queued != 10 || rep.Frontier.New != 10 || rep.RefusedURLs() != 100_002 {
		t.Fatalf("report %+v (refused %d URLs)", rep.Frontier, rep.RefusedURLs())
	}
	hosts := 0
	for _, r := range rep.Refused {
		if r.Host {
			hosts++
			if r.URLs != 100 || !strings.Contains(r.Why, "does not resolve") {
				t.Fatalf("refusal %+v; want 100 URLs, does not resolve", r)
			}
		}
	}
	if hosts != 1000 {
		t.Fatalf("%d hosts refused, want each of the 1,000 once", hosts)
	}
	if distinct, most := dns.names(); distinct != 1001 || most > 2 {
		t.Fatalf("%d names asked, at most %d queries for one; want 1,001 names, one A and one AAAA each", distinct, most)
	}
	if n := frontierRows(t, ctx, e); n != 10 {
		t.Fatalf("%d URLs in the frontier, want 10", n)
	}
	if !strings.Contains(progress.String(), "hosts judged") {
		t.Fatalf("no progress lines: %q", progress.String())
	}
}

// Names whose lookups never answer cannot hold the run past its deadline:
// they are refused as not judged, and the hosts that did answer are stored.
func TestRun_TheDeadlineEndsTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := testenv.New(t)
	dns := newDNSServer(t)
	urls := []string{"http://fast.ok/a"}
	for h := range 200 {
		urls = append(urls, fmt.Sprintf("http://site%d.slow/a", h), fmt.Sprintf("http://site%d.slow/b", h))
	}
	start := time.Now()
	rep, err := seed.Run(ctx, urls, seed.Into(e.Pool), seed.Config{Resolver: dns.resolver(), Lookups: 8, LookupTimeout: 10 * time.Second, Deadline: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Fatalf("the run took %v with a deadline of 1s", took)
	}
	if rep.Queued != 1 || len(rep.Refused) != 200 || frontierRows(t, ctx, e) != 1 {
		t.Fatalf("queued %d, %d refusals; want the fast host stored and the 200 slow ones refused", rep.Queued, len(rep.Refused))
	}
	for _, r := range rep.Refused {
		if !r.Host || r.URLs != 2 || !strings.Contains(r.Why, "deadline") {
			t.Fatalf("refusal %+v; want a slow host with its 2 URLs, not judged by the deadline", r)
		}
	}
}

// A name that answers a private address is refused with the way to allow
// it, unless the guard allows that range, as the crawler's would.
func TestRun_PrivateAddressesAsTheCrawlerJudgesThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := testenv.New(t)
	dns := newDNSServer(t)
	urls := []string{"http://intranet.lan/", "http://127.0.0.1:8080/", "http://news.ok/"}
	rep, err := seed.Run(ctx, urls, seed.Into(e.Pool), seed.Config{Resolver: dns.resolver()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queued != 1 || len(rep.Refused) != 2 || !strings.Contains(rep.Refused[0].Why+rep.Refused[1].Why, "CRAWL_ALLOW_CIDRS=10.1.2.3/32") {
		t.Fatalf("queued %d, refused %+v", rep.Queued, rep.Refused)
	}
	allow := seed.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24"), netip.MustParsePrefix("127.0.0.1/32")}}
	rep, err = seed.Run(ctx, urls, seed.Into(e.Pool), seed.Config{Resolver: dns.resolver(), Guard: allow})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queued != 3 || len(rep.Refused) != 0 || rep.Frontier.New != 2 || rep.Frontier.Owed != 1 {
		t.Fatalf("with the ranges allowed: queued %d, frontier %+v, refused %+v", rep.Queued, rep.Frontier, rep.Refused)
	}
}
