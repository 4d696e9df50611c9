package report

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

// Cells written by WriteTables read back as they were, and WriteTableSet joins kept cells of other
// data sets to fresh ones while a data set in the rows replaces its kept cells.
func TestReadCellsAndKeepOtherDataSets(t *testing.T) {
	dir := t.TempDir()
	rows := []benchmark.Row{
		{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 1, Target: 1, Scores: metrics.Scores{Cost: 2, Valid: true}},
		{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 2, Factual: 2, Target: 0, Scores: metrics.Scores{Cost: 4, Valid: true}},
	}
	first, err := WriteTableSet(filepath.Join(dir, "a"), rows, TableSetOptions{Published: "none-such.csv"})
	if err == nil || first != nil {
		t.Fatalf("an explicit published file that does not exist: err = %v", err)
	}
	if err := WriteTables(filepath.Join(dir, "a"), compare.Aggregate(rows)); err != nil {
		t.Fatal(err)
	}
	cells, err := ReadCells(filepath.Join(dir, "a", "cells.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := compare.Aggregate(rows)
	if len(cells) != len(want) {
		t.Fatalf("%d cells read back, %d written", len(cells), len(want))
	}
	for i := range want {
		if cells[i] != want[i] {
			t.Errorf("cell %d read back as %+v, written %+v", i, cells[i], want[i])
		}
	}
	// Kept: a circles cell (joins), a moons Wachter cell (replaced by the rows' moons Wachter cells) and a
	// moons ECCCo cell (joins: the rows have no ECCCo).
	kept := []compare.Cell{
		{Dataset: "circles", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 7, SD: 1, Runs: 50},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 99, Runs: 50},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "cost", Mean: 5, Runs: 50},
	}
	pub := filepath.Join(dir, "published.csv")
	if err := os.WriteFile(pub, []byte("dataset,subset,model,generator,metric,mean,std,stars,bold\ncircles,all,MLP,Wachter,cost,7.1,0.2,0,0\nmoons,all,MLP,Wachter,cost,3,0.1,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := WriteTableSet(filepath.Join(dir, "b"), rows, TableSetOptions{Kept: &Kept{Cells: kept, From: "old/cells.csv"}, Published: pub})
	if err != nil {
		t.Fatal(err)
	}
	var circles, moonsCost, moonsECCCo int
	for _, c := range rep.Cells {
		switch {
		case c.Dataset == "circles":
			circles++
		case c.Dataset == "moons" && c.Generator == "ECCCo":
			if c.Mean != 5 {
				t.Errorf("kept moons ECCCo cost %v, want 5", c.Mean)
			}
			moonsECCCo++
		case c.Dataset == "moons" && c.Subset == "all" && c.Metric == "cost":
			moonsCost++
			if c.Mean != 3 {
				t.Errorf("moons cost mean %v, want the rows' 3 (not the kept 99)", c.Mean)
			}
		}
	}
	if circles != 1 || moonsCost != 1 || moonsECCCo != 1 {
		t.Errorf("%d circles cells, %d moons Wachter cost cells and %d moons ECCCo cells, want 1, 1 and 1", circles, moonsCost, moonsECCCo)
	}
	if _, err := os.Stat(filepath.Join(dir, "b", "table-circles.md")); err != nil {
		t.Errorf("no table for the kept data set: %v", err)
	}
	if rep.Comparison == nil || !strings.Contains(rep.Provenance, "the cells of circles, moons (the models and generators the rows lack) kept from old/cells.csv") {
		t.Errorf("provenance does not name the kept cells: %q", rep.Provenance)
	}
	if _, err := ReadCells(filepath.Join(dir, "published.csv")); err == nil {
		t.Error("a file that is not cells.csv read without error")
	}
}

// A test binary carries no VCS stamp, so ReadRevision falls back to the checkout's HEAD (git).
func TestReadRevisionFallsBackToTheCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	rv := ReadRevision(".")
	if rv.Rev == "" {
		t.Skip("not inside a git checkout")
	}
	if !rv.Checkout || len(rv.Rev) != 12 || strings.Trim(rv.Rev, "0123456789abcdef") != "" {
		t.Errorf("revision %+v, want the checkout's HEAD as 12 hex digits", rv)
	}
	if got := ReadRevision(t.TempDir()); got.Rev != "" {
		t.Errorf("outside a checkout: %+v, want none", got)
	}
}

// A committed table set (cells.csv, calibration.csv and comparison.md, no results) re-renders from its
// cells: the tables come out byte for byte as WriteTableSet wrote them, the comparison keeps its
// "Results from:" line verbatim and says it was re-rendered; a comparison.md that eccco did not write is
// never replaced.
func TestRerenderTableSet(t *testing.T) {
	dir := t.TempDir()
	rows := []benchmark.Row{
		{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 1, Target: 1, Scores: metrics.Scores{Cost: 2, Valid: true}},
		{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 2, Factual: 2, Target: 0, Scores: metrics.Scores{Cost: 4, Valid: true}},
	}
	pub := filepath.Join(dir, "published.csv")
	if err := os.WriteFile(pub, []byte("dataset,subset,model,generator,metric,mean,std,stars,bold\nmoons,all,MLP,Wachter,cost,3,0.1,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(dir, "set")
	if _, err := WriteTableSet(set, rows, TableSetOptions{Published: pub}); err != nil {
		t.Fatal(err)
	}
	// The provenance as an old comparison recorded it.
	old := "# Ours against the published results\n\nResults from: an old run, seed 42\n\nold text\n"
	if err := os.WriteFile(filepath.Join(set, "comparison.md"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(set, "table-moons.md"))
	cellsBefore, _ := os.ReadFile(filepath.Join(set, "cells.csv"))
	ts, err := RerenderTableSet(set, set, TableSetOptions{Published: pub})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(set, "table-moons.md"))
	cellsAfter, _ := os.ReadFile(filepath.Join(set, "cells.csv"))
	if string(before) != string(after) || string(cellsBefore) != string(cellsAfter) {
		t.Error("re-rendering changed a table")
	}
	md, _ := os.ReadFile(filepath.Join(set, "comparison.md"))
	if ts.Provenance != "an old run, seed 42" || !strings.HasPrefix(string(md), "# Ours against the published results\n\nResults from: an old run, seed 42\n\nRe-rendered from ") {
		t.Errorf("provenance %q; comparison begins:\n%s", ts.Provenance, md[:min(len(md), 300)])
	}
	if strings.Contains(string(md), "old text") || !strings.Contains(string(md), "1 of 1 (100 %) within") {
		t.Errorf("the comparison was not rebuilt:\n%s", md)
	}
	// Not eccco's comparison: refused, and left as it was.
	mine := filepath.Join(dir, "mine")
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mine, "comparison.md"), []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RerenderTableSet(set, mine, TableSetOptions{Published: pub}); !errors.Is(err, ErrNotTableSet) {
		t.Errorf("replacing a comparison.md eccco did not write: err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(mine, "comparison.md")); string(b) != "my notes\n" {
		t.Error("a user's comparison.md was overwritten")
	}
}

// The provenance names the switches a run set against its mode (its --set overrides) and nothing when the
// run kept the mode's: the replay-only results say which fitted switches were off.
func TestSettingsOverrides(t *testing.T) {
	s, err := experiment.AuthorsCode.Settings("german-credit")
	if err != nil {
		t.Fatal(err)
	}
	m := benchmark.Manifest{Dataset: "german-credit", Mode: "authors-code", Settings: &s}
	if got := settingsOverrides(m); got != "" {
		t.Errorf("the mode's own settings: overrides %q, want none", got)
	}
	if s.TargetMix.IsZero() || s.EnergyDecayRate == 0 {
		t.Fatalf("german-credit's authors'-code settings carry no target mix or decay (%s); the case tests nothing", s.Describe("target-mix", "energy-decay-rate"))
	}
	o := s
	for k, v := range map[string]string{"target-mix": "none", "energy-decay-rate": "0", "authors-models": "false"} {
		if err := o.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	m.Settings = &o
	if got, want := settingsOverrides(m), "target-mix=none energy-decay-rate=0"; got != want {
		t.Errorf("overrides %q, want %q (in the fields' order; the model source not repeated)", got, want)
	}
	m.Settings = nil
	if got := settingsOverrides(m); got != "" {
		t.Errorf("a manifest without settings: overrides %q, want none", got)
	}
}
