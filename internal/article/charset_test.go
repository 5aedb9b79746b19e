package article

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"
)

func TestExtractCharsets(t *testing.T) {
	filler := pTags(articleParas(3))
	sjis, err := japanese.ShiftJIS.NewEncoder().String("<p>東京都は新しい予算案を承認しました。学校や道路のための資金が含まれています。</p>")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		page string
		want string
	}{
		{"windows-1252 labelled", `<html><head><meta charset="windows-1252"></head><body><article><p>Caf` + "\xe9" + ` owners said the r` + "\xe9" + `sum` + "\xe9" + ` was “fine”, according to reports.</p>` + filler + `</article></body></html>`, "Café owners said the résumé"},
		{"latin1 via http-equiv", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head><body><article><p>Se` + "\xf1" + `or Mu` + "\xf1" + `oz spoke at length about the plan.</p>` + filler + `</article></body></html>`, "Señor Muñoz"},
		{"utf-8 mislabelled as latin1", `<html><head><meta charset="iso-8859-1"></head><body><article><p>Zoë and Chloé met in Zürich, the reports said.</p>` + filler + `</article></body></html>`, "Zoë and Chloé met in Zürich"},
		{"cp1252 mislabelled as utf-8", `<html><head><meta charset="utf-8"></head><body><article><p>Na` + "\xef" + `ve caf` + "\xe9" + ` culture ` + "\x96" + ` an essay, by the editors.</p>` + filler + `</article></body></html>`, "Naïve café culture – an essay"},
		{"utf-8 mislabelled as iso-2022-jp", `<html><head><meta charset="iso-2022-jp"></head><body><article><p>市政府今天公布了新的交通计划，Zoë said.</p>` + filler + `</article></body></html>`, "市政府今天公布了新的交通计划，Zoë said."}, // it holds no byte above 0x7f
		{"iso-2022-jp labelled", "<html><head><meta charset=\"iso-2022-jp\"></head><body><article><p>\x1b$BEl5~\x1b(B said the mayor.</p>" + filler + "</article></body></html>", "東京 said the mayor."},
		{"shift_jis labelled", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body><article>` + sjis + `</article></body></html>`, "東京都は新しい予算案を承認しました"},
		{"utf-8 bom", "\xef\xbb\xbf<html><body><article><p>Ångström units were used, said the physicist.</p>" + filler + "</article></body></html>", "Ångström units"},
		{"utf-16le bom", utf16le("<html><body><article><p>Größe matters, said the German engineer, again.</p>" + filler + "</article></body></html>"), "Größe matters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := mustExtract(t, tc.page, "")
			if !utf8.ValidString(a.Text) {
				t.Fatalf("invalid UTF-8 output")
			}
			if !strings.Contains(a.Text, tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, a.Text)
			}
		})
	}
}

func utf16le(s string) string {
	var b strings.Builder
	b.WriteString("\xff\xfe")
	for _, r := range s {
		if r > 0xffff {
			r = '?'
		}
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.String()
}

func TestExtractRejectsNonHTML(t *testing.T) {
	cases := map[string][]byte{
		"empty":        nil,
		"whitespace":   []byte("   \n\t "),
		"png":          []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
		"pdf":          []byte("%PDF-1.4\n%âãÏÓ\n1 0 obj"),
		"random":       {0x01, 0x02, 0x9f, 0x00, 0xff, 0x13, 0x37, 0x00, 0x42, 0x10},
		"plain text":   []byte("just some words without any markup at all"),
		"control soup": []byte(strings.Repeat("\x01\x02\x03abc", 200)),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Extract(in, "", Options{})
			if !errors.Is(err, ErrNotHTML) {
				t.Errorf("err = %v, want ErrNotHTML", err)
			}
		})
	}
}
