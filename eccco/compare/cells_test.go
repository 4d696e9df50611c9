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
