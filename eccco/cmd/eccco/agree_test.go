package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
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
