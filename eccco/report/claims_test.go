package report

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/compare"
)

func TestVerdictThresholds(t *testing.T) {
	for _, c := range []struct {
		holds, known int
		want         string
	}{{4, 5, VerdictHolds}, {3, 5, VerdictPartly}, {1, 2, VerdictPartly}, {2, 5, VerdictDoesNot}, {0, 0, VerdictNone}} {
		if got := Verdict(c.holds, c.known); got != c.want {
			t.Errorf("Verdict(%d, %d) = %q, want %q", c.holds, c.known, got, c.want)
		}
	}
	if got := CombinedVerdict(VerdictHolds, VerdictNone, VerdictHolds); got != VerdictHolds {
		t.Errorf("holds and holds: %q", got)
	}
	if got := CombinedVerdict(VerdictHolds, VerdictDoesNot); got != VerdictPartly {
		t.Errorf("holds and does not: %q", got)
	}
}

// TestFaithfulnessClaimCounts checks the central claim on hand-made cells: ECCCo below Wachter for two
// models, above for one, and a model without Wachter that cannot be checked.
func TestFaithfulnessClaimCounts(t *testing.T) {
	cell := func(model, gen string, mean float64) compare.Cell {
		return compare.Cell{Dataset: "moons", Subset: "all", Model: model, Generator: gen, Metric: "unfaithfulness", Mean: mean, Runs: 5}
	}
	cells := []compare.Cell{
		cell("MLP", "ECCCo", 0.1), cell("MLP", "Wachter", 0.3),
		cell("JEM", "ECCCo", 0.2), cell("JEM", "Wachter", 0.25),
		cell("MLP Ensemble", "ECCCo", 0.4), cell("MLP Ensemble", "Wachter", 0.3),
		cell("JEM Ensemble", "ECCCo", 0.1),
	}
	holds, known := PaperClaims[0].Eval(cells)
	if holds != 2 || known != 3 {
		t.Errorf("ECCCo more faithful than Wachter: %d of %d, want 2 of 3", holds, known)
	}
	// The valid subset is not the claim's.
	for i := range cells {
		cells[i].Subset = "valid"
	}
	if _, known := PaperClaims[0].Eval(cells); known != 0 {
		t.Errorf("valid cells counted: %d", known)
	}
}

func TestProseTemplatesRender(t *testing.T) {
	blocks, err := prose("dataset", map[string]any{"Title": "Moons", "Within": 3, "Cells": 4, "Strict": "2 of 4 (50 %)",
		"Metrics": []string{"cost 100 %"}, "Misses": 1, "Causes": []string{"unexplained (1)"}})
	if err != nil || len(blocks) != 1 {
		t.Fatalf("prose: %v, %d blocks", err, len(blocks))
	}
	if got := blocks[0].(*Para).Text.Text(); got != "Moons. 3 of 4 (75 %) of the published cells lie within the tolerance (2 of 4 (50 %) strictly). By metric: cost 100 %. Likely causes of the 1 miss: unexplained (1)." {
		t.Errorf("dataset paragraph: %q", got)
	}
}
