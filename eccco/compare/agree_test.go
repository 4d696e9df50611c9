package compare

import (
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func agreeRow(gen string, factual int, unf, cost float64, valid bool, it int) benchmark.Row {
	return benchmark.Row{Dataset: "moons", Model: "mlp", Generator: gen, Run: 1, Factual: factual, Target: 1,
		Scores: metrics.Scores{Unfaithfulness: unf, Cost: cost, Valid: valid, Probability: 0.9}, Iterations: it}
}

func TestAgreeCountsByHand(t *testing.T) {
	a := []benchmark.Row{
		agreeRow("Wachter", 3, 1.0, 2.0, true, 10),
		agreeRow("Wachter", 3, 0.5, 0.25, true, 10), // factual 3 drawn twice: matched by order
		agreeRow("Wachter", 7, 0.2, 1.0, false, 100),
		agreeRow("ECCCo", 9, 0.1, 0.1, true, 5), // only in a
	}
	b := []benchmark.Row{
		agreeRow("Wachter", 3, 1.0, 2.0, true, 10),
		agreeRow("Wachter", 3, 0.5004, 0.2, true, 10), // unf within 1e-3 (|Δ| = 4e-4 ≤ 1e-3·1); cost off by 0.05
		agreeRow("Wachter", 7, 0.2, 1.0, true, 100),   // validity flips
		agreeRow("REVISE", 1, 0.3, 0.3, true, 5),      // only in b
	}
	ag := Agree([2]string{"go", "xla"}, a, b, 0)
	if ag.Matched != 3 || ag.OnlyA != 1 || ag.OnlyB != 1 || ag.Tolerance != DefaultAgreementTolerance {
		t.Fatalf("matched %d, only a %d, only b %d, tol %g; want 3, 1, 1, 1e-3", ag.Matched, ag.OnlyA, ag.OnlyB, ag.Tolerance)
	}
	byName := map[string]MetricAgreement{}
	for _, m := range ag.Metrics {
		byName[m.Metric] = m
	}
	check := func(name string, exact, within int, maxAbs float64) {
		t.Helper()
		m := byName[name]
		if m.Compared != 3 || m.Exact != exact || m.Within != within || math.Abs(m.MaxAbs-maxAbs) > 1e-12 {
			t.Errorf("%s: compared %d, exact %d, within %d, max %g; want 3, %d, %d, %g", name, m.Compared, m.Exact, m.Within, m.MaxAbs, exact, within, maxAbs)
		}
	}
	check("unfaithfulness", 2, 3, 4e-4)
	check("cost", 2, 2, 0.05)
	check("validity", 2, 2, 1)
	check("iterations", 3, 3, 0)
	// Cells (moons mlp Wachter × 6 metrics): unfaithfulness means 1.7/3 vs 1.7004/3 agree; cost
	// 3.25/3 vs 3.2/3 do not; validity 2/3 vs 1 do not; the other three are all zero.
	if ag.CellsCompared != 6 || ag.Cells != 4 {
		t.Errorf("cells: %d of %d agree, want 4 of 6", ag.Cells, ag.CellsCompared)
	}
	if ag.WorstCell != "moons mlp Wachter validity" {
		t.Errorf("worst cell %q, want validity (1/3 apart)", ag.WorstCell)
	}
}

func TestAgreeNaN(t *testing.T) {
	if !agrees(math.NaN(), math.NaN(), 1e-3) || agrees(math.NaN(), 0, 1e-3) || agrees(0, math.NaN(), 1e-3) {
		t.Error("NaN must agree with NaN only")
	}
	if absDiff(math.NaN(), 1) != math.Inf(1) || absDiff(math.NaN(), math.NaN()) != 0 {
		t.Error("absDiff of NaNs")
	}
	if !agrees(1000, 1000.9, 1e-3) || agrees(1000, 1001.1, 1e-3) || !agrees(0, 1e-3, 1e-3) || agrees(0, 1.1e-3, 1e-3) {
		t.Error("tolerance is relative above 1 and absolute below")
	}
}
