package plot

import (
	"bytes"
	"compress/zlib"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// TestPDFGlyphs checks that a character code page 1252 lacks is drawn from the font's own glyph: its
// advance is the font's (gonum's Face.Width, computed apart from the outline), the PDF's text holds
// no spelled-out stand-in ("Omega", ">=") and its page gains filled outlines; a combining circumflex
// takes no room of its own.
func TestPDFGlyphs(t *testing.T) {
	face := font.DefaultCache.Lookup(font.From(sans, 9), 9)
	c := newPDFCanvas(3*vg.Inch, vg.Inch)
	for _, r := range "Ω≥→" {
		adv, ok := c.fillGlyph(face, vg.Point{X: 10, Y: 10}, r, 0)
		if want := face.Width(string(r)); !ok || math.Abs(float64(adv-want)) > 1e-9 {
			t.Errorf("%c: advance %v (ok %v), want the font's %v", r, adv, ok, want)
		}
	}
	if adv, ok := c.fillGlyph(face, vg.Point{X: 10, Y: 10}, '\u0302', face.Width("q")); !ok || adv != 0 {
		t.Errorf("combining circumflex: advance %v (ok %v), want 0", adv, ok)
	}
	page := func(s string) string {
		c := newPDFCanvas(3*vg.Inch, vg.Inch)
		c.FillString(face, vg.Point{X: 10, Y: 30}, s)
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		// The page's content stream, inflated.
		var out bytes.Buffer
		for _, m := range regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`).FindAllSubmatch(buf.Bytes(), -1) {
			if r, err := zlib.NewReader(bytes.NewReader(m[1])); err == nil {
				b, _ := io.ReadAll(r)
				out.Write(b)
			}
		}
		return out.String()
	}
	plain, sym := page("q = 0.5"), page("Ω ≥ 0.5, q̂ → 1")
	// The embedded font is the same in both (its glyph names include "Omega"): a stand-in set as text
	// would show up more often in the second.
	for _, stand := range []string{"Omega", ">=", "->", "q^"} {
		if n, m := strings.Count(sym, stand), strings.Count(plain, stand); n > m {
			t.Errorf("the PDF spells out %q (%d times, %d without the symbols)", stand, n, m)
		}
	}
	fills := func(s string) int { return len(regexp.MustCompile(`(?m) f\*?$|^f\*?$`).FindAllString(s, -1)) }
	if fills(sym) < fills(plain)+4 {
		t.Errorf("%d filled paths with Ω ≥ q̂ →, %d without: the glyphs were not drawn", fills(sym), fills(plain))
	}
}
