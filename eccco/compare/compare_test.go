package compare

import (
	"math"
	"testing"
)

// The two tolerance rules on hand-checkable numbers: published 0.20 ± 0.01 allows 0.17..0.23 either way;
// published 0.20 ± 0.00 allows only 0.20 strictly and 0.185..0.215 rounding-aware (3 × 0.005).
func TestWithinRules(t *testing.T) {
	cases := []struct {
		ours, paper, sd       float64
		strict, roundingAware bool
	}{
		{0.23, 0.20, 0.01, true, true},
		{0.2301, 0.20, 0.01, false, false},
		{0.17, 0.20, 0.01, true, true},
		{0.20, 0.20, 0, true, true},
		{0.215, 0.20, 0, false, true},
		{0.185, 0.20, 0, false, true},
		{0.216, 0.20, 0, false, false},
		{0.21, 0.20, 0.004, true, true},
		{0.214, 0.20, 0.004, false, true},
	}
	for _, c := range cases {
		if got := WithinStrict(c.ours, c.paper, c.sd); got != c.strict {
			t.Errorf("WithinStrict(%v, %v ± %v) = %v, want %v", c.ours, c.paper, c.sd, got, c.strict)
		}
		if got := WithinRounding(c.ours, c.paper, c.sd, 2); got != c.roundingAware {
			t.Errorf("WithinRounding(%v, %v ± %v) = %v, want %v", c.ours, c.paper, c.sd, got, c.roundingAware)
		}
	}
}

// Spearman by hand: x = (1, 2, 2, 3) ranks (1, 2.5, 2.5, 4); y = (10, 30, 20, 40) ranks (1, 3, 2, 4).
// Means 2.5; deviations (−1.5, 0, 0, 1.5) and (−1.5, 0.5, −0.5, 1.5): Σdxdy = 4.5, Σdx² = 4.5,
// Σdy² = 5, so ρ = 4.5 / √22.5 = 0.948683…
func TestSpearmanTies(t *testing.T) {
	if got, want := Spearman([]float64{1, 2, 2, 3}, []float64{10, 30, 20, 40}), 4.5/math.Sqrt(22.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("ρ = %v, want %v", got, want)
	}
	if got := Spearman([]float64{1, 2, 3}, []float64{3, 2, 1}); math.Abs(got+1) > 1e-12 {
		t.Errorf("reversed order: ρ = %v, want −1", got)
	}
	if got := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(got) {
		t.Errorf("all tied: ρ = %v, want NaN", got)
	}
	r := averageRanks([]float64{5, 1, 5, 5, 0})
	for i, want := range []float64{4, 2, 4, 4, 1} {
		if r[i] != want {
			t.Errorf("average ranks of (5, 1, 5, 5, 0) = %v, want (4, 2, 4, 4, 1)", r)
			break
		}
	}
}

// A small comparison: circles MLP Ensemble, where ECCCo − Wachter unfaithfulness is +0.038 in ours and
// −0.06 in the paper's, and REVISE − Wachter implausibility agrees in sign.
func TestCompareDisagreementAndRanks(t *testing.T) {
	cell := func(g, metric string, mean float64) Cell {
		return Cell{Dataset: "circles", Subset: "all", Model: "MLP Ensemble", Generator: g, Metric: metric, Mean: mean, SD: 0.01, Runs: 5}
	}
	pubOf := func(g, metric string, mean, sd float64) Published {
		return Published{Dataset: "circles", Subset: "all", Model: "MLP Ensemble", Generator: g, Metric: metric, Mean: mean, SD: sd}
	}
	cells := []Cell{
		cell("Wachter", "unfaithfulness", 0.100), cell("ECCCo", "unfaithfulness", 0.138), cell("REVISE", "unfaithfulness", 0.300),
		cell("Wachter", "implausibility", 0.500), cell("ECCCo", "implausibility", 0.400), cell("REVISE", "implausibility", 0.900),
	}
	pub := []Published{
		pubOf("Wachter", "unfaithfulness", 0.10, 0.00), pubOf("ECCCo", "unfaithfulness", 0.04, 0.01), pubOf("REVISE", "unfaithfulness", 0.30, 0.02),
		pubOf("Wachter", "implausibility", 0.50, 0.01), pubOf("ECCCo", "implausibility", 0.40, 0.01), pubOf("REVISE", "implausibility", 0.90, 0.10),
	}
	cmp := Compare(cells, pub)
	// Unfaithfulness ranks: ours (Wachter 1, ECCCo 2, REVISE 3), paper's (2, 1, 3): ρ = 1 − 6·2/(3·8) = 0.5.
	// Implausibility: the same order on both sides, ρ = 1.
	if rho, n := cmp.MedianRho("unfaithfulness"); n != 1 || math.Abs(rho-0.5) > 1e-12 {
		t.Errorf("median ρ unfaithfulness = %v over %d, want 0.5 over 1", rho, n)
	}
	if rho, _ := cmp.MedianRho("implausibility"); math.Abs(rho-1) > 1e-12 {
		t.Errorf("median ρ implausibility = %v, want 1", rho)
	}
	// Within: ECCCo unfaithfulness 0.138 vs 0.04 ± 0.01 is out; Wachter 0.100 vs 0.10 ± 0.00 in both ways.
	strict, rounding := 0, 0
	for _, r := range cmp.Rows {
		if r.WithinStrict {
			strict++
		}
		if r.Within {
			rounding++
		}
	}
	if strict != 5 || rounding != 5 {
		t.Errorf("within: strict %d, rounding-aware %d, want 5 and 5", strict, rounding)
	}
}
