package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
