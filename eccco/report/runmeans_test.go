package report

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func archiveRows() []benchmark.Row {
	var rows []benchmark.Row
	for run := 1; run <= 3; run++ {
		for f := range 4 {
			v := float64(run) + float64(f)/10
			rows = append(rows,
				benchmark.Row{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: run, Factual: f, Scores: metrics.Scores{Cost: 2 * v, Valid: f != 3, Unfaithfulness: math.NaN()}},
				benchmark.Row{Dataset: "moons", Model: "mlp", Generator: "ECCCo", Run: run, Factual: f, Scores: metrics.Scores{Cost: v / 3, Valid: true, Unfaithfulness: v}})
		}
	}
	return rows
}

// A table set's archive reads back as written, gives its cells bit for bit, has the same bytes when
// written twice, and holds one row per cell and run (2 subsets × 2 generators × 6 metrics × 3 runs).
func TestRunMeansArchiveRebuildsTheCells(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteTableSet(dir, archiveRows(), TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	first, err := os.ReadFile(filepath.Join(dir, RunMeansFile))
	if err != nil {
		t.Fatal(err)
	}
	rms, err := ReadRunMeans(filepath.Join(dir, RunMeansFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rms) != 2*2*6*3 {
		t.Errorf("%d run means, want 72", len(rms))
	}
	cells, err := ReadCells(filepath.Join(dir, "cells.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkRunMeans(cells, rms, "cells.csv", RunMeansFile); err != nil {
		t.Error(err)
	}
	// Run 2 of ECCCo's cost: (2 + 2.1 + 2.2 + 2.3)/4/3, summed as the rows give them.
	for _, r := range rms {
		if r.Generator == "ECCCo" && r.Subset == "all" && r.Metric == "cost" && r.Run == 2 {
			if want := (2.0/3 + 2.1/3 + 2.2/3 + 2.3/3) / 4; math.Abs(r.Mean-want) > 1e-15 || r.N != 4 {
				t.Errorf("run 2 ECCCo cost %+v, want %v over 4", r, want)
			}
		}
	}
	if _, err := WriteTableSet(dir, archiveRows(), TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, RunMeansFile))
	if !bytes.Equal(first, again) {
		t.Error("the same rows wrote two different archives")
	}
	// Rebuilt elsewhere from the table set alone (eccco tables --in): the same archive and cells.
	out := t.TempDir()
	if _, err := RerenderTableSet(dir, out, TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{RunMeansFile, "cells.csv"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(out, name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs after rebuilding from the table set", name)
		}
	}
	res, err := LoadResults(out)
	if err != nil || len(res.RunMeans) != len(rms) {
		t.Errorf("LoadResults of the rebuilt set: %v, %d run means", err, len(res.RunMeans))
	}
}

// An archive edited by one run's mean, or a cells.csv edited by one cell, is refused where it is read
// (ErrRunMeansDisagree), naming the cell; so is an archive whose n contradicts its mean.
func TestRunMeansArchiveEditedIsRefused(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteTableSet(dir, archiveRows(), TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, RunMeansFile)
	raw := gunzip(t, path)
	edited := strings.Replace(raw, "moons,all,MLP,ECCCo,cost,2,4,", "moons,all,MLP,ECCCo,cost,2,4,9", 1)
	if edited == raw {
		t.Fatal("the test's edit found nothing to change")
	}
	writeGzip(t, path, edited)
	if _, err := LoadResults(dir); !errors.Is(err, ErrRunMeansDisagree) || !strings.Contains(err.Error(), "cost") {
		t.Errorf("an edited run mean: err = %v, want ErrRunMeansDisagree naming the cell", err)
	}
	if _, err := RerenderTableSet(dir, t.TempDir(), TableSetOptions{}); !errors.Is(err, ErrRunMeansDisagree) {
		t.Errorf("tables --in with an edited run mean: err = %v", err)
	}
	writeGzip(t, path, strings.Replace(raw, "moons,all,MLP,ECCCo,cost,2,4,", "moons,all,MLP,ECCCo,cost,2,0,", 1))
	if _, err := ReadRunMeans(path); err == nil || !strings.Contains(err.Error(), "line") {
		t.Errorf("n = 0 with a mean: err = %v, want a bad line", err)
	}
}

// Cells kept from a table set without an archive leave the joined set without one, and the archive an
// earlier table set left there is removed (it would not give the new cells); kept cells with their
// archive join it.
func TestRunMeansArchiveWithKeptCells(t *testing.T) {
	rows := archiveRows()
	var wachter, eccco []benchmark.Row
	for _, r := range rows {
		if r.Generator == "Wachter" {
			wachter = append(wachter, r)
		} else {
			eccco = append(eccco, r)
		}
	}
	old := t.TempDir()
	if _, err := WriteTableSet(old, wachter, TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	k, err := ReadKept(filepath.Join(old, "cells.csv"))
	if err != nil || k.RunMeans == nil {
		t.Fatalf("ReadKept: %v, run means %v", err, k.RunMeans != nil)
	}
	joined := t.TempDir()
	ts, err := WriteTableSet(joined, eccco, TableSetOptions{Kept: k})
	if err != nil {
		t.Fatal(err)
	}
	whole := t.TempDir()
	if _, err := WriteTableSet(whole, append(append([]benchmark.Row(nil), eccco...), wachter...), TableSetOptions{}); err != nil {
		t.Fatal(err)
	}
	// Joined: ECCCo's fresh cells marked against the kept Wachter (ECCCo's cost is a third of Wachter's:
	// stars, bold) exactly as when both come from one run.
	wholeCells, _ := ReadCells(filepath.Join(whole, "cells.csv"))
	if len(ts.Cells) != len(wholeCells) {
		t.Fatalf("%d joined cells, %d in one run", len(ts.Cells), len(wholeCells))
	}
	for i := range wholeCells {
		if ts.Cells[i] != wholeCells[i] && !(math.IsNaN(ts.Cells[i].Mean) && math.IsNaN(wholeCells[i].Mean)) {
			t.Errorf("cell %d joined %+v, one run %+v", i, ts.Cells[i], wholeCells[i])
		}
	}
	if _, err := os.Stat(filepath.Join(joined, RunMeansFile)); err != nil {
		t.Errorf("joined set with an archived kept set has no archive: %v", err)
	}
	k.RunMeans = nil
	if _, err := WriteTableSet(joined, eccco, TableSetOptions{Kept: k}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(joined, RunMeansFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("kept cells without run means left an archive behind: %v", err)
	}
	// A data set kept without run means beside a fresh one: the archive holds the fresh one alone, and
	// LoadResults says which data sets it holds.
	k.Cells = append(k.Cells, compare.Cell{Dataset: "circles", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 7, SD: 1, Runs: 50})
	mixed := t.TempDir()
	if _, err := WriteTableSet(mixed, rows, TableSetOptions{Kept: k}); err != nil {
		t.Fatal(err)
	}
	res, err := LoadResults(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Archived, []string{"moons"}) || len(res.RunMeans) != 72 {
		t.Errorf("archived %v with %d run means, want moons alone with 72", res.Archived, len(res.RunMeans))
	}
}

func gunzip(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeGzip(t *testing.T, path, s string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
