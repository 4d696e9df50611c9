package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
)

// Each case was reproduced on main at e5212cf: modes and agree --out overwrote a user's notes.md (they now
// write to standard output only);
// figures, tables, perf and bench --out overwrote same-named files in a user's folder. Now every command
// refuses before it computes anything, the user's file intact; --replace lets it write.
func TestNoCommandOverwritesAUsersFile(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	folder := filepath.Join(dir, "mine")
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{notes, filepath.Join(folder, "perf.md"), filepath.Join(folder, "comparison.md"), filepath.Join(folder, "poc-gen.png"), filepath.Join(folder, "results.csv")} {
		if err := os.WriteFile(f, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(dir, "nowhere")
	for _, args := range [][]string{
		{"tables", "--in", in, "--out", folder},
		{"perf", "--data", "moons", "--out", folder},
		{"figures", "--only", "poc-gen", "--out", folder},
		{"bench", "--data", "moons", "--out", folder},
	} {
		if _, _, err := runCLI(t, args...); !errors.Is(err, outdir.ErrNotOurs) {
			t.Errorf("eccco %s: err = %v, want ErrNotOurs", strings.Join(args, " "), err)
		}
	}
	entries, _ := os.ReadDir(folder)
	for _, e := range entries {
		if raw, _ := os.ReadFile(filepath.Join(folder, e.Name())); string(raw) != "mine" {
			t.Errorf("%s changed or added: %q", e.Name(), raw)
		}
	}
	if len(entries) != 4 {
		t.Errorf("the folder holds %d entries, want the user's 4", len(entries))
	}
}

// figures --dpi 100000 panicked allocating 507 GB; modes --in A,A compared a directory with itself;
// an empty results.csv panicked in tables. Now each is a clear error.
func TestTypedSizesAndInputsRefused(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	if _, _, err := runCLI(t, "figures", "--dpi", "100000", "--only", "poc-gen", "--out", filepath.Join(dir, "f")); err == nil || !strings.Contains(err.Error(), "--dpi 100000") {
		t.Errorf("figures --dpi 100000: err = %v", err)
	}
	if _, _, err := runCLI(t, "modes", "--in", dir+","+dir+"/"); !errors.Is(err, experiment.ErrInvalid) {
		t.Errorf("modes --in A,A: err = %v, want ErrInvalid", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"tables", "--in", dir, "--out", filepath.Join(dir, "t")}, {"agree", "--in", dir + "," + dir + "/results.csv"}} {
		if _, _, err := runCLI(t, args...); !errors.Is(err, benchmark.ErrEmpty) {
			t.Errorf("eccco %s on an empty results.csv: err = %v, want ErrEmpty", strings.Join(args, " "), err)
		}
	}
	if _, _, err := runCLI(t, "sample", "--data", "moons", "--class", "0", "--set", "chains=1000000000", "--out", filepath.Join(dir, "s.csv")); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("sample --set chains=1e9: err = %v", err)
	}
}

// `report --out DIR` also rewrote the repository's paper/eccco-go.md (its --markdown default). Now the
// Markdown goes beside the sources in DIR unless --markdown names it.
func TestReportOutKeepsTheRepositorysMarkdown(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the whole report from the committed results (seconds; TestReportCommand builds it too)")
	}
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", "paper", "eccco-go.md"))
	if err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(repo)
	if err != nil {
		t.Skipf("no committed report here: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, _, err := runCLI(t, "report", "--figures", "", "--out", dir, "--pdf", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "eccco-go.md")); err != nil {
		t.Errorf("no Markdown beside the sources: %v", err)
	}
	if after, _ := os.ReadFile(repo); string(after) != string(before) {
		t.Errorf("report --out %s changed %s", dir, repo)
	}
}

// A figures pass killed after some figures resumes where it stopped: a figure whose record holds the
// pass's key and whose files are unchanged is kept, the others are drawn again, with the bytes of an
// uninterrupted pass; a pass under another key draws everything. (reproduce.sh's figures stage redrew
// every figure after a kill.)
func TestFiguresResumeFromRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two 1-epoch models")
	}
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	models, records := filepath.Join(dir, "models"), filepath.Join(dir, "records")
	t.Setenv("ECCCO_DATA_DIR", filepath.Join(dir, "data"))
	args := func(out string, extra ...string) []string {
		return append([]string{"figures", "--only", "poc-gen,cp-diff", "--mode", "paper", "--set", "epochs=1",
			"--models-dir", models, "--out", out}, extra...)
	}
	ref, out := filepath.Join(dir, "uninterrupted"), filepath.Join(dir, "resumed")
	if _, _, err := runCLI(t, args(ref)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, args(out, "--records", records)...); err != nil {
		t.Fatal(err)
	}
	// Killed while drawing cp-diff: its PNG was written, its record not.
	if err := os.Remove(filepath.Join(records, "cp-diff.done")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "cp-diff.png"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCLI(t, args(out, "--records", records)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "poc-gen                      up to date") || !strings.Contains(stdout, "wrote 1 figures") {
		t.Errorf("the resumed pass did not keep poc-gen and draw cp-diff alone:\n%s", stdout)
	}
	for _, name := range []string{"poc-gen", "cp-diff"} {
		for _, ext := range []string{"png", "svg", "pdf"} {
			want, err1 := os.ReadFile(filepath.Join(ref, name+"."+ext))
			got, err2 := os.ReadFile(filepath.Join(out, name+"."+ext))
			if err1 != nil || err2 != nil || string(got) != string(want) {
				t.Errorf("%s.%s differs from the uninterrupted pass's (%v, %v)", name, ext, err1, err2)
			}
		}
	}
	// Other flags (--dpi 300 is the default's value, spelt out) are other inputs: nothing is kept.
	if stdout, _, err = runCLI(t, args(out, "--records", records, "--dpi", "300")...); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "wrote 2 figures") {
		t.Errorf("a pass with other flags kept figures:\n%s", stdout)
	}
}
