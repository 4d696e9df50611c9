package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func TestAgreeComparesTwoDirectories(t *testing.T) {
	dir := t.TempDir()
	row := func(cost float64) benchmark.Row {
		return benchmark.Row{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 4, Target: 1,
			Scores: metrics.Scores{Cost: cost, Valid: true}, Iterations: 7}
	}
	for name, cost := range map[string]float64{"a": 1, "b": 1.0005} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := benchmark.WriteCSVAtomic(filepath.Join(dir, name, "results.csv"), []benchmark.Row{row(cost)}); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, "agree", "--in", filepath.Join(dir, "a")+","+filepath.Join(dir, "b", "results.csv"), "--names", "go,xla")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| cost | 1 | 0 (0.00 %) | 1 (100.00 %) | 0.0005 |") {
		t.Errorf("agree output:\n%s", out)
	}
	if _, _, err := runCLI(t, "agree", "--in", filepath.Join(dir, "a"), "--tol", "0.1"); err == nil || !strings.Contains(err.Error(), "two benchmark directories") {
		t.Errorf("one directory: err = %v", err)
	}
	if _, _, err := runCLI(t, "agree", "--in", filepath.Join(dir, "a")+","+filepath.Join(dir, "b"), "--tol", "0"); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("zero tolerance: err = %v", err)
	}
}

