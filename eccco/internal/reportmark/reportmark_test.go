package reportmark

import (
	"os"
	"path/filepath"
	"testing"
)

func TestKeyHashesPartsWithTheirLengths(t *testing.T) {
	// The SHA-256 of "abc" is ba7816bf…; the key hashes each part after its length, so it is not that,
	// and a split in another place is another key.
	if k := Key([]byte("abc")); k == "sha256-ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" || len(k) != 7+64 {
		t.Errorf("Key(abc) = %s", k)
	}
	if Key([]byte("ab"), []byte("c")) == Key([]byte("a"), []byte("bc")) {
		t.Error("two splits of the same bytes share a key")
	}
	if Key([]byte("x")) != Key([]byte("x")) {
		t.Error("the key is not deterministic")
	}
}

func TestSameContent(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	k, other := Key([]byte("one")), Key([]byte("two"))
	tex := write("a.tex", "% "+Marker+": do not edit\n"+TeXLine(k)+"\n\\documentclass{article}\n")
	// pdfTeX's document information: the creator with its spaces escaped, the keywords as one word.
	pdf := write("a.pdf", "%PDF-1.5\n<< /Creator (generated\\040by\\040eccco\\040report) /Keywords ("+PDFKeywords(k)+") >>")
	if got, _ := FromTeX(tex); got != k {
		t.Errorf("FromTeX = %q, want %q", got, k)
	}
	if !SameContent(tex, pdf) {
		t.Error("the same key: not the same content")
	}
	if ok, err := GeneratedPDF(pdf); !ok || err != nil {
		t.Errorf("GeneratedPDF = %v, %v", ok, err)
	}
	stale := write("b.pdf", "%PDF-1.5\n<< /Creator (generated\\040by\\040eccco\\040report) /Keywords ("+PDFKeywords(other)+") >>")
	old := write("c.pdf", "%PDF-1.5\n<< /Creator (generated\\040by\\040eccco\\040report) >>") // before content keys
	bare := write("b.tex", "% "+Marker+"\n\\documentclass{article}\n")
	empty := write("e.tex", "")
	for _, c := range [][2]string{{tex, stale}, {tex, old}, {bare, old}, {empty, pdf}, {tex, filepath.Join(dir, "missing.pdf")}, {filepath.Join(dir, "missing.tex"), pdf}} {
		if SameContent(c[0], c[1]) {
			t.Errorf("SameContent(%s, %s): want false", filepath.Base(c[0]), filepath.Base(c[1]))
		}
	}
	user := write("user.pdf", "%PDF-1.5 a user's own")
	if ok, _ := GeneratedPDF(user); ok {
		t.Error("a user's PDF taken for the report's")
	}
	if ok, err := GeneratedPDF(filepath.Join(dir, "missing.pdf")); ok || err != nil {
		t.Errorf("a missing PDF: %v, %v", ok, err)
	}
}
