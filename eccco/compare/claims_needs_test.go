package compare

import (
	"slices"
	"testing"
)

// modes reported "ECCCo more faithful than Wachter, REVISE and Schut: 2 of 2" for a run without Schut.
// Now that claim is not checked where a generator it names is absent, and MissingForClaims names it.
func TestClaimNeedsItsGenerators(t *testing.T) {
	cell := func(g, metric string, mean float64) Cell {
		return Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: g, Metric: metric, Mean: mean, Runs: 2}
	}
	cells := []Cell{cell("ECCCo", "unfaithfulness", 0.1), cell("Wachter", "unfaithfulness", 0.5), cell("REVISE", "unfaithfulness", 0.4)}
	ch := CheckClaims(cells, "moons", "MLP")
	if ch == nil || !ch.Known[0] || !ch.Holds[0] {
		t.Fatalf("ECCCo < Wachter not found: %+v", ch)
	}
	if ch.Known[1] || ch.Holds[1] {
		t.Errorf("the claim about Schut checked without Schut: known %v holds %v", ch.Known[1], ch.Holds[1])
	}
	missing := MissingForClaims(cells)
	if !slices.Equal(missing[1], []string{"Schut"}) || missing[0] != nil || !slices.Equal(missing[3], nil) {
		t.Errorf("missing %v, want only Schut for claim 1", missing)
	}
	cells = append(cells, cell("Schut", "unfaithfulness", 0.05))
	if ch := CheckClaims(cells, "moons", "MLP"); !ch.Known[1] || ch.Holds[1] {
		t.Errorf("Schut (0.05) below ECCCo (0.1): known %v holds %v, want known and not holding", ch.Known[1], ch.Holds[1])
	}
}
