package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/figures"
)

// A figure with both a vector PDF and a PNG: the LaTeX version embeds the PDF at the width it was drawn
// for (its MediaBox, here 3.3 in = 237.6 pt), the Markdown version shows the PNG; a figure drawn wider
// than the text is shrunk to the text width, and one with only a PNG keeps its fraction of the text width.
func TestFiguresPrintAtTheirDrawnSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fig1-motiv.pdf", "%PDF-1.4\n1 0 obj << /Type /Page /MediaBox [0 0 237.6 120.5] >> endobj\n")
	write("fig1-motiv.png", "png")
	write("fig2-poc.pdf", "%PDF-1.4\n1 0 obj << /Type /Page /MediaBox [0 0 612 300] >> endobj\n")
	write("cp-diff.png", "png")
	in := tiny()
	in.FiguresDir = dir
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	tex := d.LaTeX()
	for _, want := range []string{
		`\includegraphics[width=237.6pt,height=0.85\textheight,keepaspectratio]{figures/fig1-motiv.pdf}`,
		`\includegraphics[width=510.2pt,height=0.85\textheight,keepaspectratio]{figures/fig2-poc.pdf}`,
		`{figures/cp-diff.png}`,
	} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX lacks %s", want)
		}
	}
	md := d.Markdown("", "")
	if !strings.Contains(md, "(figures/fig1-motiv.png)") || strings.Contains(md, "(figures/fig1-motiv.pdf)") {
		t.Errorf("the Markdown version should show fig1-motiv.png, not the PDF")
	}
	if !strings.Contains(md, "(figures/fig2-poc.pdf)") {
		t.Errorf("the Markdown version should fall back to the PDF when there is no PNG")
	}
	if got := pdfWidth(filepath.Join(dir, "cp-diff.png")); got != 0 {
		t.Errorf("pdfWidth of a PNG = %v, want 0", got)
	}
}

// A figure without a gallery note gets the criteria its figures pass archived beside it (a run's own
// figures); one with a note keeps the note alone (the gallery's notes quote its archive, checked in package
// figures).
func TestFigureCaptionsCarryTheArchivedCriteria(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"fig1-motiv.png", "cp-diff.png"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	valid := figures.Criterion{Claim: "the counterfactuals are valid", Measure: "counterfactuals with p ≥ 0.5, of 3", Value: 2, Detail: "Wachter p = 0.96", Holds: false}
	for _, n := range []string{"fig1-motiv", "cp-diff"} {
		if _, err := figures.WriteCriteria(dir, n, []figures.Criterion{valid}); err != nil {
			t.Fatal(err)
		}
	}
	in := tiny()
	in.FiguresDir = dir
	in.FigureNotes = map[string]Inline{"cp-diff": {T("a gallery note")}}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown("", "")
	want := "**Measured on these images:** the counterfactuals are valid: counterfactuals with p ≥ 0.5, of 3 = 2 (Wachter p = 0.96) — does not hold."
	if strings.Count(md, want) != 1 {
		t.Errorf("fig1-motiv's caption should carry its archived criterion once:\n%s", md)
	}
	if !strings.Contains(md, "**Ours:** a gallery note") {
		t.Errorf("cp-diff's caption should keep its note")
	}
	// A criteria file cut short is said in the caption, not passed over.
	if err := os.WriteFile(filepath.Join(dir, figures.CriteriaFile("fig1-motiv")), []byte(`{"figure": "fig1-mo`), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err = Build(in); err != nil {
		t.Fatal(err)
	}
	if md := d.Markdown("", ""); strings.Contains(md, want) || !strings.Contains(md, "**Measured on these images:** not shown, because figure fig1-motiv: criteria:") {
		t.Errorf("a broken criteria file should be named in the caption")
	}
}