func TestTablesKeepCells(t *testing.T) {
	dir := t.TempDir()
	in, kept := filepath.Join(dir, "in"), filepath.Join(dir, "kept")
	for _, d := range []string{in, kept} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rows := []benchmark.Row{{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 1, Target: 1, Scores: metrics.Scores{Cost: 3, Valid: true}}}
	if err := benchmark.WriteCSVAtomic(filepath.Join(in, "results.csv"), rows); err != nil {
		t.Fatal(err)
	}
	cells := "dataset,subset,model,generator,metric,mean,std,runs,stars,bold\ncircles,all,MLP,Wachter,cost,7,1,50,0,0\n"
	files := map[string]string{
		filepath.Join(kept, "cells.csv"): cells,
		// Cells that were kept once already: the whole line is quoted, each layer with its own source (the
		// kept file may hold cells of both).
		filepath.Join(kept, "comparison.md"): "# Ours\n\nResults from: a run of moons; the cells of circles kept from old/cells.csv, whose comparison said: an earlier run of circles, protocol 8\n",
		filepath.Join(dir, "published.csv"):  "dataset,subset,model,generator,metric,mean,std,stars,bold\ncircles,all,MLP,Wachter,cost,7.1,0.2,0,0\n",
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, "tables", "--in", in, "--keep-cells", filepath.Join(kept, "cells.csv"), "--published", filepath.Join(dir, "published.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1 of 1 cells") {
		t.Errorf("the kept circles cell (7 against 7.1 ± 0.2) is not compared: %s", out)
	}
	cmp, err := os.ReadFile(filepath.Join(in, "tables", "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmp), "the cells of circles kept from "+filepath.Join(kept, "cells.csv")+", whose comparison said: a run of moons; the cells of circles kept from old/cells.csv, whose comparison said: an earlier run of circles, protocol 8") {
		t.Errorf("comparison.md does not carry the kept cells' provenance, every layer:\n%s", cmp)
	}
	if _, err := os.Stat(filepath.Join(in, "tables", "table-circles.md")); err != nil {
		t.Errorf("no table of the kept data set: %v", err)
	}
}

// --image-backend moves the image data sets, and only them, to another backend; one not compiled in is a
// clear error, before any work.
func TestImageBackendChoosesPerDataSet(t *testing.T) {
	base, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	opts := experiment.Options{Backend: base}
	f := expFlags{imageBackend: "go"} // the parallel pure-Go executor: another configuration than the default
	tab, err := f.forDataset(opts, "moons")
	if err != nil || tab.Backend != base {
		t.Errorf("moons: backend %v, err %v; want the shared one", tab.Backend, err)
	}
	img, err := f.forDataset(opts, "mnist")
	if err != nil {
		t.Fatal(err)
	}
	if img.Backend == base || img.Backend == nil {
		t.Errorf("mnist: got the shared backend, want the --image-backend one")
	}
	again, _ := f.forDataset(opts, "fashion-mnist")
	if again.Backend != img.Backend {
		t.Error("the image backend is created again for the second image set")
	}
	var none expFlags
	if o, err := none.forDataset(opts, "mnist"); err != nil || o.Backend != base {
		t.Errorf("no --image-backend: %v, %v", o.Backend, err)
	}
	_, _, err = runCLI(t, "bench", "--data", "mnist", "--image-backend", "nosuch:cpu", "--runs", "1", "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "not compiled into this binary") {
		t.Errorf("unknown image backend: err = %v", err)
	}

	// --tabular-backend moves the others, and only them; with both, each set gets its own.
	both := expFlags{imageBackend: "go", tabularBackend: "go:ops_parallel"}
	tab, err = both.forDataset(opts, "german-credit")
	if err != nil || tab.Backend == base || tab.Backend == nil {
		t.Errorf("german-credit with --tabular-backend: backend %v (the shared one: %v), err %v", tab.Backend, tab.Backend == base, err)
	}
	img2, err := both.forDataset(opts, "mnist")
	if err != nil || img2.Backend != img.Backend || img2.Backend == tab.Backend {
		t.Errorf("mnist with both flags: backend %v, err %v; want the --image-backend one", img2.Backend, err)
	}
	onlyTab := expFlags{tabularBackend: "go:ops_parallel"}
	if o, err := onlyTab.forDataset(opts, "mnist"); err != nil || o.Backend != base {
		t.Errorf("mnist with --tabular-backend only: %v, %v; want the shared backend", o.Backend, err)
	}
	_, _, err = runCLI(t, "bench", "--data", "moons", "--tabular-backend", "nosuch:cpu", "--runs", "1", "--out", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "--tabular-backend") {
		t.Errorf("unknown tabular backend: err = %v", err)
	}
}

// tables --models-dir needs the results' mode: from --mode, or from the manifests under --in; with neither
// it says so before reading any model. A models directory without the models only leaves the bounds out.
func TestTablesModelsDirNeedsMode(t *testing.T) {
	dir := t.TempDir()
	// The paper mode: in the authors'-code mode every synthetic set's models are the authors', built in.
	rows := []benchmark.Row{{Dataset: "linearly-separable", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 1, Target: 1, Scores: metrics.Scores{Cost: 3, Valid: true}}}
	if err := benchmark.WriteCSVAtomic(filepath.Join(dir, "results.csv"), rows); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCLI(t, "tables", "--in", dir, "--models-dir", filepath.Join(dir, "models"))
	if !errors.Is(err, experiment.ErrInvalid) || !strings.Contains(err.Error(), "--mode") {
		t.Fatalf("no mode: err = %v, want ErrInvalid asking for --mode", err)
	}
	_, stderr, err := runCLI(t, "tables", "--in", dir, "--models-dir", filepath.Join(dir, "models"), "--mode", "paper")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "linearly-separable: no saved mlp under") {
		t.Errorf("a missing model is not named: %q", stderr)
	}
}

// Without --models-dir, tables keeps the calibration bounds that bench wrote beside the same results.
func TestTablesKeepsBenchBounds(t *testing.T) {
	dir := t.TempDir()
	writeOneRow(t, dir, metrics.Scores{Uncertainty: 0.9, Valid: true})
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		t.Fatal(err)
	}
	bounds := benchmark.UncertaintyBounds{{Dataset: "moons", Model: "MLP"}: {QHatMin: 0.5, QHatMax: 0.5, Min: 0.2, Max: 0.3, Runs: 1}}
	if err := benchmark.WriteBounds(filepath.Join(dir, "tables", benchmark.BoundsFile), bounds); err != nil {
		t.Fatal(err)
	}
	pub := filepath.Join(dir, "published.csv")
	if err := os.WriteFile(pub, []byte("dataset,subset,model,generator,metric,mean,std,stars,bold\nmoons,valid,MLP,Wachter,uncertainty,0.9,0.01,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "tables", "--in", dir, "--published", pub); err != nil {
		t.Fatal(err)
	}
	cmp, err := os.ReadFile(filepath.Join(dir, "tables", "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmp), "| moons | MLP | 0.5000 | 0.20–0.30 |") {
		t.Errorf("the bench's bounds were not kept:\n%s", cmp)
	}
}

// writeOneRow writes a results.csv of one moons MLP Wachter counterfactual with these scores into dir.
func writeOneRow(t *testing.T, dir string, s metrics.Scores) {
	t.Helper()
	rows := []benchmark.Row{{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 1, Target: 1, Scores: s}}
	if err := benchmark.WriteCSVAtomic(filepath.Join(dir, "results.csv"), rows); err != nil {
		t.Fatal(err)
	}
}

// --set authors-models-dir is refused where it would be ignored: in the paper mode and with authors-models=false.
func TestAuthorsModelsFlagNeedsAuthorsCode(t *testing.T) {
	for _, args := range [][]string{
		{"perf", "--data", "moons", "--set", "authors-models-dir=" + t.TempDir(), "--out", "none"},
		{"perf", "--data", "moons", "--mode", "authors-code", "--set", "authors-models=false", "--set", "authors-models-dir=" + t.TempDir(), "--out", "none"},
	} {
		if _, _, err := runCLI(t, args...); !errors.Is(err, experiment.ErrInvalid) || !strings.Contains(err.Error(), "authors-models-dir") {
			t.Errorf("%v: err = %v, want ErrInvalid naming --authors-models", args, err)
		}
	}
	// In the authors'-code mode a folder without the authors' file is an error, not a silent fallback.
	_, _, err := runCLI(t, "perf", "--data", "moons", "--mode", "authors-code", "--set", "authors-models-dir="+t.TempDir(), "--out", "none")
	if err == nil || !strings.Contains(err.Error(), "moons_models.jls") {
		t.Errorf("an empty --authors-models folder: err = %v, want it to name the missing file", err)
	}
}

// tables --in on a committed table set (cells.csv, no results.csv) re-renders it in place: the comparison
// keeps its "Results from:" line; --keep-cells is refused there.
func TestTablesRerendersATableSet(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "set")
	if err := os.MkdirAll(set, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"cells.csv":     "dataset,subset,model,generator,metric,mean,std,runs,stars,bold\ncircles,all,MLP,Wachter,cost,7,1,50,0,1\n",
		"comparison.md": "# Ours against the published results\n\nResults from: an earlier run of circles, protocol 8\n\nold\n",
		"published.csv": "dataset,subset,model,generator,metric,mean,std,stars,bold\ncircles,all,MLP,Wachter,cost,7.1,0.2,0,0\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(set, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pub := filepath.Join(set, "published.csv")
	if _, _, err := runCLI(t, "tables", "--in", set, "--keep-cells", filepath.Join(set, "cells.csv"), "--published", pub); err == nil {
		t.Error("--keep-cells on a table set should be refused")
	}
	out, _, err := runCLI(t, "tables", "--in", set, "--published", pub)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1 of 1 cells (100 %) within") {
		t.Errorf("the re-rendered comparison should compare the one cell: %s", out)
	}
	cmp, err := os.ReadFile(filepath.Join(set, "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cmp), "\nResults from: an earlier run of circles, protocol 8\n") || strings.Contains(string(cmp), "\nold\n") {
		t.Errorf("comparison.md:\n%s", cmp)
	}
	if _, err := os.Stat(filepath.Join(set, "table-circles.md")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(set, "tables")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a table set is re-rendered in place, not into tables/: %v", err)
	}
}

// agree compared two runs of different protocols without a word (issue 39). Now two benchmark folders
// whose manifests differ (here: 2 and 3 factuals per run) are refused, naming the difference.
func TestAgreeRefusesDifferentProtocols(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two small benchmarks")
	}
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	models := filepath.Join(dir, "models")
	for name, factuals := range map[string]string{"a": "2", "b": "3"} {
		if _, _, err := runCLI(t, "bench", "--data", "moons", "--runs", "1", "--factuals", factuals, "--generators", "Wachter",
			"--mode", "authors-code", "--models-dir", models, "--out", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := runCLI(t, "agree", "--in", filepath.Join(dir, "a")+","+filepath.Join(dir, "b"))
	if !errors.Is(err, experiment.ErrInvalid) || !strings.Contains(err.Error(), "different protocols") || !strings.Contains(err.Error(), "factuals 2 ≠ 3") {
		t.Errorf("agree across protocols: err = %v, want ErrInvalid naming factuals 2 ≠ 3", err)
	}
	if _, _, err := runCLI(t, "agree", "--in", filepath.Join(dir, "a")+","+filepath.Join(dir, "a", "results.csv")); err != nil {
		t.Errorf("agree of one run with its own results.csv: %v", err)
	}
}
