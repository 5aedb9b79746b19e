package clean

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/newscrawl/newscrawl/internal/article"
)

// Render modes (RENDER): which pages the cleaner sends to the renderer.
const (
	RenderOff    = "off"    // none (the default)
	RenderAuto   = "auto"   // script shells whose static page gave no story, and every page of RenderHosts
	RenderAlways = "always" // every page
)

// ParseRenderMode checks a RENDER value.
func ParseRenderMode(s string) (string, error) {
	switch m := strings.ToLower(strings.TrimSpace(s)); m {
	case "", RenderOff:
		return RenderOff, nil
	case RenderAuto, RenderAlways:
		return m, nil
	}
	return "", fmt.Errorf("RENDER=%q: want off, auto or always", s)
}

// shellMarkers are what the page of a script-built site carries in place of
// its story: a framework's data island or root, or a plea for script.
var shellMarkers = [][]byte{
	[]byte(`id="__NEXT_DATA__"`), []byte(`window.__NUXT__`), []byte(`id="__nuxt"`), []byte(`ng-version=`),
	[]byte(`<app-root`), []byte(`data-reactroot`), []byte(`id="root"></div>`), []byte(`id="app"></div>`),
	[]byte(`window.__INITIAL_STATE__`), []byte(`window.__APOLLO_STATE__`), []byte(`window.__PRELOADED_STATE__`),
	[]byte(`id="___gatsby"`), []byte(`data-sveltekit`), []byte(`enable JavaScript`), []byte(`enable Javascript`),
	[]byte(`requires JavaScript`),
}

// ScriptShell reports whether a page shows the markers of a script-built
// site (an empty root, a framework's data, a noscript plea).
func ScriptShell(body []byte) bool {
	for _, m := range shellMarkers {
		if bytes.Contains(body, m) {
			return true
		}
	}
	return false
}

// wantsRender decides whether a statically cleaned page goes to the
// renderer. Under auto, never a page the cleaner already made a story of,
// unless its host is listed.
func (s *Stage) wantsRender(host string, body []byte, a *article.Article) bool {
	switch s.cfg.Render {
	case RenderAlways:
		return true
	case RenderAuto:
		return s.renderHosts[host] || (!a.IsArticle && ScriptShell(body))
	}
	return false
}
