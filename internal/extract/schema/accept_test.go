package schema

import (
	"strings"
	"testing"
)

func TestAccept_CoercesOrDropsFieldByField(t *testing.T) {
	answer := "Here you go:\n```json\n" + `{"title": "Trees for Paris", "summary": "Paris will plant trees.",
		"language": "Sample language", "published_at": "March 4, 2024", "authors": "Claire Martin",
		"people": ["Anne Hidalgo", 7], "organizations": [], "locations": ["Paris"], "topics": ["Environment", "gardening"],
		"keywords": ["trees"], "sentiment": "Neutral", "quotes": ["Paris must adapt now", {"speaker": "N/A", "text": "We start in spring"}, 3],
		"extra": true}` + "\n```"
	e, invalid, err := Accept(answer)
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary == nil || *e.Summary != "Paris will plant trees." || e.Language != nil || e.PublishedAt == nil ||
		*e.PublishedAt != "2024-03-04T00:00:00Z" || e.Sentiment == nil || *e.Sentiment != "neutral" {
		t.Fatalf("accepted %+v", e)
	}
	if strings.Join(e.Authors, "|") != "Claire Martin" || strings.Join(e.People, "|") != "Anne Hidalgo" ||
		strings.Join(e.Topics, "|") != "environment" || len(e.Quotes) != 2 || e.Quotes[1].Speaker != nil {
		t.Fatalf("lists: %+v", e)
	}
	var got []string
	for _, i := range invalid {
		got = append(got, i.Field)
	}
	if strings.Join(got, ",") != "language,people,quotes,topics" {
		t.Fatalf("invalid fields %v", invalid)
	}
}

func TestAccept_LanguageNamesAndTags(t *testing.T) {
	for in, want := range map[string]string{"German": "de", "en-GB": "en", "FR": "fr", "español": "es", "Japanese": "ja"} {
		e, _, err := Accept(`{"summary": "s", "language": "` + in + `"}`)
		if err != nil || e.Language == nil || *e.Language != want {
			t.Errorf("%s: got %v, %v; want %s", in, e.Language, err, want)
		}
	}
}

func TestAccept_RejectsOnlyAnUnusableAnswer(t *testing.T) {
	for _, answer := range []string{"I cannot help with that.", `{"title": "x"}`, `{"summary": "  "}`, `{"summary": "N/A"}`, `[1, 2]`} {
		if _, _, err := Accept(answer); err == nil {
			t.Errorf("%q accepted", answer)
		}
	}
}
