package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"testing"
	"time"

	"github.com/newscrawl/newscrawl/internal/search"
)

func TestExportWriters(t *testing.T) {
	at := time.Date(2026, 11, 24, 7, 30, 0, 0, time.UTC)
	docs := []search.Listed{
		{DocID: "a", Title: `Quote "and" comma, here`, PublishedAt: &at, People: []string{"Ana", "Bo"}, Text: "line one\nline two"},
		{DocID: "b", Title: "Undated"},
	}
	var jb, cb bytes.Buffer
	jw, cw := jsonlWriter(&jb), csvWriter(&cb, true)
	for _, d := range docs {
		if err := jw(d); err != nil {
			t.Fatal(err)
		}
		if err := cw(d); err != nil {
			t.Fatal(err)
		}
	}
	lines := bytes.Split(bytes.TrimSpace(jb.Bytes()), []byte("\n"))
	var back search.Listed
	if len(lines) != 2 || json.Unmarshal(lines[0], &back) != nil || back.Title != docs[0].Title || back.Text != docs[0].Text {
		t.Fatalf("jsonl: %q", jb.String())
	}
	rows, err := csv.NewReader(&cb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0][0] != "doc_id" || rows[1][2] != docs[0].Title || rows[1][5] != "2026-11-24T07:30:00Z" ||
		rows[1][13] != "Ana; Bo" || rows[1][len(rows[1])-1] != "line one\nline two" || rows[2][5] != "" {
		t.Fatalf("csv rows: %q", rows)
	}
}
