package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The comparison draws one figure per metric it has cells of (the valid subset; validity from all
// counterfactuals), embeds the PDF in LaTeX and the PNG in Markdown, and counts in the caption the cells
// within: tiny's unfaithfulness cells, copied to the valid subset, are ECCCo 1.25 vs 1.00 ± 0.10
// (inside) and Wachter 1.50 vs 1.40 ± 0.05 (inside: 0.10 ≤ 0.15); its validity cell 0.98 vs 1.00 ± 0.00
// is outside.
func TestComparisonFigures(t *testing.T) {
	in := tiny()
	for _, c := range in.Results.Cells {
		if c.Metric == "unfaithfulness" {
			c.Subset = "valid"
			in.Results.Cells = append(in.Results.Cells, c)
		}
	}
	for _, p := range in.Published {
		if p.Metric == "unfaithfulness" {
			p.Subset = "valid"
			in.Published = append(in.Published, p)
		}
	}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"figures/ours-vs-paper-valid-unfaithfulness", "figures/ours-vs-paper-all-validity"}
	if len(d.Drawn) != 2*len(want) {
		t.Errorf("drawn %d files, want %d", len(d.Drawn), 2*len(want))
	}
	tex := d.LaTeX()
	md := d.Markdown("/x", "/x")
	for _, w := range want {
		if !bytes.HasPrefix(d.Drawn[w+".pdf"], []byte("%PDF")) || !bytes.HasPrefix(d.Drawn[w+".png"], []byte("\x89PNG")) {
			t.Errorf("%s: no PDF or PNG drawn", w)
		}
		if !strings.Contains(tex, "{"+w+".pdf}") || !strings.Contains(md, "("+w+".png)") {
			t.Errorf("%s: LaTeX does not include the PDF or Markdown the PNG", w)
		}
	}
	if !strings.Contains(md, "2 of 2 (100 %) cells within") || !strings.Contains(md, "0 of 1 (0 %) cells within") {
		t.Errorf("captions lack the counts:\n%s", md)
	}
	// Written and rewritten with other numbers, without Replace: the report owns its drawn files.
	dir := t.TempDir()
	opts := WriteOptions{Dir: filepath.Join(dir, "report"), Markdown: filepath.Join(dir, "report.md")}
	if _, err := Write(d, opts); err != nil {
		t.Fatal(err)
	}
	before := d.Drawn[want[0]+".png"]
	in.Results.Cells[len(in.Results.Cells)-1].Mean += 0.1 // a valid unfaithfulness cell
	d2, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(d2, opts); err != nil {
		t.Fatalf("rewriting its drawn figures: %v", err)
	}
	got, _ := os.ReadFile(filepath.Join(opts.Dir, want[0]+".png"))
	if !bytes.Equal(got, d2.Drawn[want[0]+".png"]) || bytes.Equal(got, before) {
		t.Error("the rewritten PNG is not the new one")
	}
}
