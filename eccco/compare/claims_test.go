package compare

import (
	"math"
	"testing"
)

// The claims on hand-made cells: in mode A ECCCo (0.5) beats Wachter (0.9) and Schut (0.7) on
// unfaithfulness (REVISE 0.8), is less plausible than Wachter (+0.2) and valid (0.95); in mode B Schut (0.3) is more
// faithful than ECCCo (0.6), which still beats Wachter (0.8), and ECCCo's validity is 0.5.
func TestCompareModes(t *testing.T) {
	cell := func(gen, metric string, mean float64) Cell {
		return Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: metric, Mean: mean}
	}
	a := []Cell{cell("ECCCo", "unfaithfulness", 0.5), cell("Wachter", "unfaithfulness", 0.9), cell("Schut", "unfaithfulness", 0.7),
		cell("REVISE", "unfaithfulness", 0.8), cell("ECCCo", "implausibility", 1.2), cell("Wachter", "implausibility", 1.0), cell("ECCCo", "validity", 0.95)}
	b := []Cell{cell("ECCCo", "unfaithfulness", 0.6), cell("Wachter", "unfaithfulness", 0.8), cell("Schut", "unfaithfulness", 0.3),
		cell("REVISE", "unfaithfulness", 0.9), cell("ECCCo", "validity", 0.5)}
	mc, err := CompareModes([]string{"A", "B"}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(mc.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(mc.Rows))
	}
	ca, cb := mc.Rows[0].Checks[0], mc.Rows[0].Checks[1]
	if math.Abs(ca.UnfaithDiff+0.4) > 1e-12 || ca.Rank != 1 || ca.Generators != 4 || math.Abs(ca.ImplDiff-0.2) > 1e-12 {
		t.Errorf("A: %+v, want diff −0.4, rank 1 of 4, implausibility +0.2", ca)
	}
	wantA, wantB := []bool{true, true, false, true}, []bool{true, false, false, false}
	for k := range Claims {
		if ca.Holds[k] != wantA[k] || cb.Holds[k] != wantB[k] {
			t.Errorf("claim %q: A %v B %v, want %v %v", Claims[k], ca.Holds[k], cb.Holds[k], wantA[k], wantB[k])
		}
	}
	if cb.Known[2] || !math.IsNaN(cb.ImplDiff) {
		t.Errorf("B has no implausibility, yet the claim was checked: %+v", cb)
	}
	if cb.Rank != 2 || ca.Rank != 1 {
		t.Errorf("B: ECCCo's rank %d, want 2 (Schut is more faithful)", cb.Rank)
	}
	if h, n := mc.Tally(1, 2); h != 0 || n != 0 {
		t.Errorf("B implausibility tally %d of %d, want 0 of 0", h, n)
	}
	if _, err := CompareModes([]string{"A"}, a); err == nil {
		t.Error("one source: want an error")
	}
}
