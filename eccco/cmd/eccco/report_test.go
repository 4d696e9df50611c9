package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/report"
)

// eccco report builds the committed report's sources from the committed results (no TeX needed with
// --pdf ""), refuses to overwrite a file it did not write, and reports a missing results directory.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "eccco-go.md")
	if err := os.WriteFile(md, []byte("hand-written\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"report", "--figures", "", "--out", filepath.Join(dir, "report"), "--markdown", md, "--pdf", ""}
	if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), "did not generate") {
		t.Fatalf("over a hand-written file: err %v", err)
	}
	out, _, err := runCLI(t, append(args, "--replace")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "eccco-go.tex") {
		t.Errorf("output %q", out)
	}
	raw, err := os.ReadFile(md)
	if err != nil || !strings.HasPrefix(string(raw), "<!-- "+report.Marker) {
		t.Errorf("Markdown: %v, starts %.60q", err, raw)
	}
	if _, _, err := runCLI(t, "report", "--results", filepath.Join(dir, "none"), "--out", dir, "--pdf", ""); err == nil || !strings.Contains(err.Error(), "no benchmark results") {
		t.Errorf("missing results: err %v", err)
	}
	if _, _, err := runCLI(t, "report", "extra"); err == nil || !strings.Contains(err.Error(), "unexpected arguments") {
		t.Errorf("extra argument: err %v", err)
	}
}

// A report built where data sets are not available names them: in the provenance, beside the figures it
// cannot show (which data set they need) and beside a figure an earlier run drew (shown, but said so).
// With every data set present (ECCCO_DATA_DIR holding MNIST) it names none.
func TestReportNamesUnavailableDataSets(t *testing.T) {
	dir := t.TempDir()
	figs, empty := filepath.Join(dir, "figures"), filepath.Join(dir, "no-data")
	for _, d := range []string{figs, empty} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	png, err := os.ReadFile(filepath.Join("..", "..", "..", "figures", "gallery", "fig1-motiv.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(figs, "fig1-motiv.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name, dataDir string) string {
		md := filepath.Join(dir, name+".md")
		t.Setenv("ECCCO_DATA_DIR", dataDir)
		if _, _, err := runCLI(t, "report", "--figures", figs, "--out", filepath.Join(dir, name), "--markdown", md, "--pdf", ""); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(raw)), " ")
	}
	md := build("without", empty)
	for _, want := range []string{
		"Data sets not available",
		"MNIST and Fashion MNIST: not fetched",
		"not fetched where this report was built",
		"They need MNIST", // the figures not drawn
		"Shown as an earlier run drew them, though their data set is not available here now: fig1-motiv",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report without data sets lacks %q", want)
		}
	}
	if ok, _ := data.Present("mnist", ""); !ok {
		t.Skip("MNIST is not available here: the report with every data set present is not checked")
	}
	if testing.Short() {
		t.Skip("the report with every data set present is not built (a second whole report, seconds)")
	}
	full := true
	for _, n := range data.Names() {
		if ok, _ := data.Present(n, ""); !ok {
			full = false
		}
	}
	md = build("with", "")
	if full && strings.Contains(md, "Data sets not available") {
		t.Errorf("with every data set present the report still names some as not available")
	}
	if strings.Contains(md, "not available here now: fig1-motiv") || strings.Contains(md, "They need MNIST") {
		t.Errorf("with MNIST present the report says it is not")
	}
}
