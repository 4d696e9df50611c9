package compare_test

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

import ()

// Aggregate follows the paper's tables: the mean of each metric within each run, then the mean ± sd of the
// run means, for all counterfactuals and for the valid ones. Stars mark a generator more than 1 (*) or 2
// (**) pooled sd better than Wachter, and bold the best generator of a model per metric. Here two runs
// of two counterfactuals each, with made-up scores.
func ExampleAggregate() {
	row := func(gen string, run, factual int, unfaithfulness float64, valid bool) benchmark.Row {
		return benchmark.Row{Dataset: "moons", Model: "mlp", Generator: gen, Run: run, Factual: factual, Target: 1,
			Scores: metrics.Scores{Unfaithfulness: unfaithfulness, Implausibility: 1, Uncertainty: 0, Cost: 1, Redundancy: 0.5, Valid: valid}}
	}
	rows := []benchmark.Row{
		row("Wachter", 1, 3, 1.0, true), row("Wachter", 1, 8, 1.2, true),
		row("Wachter", 2, 5, 1.3, true), row("Wachter", 2, 9, 1.1, true),
		row("ECCCo", 1, 3, 0.4, true), row("ECCCo", 1, 8, 0.6, true),
		row("ECCCo", 2, 5, 0.5, true), row("ECCCo", 2, 9, 0.7, false),
	}
	for _, c := range compare.Aggregate(rows) {
		if c.Metric != "unfaithfulness" && c.Metric != "validity" {
			continue
		}
		fmt.Printf("%-5s %-7s %-14s %.2f ± %.2f (%d runs) stars %d bold %v\n", c.Subset, c.Generator, c.Metric, c.Mean, c.SD, c.Runs, c.Stars, c.Bold)
	}
	// Output:
	// all   Wachter unfaithfulness 1.15 ± 0.07 (2 runs) stars 0 bold false
	// all   Wachter validity       1.00 ± 0.00 (2 runs) stars 0 bold true
	// valid Wachter unfaithfulness 1.15 ± 0.07 (2 runs) stars 0 bold false
	// valid Wachter validity       1.00 ± 0.00 (2 runs) stars 0 bold true
	// all   ECCCo   unfaithfulness 0.55 ± 0.07 (2 runs) stars 2 bold true
	// all   ECCCo   validity       0.75 ± 0.35 (2 runs) stars 0 bold false
	// valid ECCCo   unfaithfulness 0.50 ± 0.00 (2 runs) stars 2 bold true
	// valid ECCCo   validity       1.00 ± 0.00 (2 runs) stars 0 bold false
}

// Agree sets two benchmarks side by side counterfactual by counterfactual, e.g. the same protocol and
// models run on the pure-Go backend and on XLA: values agree when |a − b| ≤ 10⁻³ · max(1, |a|, |b|).
func ExampleAgree() {
	row := func(cost float64, valid bool) benchmark.Row {
		return benchmark.Row{Dataset: "moons", Model: "mlp", Generator: "Wachter", Run: 1, Factual: 7, Target: 1,
			Scores: metrics.Scores{Cost: cost, Valid: valid}, Iterations: 12}
	}
	goRows := []benchmark.Row{row(1.2500, true)}
	xlaRows := []benchmark.Row{row(1.2504, true)}
	ag := compare.Agree([2]string{"go", "xla"}, goRows, xlaRows, 0)
	for _, m := range ag.Metrics {
		if m.Metric == "cost" || m.Metric == "iterations" {
			fmt.Printf("%s: %d identical, %d within tolerance, largest difference %.4f\n", m.Metric, m.Exact, m.Within, m.MaxAbs)
		}
	}
	// Output:
	// cost: 0 identical, 1 within tolerance, largest difference 0.0004
	// iterations: 1 identical, 1 within tolerance, largest difference 0.0000
}
