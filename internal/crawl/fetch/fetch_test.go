package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/newscrawl/newscrawl/internal/crawl/fetch"
)

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return buf.Bytes()
}

func TestFetcher_SSRFGuard(t *testing.T) {
	var hits atomic.Int32
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>secret</html>"))
	}))
	defer inner.Close()
	port := inner.Listener.Addr().(*net.TCPAddr).Port

	// A "public" server: 127.0.0.2 is allow-listed below, standing in for a
	// public address; it redirects to the loopback server.
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	outer := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/private", http.StatusFound)
	}))
	outer.Listener = ln
	outer.Start()
	defer outer.Close()

	guarded := fetch.New(fetch.Config{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}})
	open := fetch.New(fetch.Config{AllowPrivate: true})
	tests := []struct {
		name        string
		f           *fetch.Fetcher
		url         string
		wantBlocked bool
	}{
		{"loopback literal refused", guarded, inner.URL + "/", true},
		{"name resolving to loopback refused", guarded, "http://localhost:" + itoa(port) + "/", true},
		{"redirect to loopback refused", guarded, outer.URL + "/", true},
		{"allowed with AllowPrivate", open, inner.URL + "/", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hits.Load()
			resp, err := tt.f.Fetch(context.Background(), fetch.Request{URL: tt.url})
			if tt.wantBlocked {
				if !errors.Is(err, fetch.ErrBlocked) {
					t.Fatalf("err = %v, want ErrBlocked", err)
				}
				if hits.Load() != before {
					t.Fatal("the private server was reached")
				}
				return
			}
			if err != nil || resp.Status != 200 || hits.Load() != before+1 {
				t.Fatalf("resp %+v, err %v, hits %d", resp, err, hits.Load())
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestBlocked_Ranges(t *testing.T) {
	for _, tt := range []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true}, {"10.1.2.3", true}, {"172.16.0.1", true}, {"192.168.1.1", true},
		{"169.254.169.254", true}, {"0.0.0.0", true}, {"224.0.0.1", true}, {"100.64.0.1", true},
		{"::1", true}, {"fe80::1", true}, {"fd00::1", true}, {"::ffff:127.0.0.1", true}, {"::", true},
		{"93.184.216.34", false}, {"2606:4700::1111", false},
	} {
		if got := fetch.Blocked(netip.MustParseAddr(tt.ip)); got != tt.blocked {
			t.Errorf("Blocked(%s) = %v, want %v", tt.ip, got, tt.blocked)
		}
	}
}

func TestFetcher_Outcomes(t *testing.T) {
	bomb := gz(t, make([]byte, 8<<20)) // 8 MiB of zeros, ~8 KiB compressed, 8× the limit
	var brBody bytes.Buffer
	bw := brotli.NewWriter(&brBody)
	bw.Write([]byte("<html>brotli</html>"))
	bw.Close()
	latin1 := []byte("<html><body>caf\xe9 na\xefve</body></html>")
	mux := http.NewServeMux()
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(bytes.Repeat([]byte("a"), 2<<20))
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	mux.HandleFunc("/br", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Encoding", "br")
		w.Write(brBody.Bytes())
	})
	mux.HandleFunc("/sitemap.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(gz(t, []byte(`<urlset><url><loc>x</loc></url></urlset>`)))
	})
	mux.HandleFunc("/pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4"))
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", 302) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", 302) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, r.URL.Path+"x", 302) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/br", 301) })
	mux.HandleFunc("/etag", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte("<html>v1</html>"))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(latin1)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(30 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	// A timeout no busy machine reaches on these local pages; the slow
	// host gets a fetcher of its own with a short one.
	f := fetch.New(fetch.Config{AllowPrivate: true, MaxBody: 1 << 20, MaxRedirects: 3, Timeout: 20 * time.Second})
	ctx := context.Background()

	t.Run("body over the limit is too large", func(t *testing.T) {
		_, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/big"})
		if !errors.Is(err, fetch.ErrTooLarge) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("gzip bomb is capped", func(t *testing.T) {
		_, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/bomb"})
		if !errors.Is(err, fetch.ErrTooLarge) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("brotli decoded", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/br"})
		if err != nil || string(r.Body) != "<html>brotli</html>" {
			t.Fatalf("resp %q, err %v", r.Body, err)
		}
	})
	t.Run("gzip file unwrapped", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/sitemap.xml.gz"})
		if err != nil || !strings.HasPrefix(string(r.Body), "<urlset>") {
			t.Fatalf("resp %q, err %v", r.Body, err)
		}
	})
	t.Run("pdf not accepted and not read", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/pdf"})
		if err != nil || r.Accepted || r.Body != nil || r.MediaType != "application/pdf" {
			t.Fatalf("resp %+v, err %v", r, err)
		}
	})
	t.Run("redirect loop detected", func(t *testing.T) {
		_, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/loop"})
		if !errors.Is(err, fetch.ErrRedirectLoop) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("redirect chain limited", func(t *testing.T) {
		_, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/chain/"})
		if !errors.Is(err, fetch.ErrTooManyRedirects) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("final url recorded", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/moved"})
		if err != nil || r.FinalURL != srv.URL+"/br" || r.Redirects != 1 {
			t.Fatalf("resp %+v, err %v", r, err)
		}
	})
	t.Run("conditional get answered 304", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/etag", ETag: `"v1"`})
		if err != nil || !r.NotModified() || r.Body != nil {
			t.Fatalf("resp %+v, err %v", r, err)
		}
	})
	t.Run("slow host times out", func(t *testing.T) {
		short := fetch.New(fetch.Config{AllowPrivate: true, Timeout: 300 * time.Millisecond})
		_, err := short.Fetch(ctx, fetch.Request{URL: srv.URL + "/slow"})
		if !fetch.IsTimeout(err) {
			t.Fatalf("err = %v, want a timeout", err)
		}
	})
	t.Run("latin-1 without charset converted", func(t *testing.T) {
		r, err := f.Fetch(ctx, fetch.Request{URL: srv.URL + "/latin1"})
		if err != nil {
			t.Fatal(err)
		}
		out, name, err := fetch.ToUTF8(r.Body, r.ContentType)
		if err != nil || name != "windows-1252" || !strings.Contains(string(out), "café naïve") {
			t.Fatalf("ToUTF8 = %q, %q, %v", out, name, err)
		}
	})
}

func TestToUTF8_Labels(t *testing.T) {
	tests := []struct {
		name, ct, want, wantCharset string
		body                        []byte
	}{
		{"utf-8 as labelled", "text/html; charset=utf-8", "é", "utf-8", []byte("<p>é</p>")},
		{"labelled utf-8 but latin-1 bytes", "text/html; charset=utf-8", "é", "windows-1252", []byte("<p>\xe9</p>")},
		{"meta charset", "text/html", "é", "windows-1252", []byte(`<meta charset="iso-8859-1"><p>` + "\xe9</p>")},
		{"labelled latin-1 but utf-8 bytes", "text/html; charset=iso-8859-1", "é", "utf-8", []byte("<p>é</p>")},
		{"shift_jis", "text/html; charset=shift_jis", "日本", "shift_jis", []byte("<p>\x93\xfa\x96\x7b</p>")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, cs, err := fetch.ToUTF8(tt.body, tt.ct)
			if err != nil || cs != tt.wantCharset || !strings.Contains(string(out), tt.want) {
				t.Fatalf("ToUTF8 = %q, %q, %v; want %q from %q", out, cs, err, tt.want, tt.wantCharset)
			}
		})
	}
}

// CRAWL_ALLOW_CIDRS is read alike by every process: ranges or single
// addresses, commas or spaces.
func TestParseCIDRs(t *testing.T) {
	got, err := fetch.ParseCIDRs("10.0.0.0/8, 127.0.0.2 192.168.1.7/24,")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "127.0.0.2/32", "192.168.1.0/24"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
	if _, err := fetch.ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("a bad range was accepted")
	}
}
