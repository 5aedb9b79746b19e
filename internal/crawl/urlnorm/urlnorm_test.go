package urlnorm_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/newscrawl/newscrawl/internal/crawl/urlnorm"
)

func TestNormalize_Table(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"lower-cases scheme and host", "HTTP://Example.COM/Path", "http://example.com/Path"},
		{"drops default http port", "http://example.com:80/a", "http://example.com/a"},
		{"drops default https port", "https://example.com:443/a", "https://example.com/a"},
		{"keeps other ports", "http://example.com:8080/a", "http://example.com:8080/a"},
		{"empty path becomes slash", "https://example.com", "https://example.com/"},
		{"resolves dot segments", "https://example.com/a/./b/../c", "https://example.com/a/c"},
		{"dot segments above root", "https://example.com/../../a", "https://example.com/a"},
		{"keeps trailing slash", "https://example.com/a/b/", "https://example.com/a/b/"},
		{"removes fragment", "https://example.com/a#comments", "https://example.com/a"},
		{"removes utm params", "https://example.com/a?utm_source=x&utm_MEDIUM=y&id=3", "https://example.com/a?id=3"},
		{"removes click ids", "https://example.com/a?fbclid=1&gclid=2&msclkid=3", "https://example.com/a"},
		{"sorts params", "https://example.com/a?b=2&a=1&c=3", "https://example.com/a?a=1&b=2&c=3"},
		{"sorts repeated keys by value", "https://example.com/a?x=2&x=1", "https://example.com/a?x=1&x=2"},
		{"drops empty pieces", "https://example.com/a?&&a=1&", "https://example.com/a?a=1"},
		{"upper-cases escapes", "https://example.com/a%2fb", "https://example.com/a%2Fb"},
		{"decodes unreserved escapes", "https://example.com/%7Euser/%61", "https://example.com/~user/a"},
		{"escapes spaces", "https://example.com/a b", "https://example.com/a%20b"},
		{"drops userinfo", "https://user:pw@example.com/", "https://example.com/"},
		{"trailing dot host", "https://example.com./a", "https://example.com/a"},
		{"idn host to punycode", "https://bücher.de/", "https://xn--bcher-kva.de/"},
		{"ipv6 literal", "http://[::1]:8080/x", "http://[::1]:8080/x"},
		{"space in query becomes plus", "https://example.com/s?q=a%20b", "https://example.com/s?q=a+b"},
		{"trims whitespace", "  https://example.com/a \n", "https://example.com/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := urlnorm.Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalize_Rejects(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"ftp scheme", "ftp://example.com/a", urlnorm.ErrUnsupportedScheme},
		{"javascript", "javascript:alert(1)", urlnorm.ErrUnsupportedScheme},
		{"relative", "/a/b", urlnorm.ErrUnsupportedScheme},
		{"no host", "http:///a", urlnorm.ErrNoHost},
		{"port out of range", "http://example.com:70000/", urlnorm.ErrBadPort},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := urlnorm.Normalize(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Normalize(%q) error = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
	if _, err := urlnorm.Normalize("http://exa mple.com/"); err == nil {
		t.Fatal("space in host accepted")
	}
}

func TestNormalize_VariantsShareOneForm(t *testing.T) {
	variants := []string{
		"https://News.example.com/world/story-1",
		"https://news.example.com:443/world/story-1#top",
		"https://news.example.com/world/./story-1?utm_source=rss&utm_campaign=x",
		"https://news.example.com/world/x/../story-1?fbclid=abc",
	}
	want, _ := urlnorm.Normalize(variants[0])
	for _, v := range variants {
		got, err := urlnorm.Normalize(v)
		if err != nil || got != want {
			t.Fatalf("Normalize(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
}

func TestResolve_Links(t *testing.T) {
	base, _ := url.Parse("https://example.com/news/index.html")
	tests := []struct {
		href, want string
		ok         bool
	}{
		{"story.html", "https://example.com/news/story.html", true},
		{"../about", "https://example.com/about", true},
		{"//cdn.example.com/x", "https://cdn.example.com/x", true},
		{"#top", "", false},
		{"", "", false},
		{"javascript:void(0)", "", false},
		{"mailto:a@example.com", "", false},
		{"story.html?utm_source=x#c", "https://example.com/news/story.html", true},
	}
	for _, tt := range tests {
		got, ok := urlnorm.Resolve(base, tt.href)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.href, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"https://example.com/a?b=1&a=2#f", "HTTP://EXAMPLE.com:80/./a/../b", "http://[::1]:80/%7e?utm_x=1",
		"https://bücher.de/ä ö?q=%zz", "http://h:080/", "http://a/%2e%2E/b?x=%20&y=+",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n1, err := urlnorm.Normalize(raw)
		if err != nil {
			return
		}
		n2, err := urlnorm.Normalize(n1)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which does not normalize again: %v", raw, n1, err)
		}
		if n1 != n2 {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, n1, n2)
		}
		u, err := url.Parse(n1)
		if err != nil || u.Fragment != "" || u.User != nil {
			t.Fatalf("result %q does not parse cleanly: %v", n1, err)
		}
	})
}
