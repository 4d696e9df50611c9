package plot

import (
	"bytes"
	"compress/zlib"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pdfStreams returns the PDF's streams, inflated where they are compressed.
func pdfStreams(pdf []byte) [][]byte {
	var out [][]byte
	for _, m := range regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`).FindAllSubmatch(pdf, -1) {
		if r, err := zlib.NewReader(bytes.NewReader(m[1])); err == nil {
			b, _ := io.ReadAll(r)
			out = append(out, b)
		} else {
			out = append(out, m[1])
		}
	}
	return out
}

// pdfShownText decodes the strings a content stream shows (its "(…) Tj" operators) as the PDF
// specification reads them with an Identity-H font and an identity ToUnicode map: each string is
// UTF-16BE, with the literal-string escapes \\, \( and \) (§7.3.4.2).
func pdfShownText(content []byte) []string {
	var out []string
	for i := 0; i < len(content); i++ {
		if content[i] != '(' {
			continue
		}
		var raw []byte
		j := i + 1
		for ; j < len(content) && content[j] != ')'; j++ {
			if content[j] == '\\' && j+1 < len(content) {
				j++
				switch content[j] {
				case 'r':
					raw = append(raw, '\r')
				case 'n':
					raw = append(raw, '\n')
				default:
					raw = append(raw, content[j])
				}
				continue
			}
			raw = append(raw, content[j])
		}
		if bytes.HasPrefix(bytes.TrimSpace(content[j+1:]), []byte("Tj")) && len(raw)%2 == 0 {
			u := make([]uint16, len(raw)/2)
			for k := range u {
				u[k] = uint16(raw[2*k])<<8 | uint16(raw[2*k+1])
			}
			out = append(out, string(utf16.Decode(u)))
		}
		i = j
	}
	return out
}

// TestPDFText checks that the PDF canvas sets text in Unicode: the strings its page shows, decoded by
// the PDF specification's rule for its font's encoding (not by the canvas's code), are the characters
// drawn, including those code page 1252 lacks (Ω, ≥, →, λ, ₂, ↓); the font has an identity ToUnicode map
// (so a reader copies and searches what it shows); the embedded font is a subset, a small part of the font
// file; a combining circumflex is drawn as an outline over the character before it and takes no room; and
// the same drawing gives the same bytes.
func TestPDFText(t *testing.T) {
	face := font.DefaultCache.Lookup(font.From(sans, 9), 9)
	if adv, ok := newPDFCanvas(vg.Inch, vg.Inch).fillGlyph(face, vg.Point{X: 10, Y: 10}, '\u0302', face.Width("q")); !ok || adv != 0 {
		t.Errorf("combining circumflex: advance %v (ok %v), want 0", adv, ok)
	}
	for _, r := range "Ω≥→" {
		adv, ok := newPDFCanvas(vg.Inch, vg.Inch).fillGlyph(face, vg.Point{X: 10, Y: 10}, r, 0)
		if want := face.Width(string(r)); !ok || math.Abs(float64(adv-want)) > 1e-9 {
			t.Errorf("%c: outline advance %v (ok %v), want the font's %v", r, adv, ok, want)
		}
	}
	render := func(s string) []byte {
		c := newPDFCanvas(3*vg.Inch, vg.Inch)
		c.FillString(face, vg.Point{X: 10, Y: 30}, s)
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	const typed = "Ω ≥ 0.5, q̂ → 1, λ₂ ↓ é ± 0.1"
	pdf := render(typed)
	for i := range 10 {
		if !bytes.Equal(render(typed), pdf) {
			t.Fatalf("render %d gave other bytes", i+2)
		}
	}
	var shown []string
	fills := 0
	toUnicode := false
	for _, s := range pdfStreams(pdf) {
		if bytes.Contains(s, []byte("Tj")) {
			shown = append(shown, pdfShownText(s)...)
			fills += len(regexp.MustCompile(`(?m)^f\*?$`).FindAll(s, -1))
		}
		if bytes.Contains(s, []byte("/CMapName /Adobe-Identity-UCS")) && bytes.Contains(s, []byte("<0000> <FFFF> <0000>")) {
			toUnicode = true
		}
	}
	// The circumflex is not text: the page shows the rest, in two runs on either side of it.
	if got, want := strings.Join(shown, ""), strings.ReplaceAll(typed, "\u0302", ""); got != want {
		t.Errorf("the page shows %q, want %q", got, want)
	}
	if fills != 1 {
		t.Errorf("%d filled paths, want 1 (the circumflex)", fills)
	}
	if !toUnicode {
		t.Error("no identity ToUnicode map: a reader cannot copy the text")
	}
	if !bytes.Contains(pdf, []byte("/Encoding /Identity-H")) {
		t.Error("the font is not Identity-H")
	}
	var source bytes.Buffer
	if _, err := face.Face.WriteSourceTo(nil, &source); err != nil {
		t.Fatal(err)
	}
	if len(pdf) > source.Len()/10 {
		t.Errorf("the PDF has %d bytes, the whole font file %d: the font is not subset", len(pdf), source.Len())
	}
}
