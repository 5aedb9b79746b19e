package article

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// siteOwner is the person a personal site is named for, as the writer of
// a story that credits no one or only by a first name. The site's own
// name (declared, else its copyright line) names its owner where the
// host is the owner's subdomain on a blogging platform ("Owain Brennan"
// on owain.bearblog.dev), or where the story credits that name's first
// word and the name, or the words that open it, spell the host ("Brett"
// on brettlarkin.com, "Brett Larkin Yoga"). A name that spells the host
// alone says nothing: "Steam Deck", "Royal Road" and "Merrill Edge" do.
func (pm *pageMeta) siteOwner(pageURL string, credited []string) []string {
	if len(credited) > 1 || len(credited) == 1 && strings.Contains(credited[0], " ") {
		return credited
	}
	u, err := url.Parse(pageURL)
	if err != nil || u.Hostname() == "" {
		return credited
	}
	labels := strings.Split(strings.ToLower(strings.TrimPrefix(u.Hostname(), "www.")), ".")
	labels = labels[:len(labels)-1] // the TLD
	if len(labels) == 0 {
		return credited
	}
	owner := func(name string) string {
		words := strings.Fields(name)
		for n := 2; n <= min(len(words), 3); n++ {
			full := strings.Join(words[:n], " ")
			switch {
			case !rePersonName.MatchString(full):
				return ""
			case len(credited) == 1 && strings.EqualFold(credited[0], words[0]) && slices.Contains(labels, letters(full)):
				return full
			case len(credited) == 0 && n == len(words) && len(labels) >= 2 && labels[0] == letters(words[0]) && blogPlatforms[labels[1]]:
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

// blogPlatforms are the hosts that give each writer a subdomain.
var blogPlatforms = map[string]bool{
	"bearblog": true, "substack": true, "medium": true, "wordpress": true, "blogspot": true, "github": true, "ghost": true,
	"tumblr": true, "neocities": true, "hashnode": true, "micro": true, "svbtle": true, "typepad": true, "livejournal": true, "writeas": true,
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
