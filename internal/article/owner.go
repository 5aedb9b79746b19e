package article

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// siteOwner is the person a personal site is named for, as the writer of
// a story that credits them by their first name alone: the site's own
// name (declared, else the holder of its copyright line) whose first word
// is that name and whose first two or three words spell the host ("Brett"
// on brettlarkin.com, "Brett Larkin Yoga": Brett Larkin). A site name
// alone names no writer: "Steam Deck", "Royal Road" and "Uber
// Engineering" spell their hosts too.
func (pm *pageMeta) siteOwner(pageURL string, credited []string) []string {
	if len(credited) != 1 || strings.Contains(credited[0], " ") {
		return credited
	}
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return credited
	}
	labels := strings.Split(strings.ToLower(strings.TrimPrefix(u.Hostname(), "www.")), ".")
	labels = labels[:len(labels)-1] // the TLD
	owner := func(name string) string {
		words := strings.Fields(name)
		if len(words) < 2 || !strings.EqualFold(words[0], credited[0]) {
			return ""
		}
		for n := 2; n <= min(len(words), 3); n++ {
			full := strings.Join(words[:n], " ")
			if !rePersonName.MatchString(full) {
				return ""
			}
			if slices.Contains(labels, letters(full)) {
				return full
			}
		}
		return ""
	}
	name := owner(pm.get("og:site_name", "application-name"))
	if name == "" {
		name = owner(pm.copyrightName())
	}
	if name == "" {
		return credited
	}
	return []string{name}
}

// maxCopyrightScan bounds the elements, from the page's end, searched for
// a copyright line.
const maxCopyrightScan = 200

// reCopyrightName is the holder a copyright line names ("© 2025 Toby
// Hede. All rights reserved."): two or three capitalised words.
var reCopyrightName = regexp.MustCompile(`(?:©|\([cC]\)|[Cc]opyright)\s*(?:©\s*)?(?:\d{4}(?:\s*[-–]\s*\d{4})?\s*,?\s*)?(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+){1,2})\b`)

// copyrightName is the holder the last copyright line of the page names,
// or "".
func (pm *pageMeta) copyrightName() string {
	for i := len(pm.nodes) - 1; i >= max(len(pm.nodes)-maxCopyrightScan, 0); i-- {
		for c := pm.nodes[i].FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode || !strings.Contains(c.Data, "©") && !strings.Contains(c.Data, "opyright") && !strings.Contains(c.Data, "(c)") {
				continue
			}
			if m := reCopyrightName.FindStringSubmatch(cleanInline(c.Data)); m != nil {
				return m[1]
			}
		}
	}
	return ""
}
