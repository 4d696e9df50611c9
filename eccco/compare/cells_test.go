package compare

import (
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

import ()

// Aggregation by hand: two runs with run means 1 and 3 give mean 2 and sd √2; the valid subset drops
// invalid rows; stars and bold follow the definitions.
func TestAggregateOnHandValues(t *testing.T) {
	mk := func(gen string, run int, cost float64, valid bool) benchmark.Row {
		return benchmark.Row{Dataset: "d", Model: "mlp", Generator: gen, Run: run, Scores: metrics.Scores{Cost: cost, Valid: valid, Unfaithfulness: math.NaN(), Uncertainty: math.NaN()}}
	}
	rows := []benchmark.Row{
		mk("Wachter", 1, 4, true), mk("Wachter", 1, 6, true), mk("Wachter", 2, 5, true), mk("Wachter", 2, 5, false),
		mk("ECCCo", 1, 1, true), mk("ECCCo", 1, 1, false), mk("ECCCo", 2, 3, true), mk("ECCCo", 2, 3, true),
	}
	cells := Aggregate(rows)
	get := func(subset, gen, metric string) Cell {
		for _, c := range cells {
			if c.Subset == subset && c.Generator == gen && c.Metric == metric {
				return c
			}
		}
		t.Fatalf("no cell %s %s %s", subset, gen, metric)
		return Cell{}
	}
	c := get("all", "ECCCo", "cost")
	if c.Mean != 2 || math.Abs(c.SD-1.4142135623730951) > 1e-12 || c.Runs != 2 || !c.Bold {
		t.Errorf("ECCCo cost: %+v, want mean 2, sd √2, 2 runs, bold", c)
	}
	w := get("all", "Wachter", "cost") // run means 5 and 5
	if w.Mean != 5 || w.SD != 0 || w.Bold {
		t.Errorf("Wachter cost: %+v", w)
	}
	// Gain 3 against pooled sd √((2+0)/2) = 1: more than 2 sd → **.
	if c.Stars != 2 {
		t.Errorf("ECCCo cost stars %d, want 2", c.Stars)
	}
	if v := get("all", "ECCCo", "validity"); v.Mean != 0.75 {
		t.Errorf("ECCCo validity %v, want (0.5 + 1)/2", v.Mean)
	}
	if v := get("valid", "Wachter", "cost"); v.Mean != 5 {
		t.Errorf("valid Wachter cost %v, want (5 + 5)/2", v.Mean)
	}
}

// Per-run means by hand, and Aggregate as their aggregate: run 1 of ECCCo's cost has (1 + 1)/2 = 1 in
// "all" and 1 in "valid"; a metric that is NaN for every counterfactual of a run records the run with n = 0.
func TestRunMeansOnHandValues(t *testing.T) {
	mk := func(gen string, run int, cost float64, valid bool) benchmark.Row {
		return benchmark.Row{Dataset: "d", Model: "mlp", Generator: gen, Run: run, Scores: metrics.Scores{Cost: cost, Valid: valid, Unfaithfulness: math.NaN(), Uncertainty: math.NaN()}}
	}
	rows := []benchmark.Row{mk("ECCCo", 2, 3, true), mk("ECCCo", 1, 1, true), mk("ECCCo", 1, 2, false), mk("ECCCo", 2, 5, true)}
	rms := RunMeans(rows)
	find := func(subset, metric string, run int) RunMean {
		for _, r := range rms {
			if r.Subset == subset && r.Metric == metric && r.Run == run {
				return r
			}
		}
		t.Fatalf("no run mean %s %s run %d", subset, metric, run)
		return RunMean{}
	}
	for _, c := range []struct {
		subset, metric string
		run, n         int
		mean           float64
	}{
		{"all", "cost", 1, 2, 1.5}, {"all", "cost", 2, 2, 4}, {"valid", "cost", 1, 1, 1}, {"all", "validity", 1, 2, 0.5},
	} {
		if r := find(c.subset, c.metric, c.run); r.N != c.n || r.Mean != c.mean || r.Model != "MLP" {
			t.Errorf("%s %s run %d: %+v, want n %d, mean %v", c.subset, c.metric, c.run, r, c.n, c.mean)
		}
	}
	if r := find("all", "unfaithfulness", 1); r.N != 0 || !math.IsNaN(r.Mean) {
		t.Errorf("an all-NaN run: %+v, want n 0 and NaN", r)
	}
	// Runs ascend within a cell although the rows give run 2 first.
	if rms[0].Run != 1 {
		t.Errorf("first run mean is of run %d, want 1", rms[0].Run)
	}
	cells := AggregateRunMeans(rms)
	for _, c := range cells {
		if c.Metric == "unfaithfulness" && (c.Runs != 0 || !math.IsNaN(c.Mean)) {
			t.Errorf("all-NaN cell %+v, want no runs", c)
		}
		if c.Subset == "all" && c.Metric == "cost" && (c.Mean != 2.75 || c.Runs != 2) {
			t.Errorf("all cost cell %+v, want (1.5 + 4)/2 over 2 runs", c)
		}
	}
}

// Mark reads stars and bold across every cell it is given, whichever source they came from, and clears
// marks that no longer hold.
func TestMarkAcrossJoinedCells(t *testing.T) {
	cells := []Cell{
		{Dataset: "d", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "cost", Mean: 1, SD: 0.1, Runs: 5, Bold: true},
		{Dataset: "d", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 2, SD: 0.1, Runs: 5, Bold: true},
		{Dataset: "d", Subset: "all", Model: "MLP", Generator: "REVISE", Metric: "cost", Mean: 1.95, SD: 0.1, Runs: 5, Stars: 2},
	}
	Mark(cells)
	// ECCCo: gain 1 over pooled sd 0.1 → **, the best; REVISE: gain 0.05 < 0.1 → none.
	if cells[0].Stars != 2 || !cells[0].Bold || cells[1].Bold || cells[2].Stars != 0 || cells[2].Bold {
		t.Errorf("marks %+v", cells)
	}
}
