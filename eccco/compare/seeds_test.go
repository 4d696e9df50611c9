package compare

import (
	"math"
	"testing"
)

// SeedZ and SeedShifts on hand-made cells: z = 0.1/√(0.01/50 + 0.04/10) = 1.543 and 0.3/0.0648 = 4.63;
// against a published 1.00 ± 0.02 (tolerance 0.06) the first seed's 1.00 is within, the second's 1.10
// and 1.30 are not (two cells leave), and a cell the published numbers lack counts only between seeds.
func TestSeedShifts(t *testing.T) {
	a := Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 1, SD: 0.1, Runs: 50}
	b := a
	b.Mean, b.SD, b.Runs = 1.1, 0.2, 10
	if z := SeedZ(a, b); math.Abs(z-1.5430) > 1e-3 {
		t.Errorf("SeedZ = %.4f, want 1.5430", z)
	}
	c := b
	c.Mean = 1.3
	if z := SeedZ(a, c); math.Abs(z-4.6291) > 1e-3 {
		t.Errorf("SeedZ = %.4f, want 4.6291", z)
	}
	same := Cell{Mean: 1, Runs: 5}
	if z := SeedZ(same, same); z != 0 {
		t.Errorf("SeedZ of equal means with sd 0 = %v, want 0", z)
	}
	moved := same
	moved.Mean = 2
	if z := SeedZ(same, moved); !math.IsInf(z, 1) {
		t.Errorf("SeedZ of different means with sd 0 = %v, want +Inf", z)
	}
	if z := SeedZ(Cell{Mean: 1, Runs: 1}, b); !math.IsNaN(z) {
		t.Errorf("SeedZ with one run = %v, want NaN", z)
	}

	first := []Cell{a, a, a, a}
	first[1].Generator = "ECCCo"
	first[2].Generator = "REVISE"
	first[3].Dataset = "circles" // not in the second seed: left out
	second := []Cell{b, c, c}
	second[1].Generator = "ECCCo"
	second[2].Generator = "REVISE"
	second[2].Metric = "implausibility" // no counterpart in the first seed
	pub := []Published{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 1, SD: 0.02},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "cost", Mean: 1, SD: 0.02},
	}
	got := SeedShifts(first, second, pub)
	want := SeedGroup{Name: "all", Cells: 2, Differ: 1, Published: 2, WithinFirst: 2, WithinSecond: 0, Left: 2}
	if got.All != want {
		t.Errorf("All = %+v, want %+v", got.All, want)
	}
	if len(got.ByGenerator) != 2 || got.ByGenerator[0].Name != "ECCCo" || got.ByGenerator[0].Differ != 1 || got.ByGenerator[1].Name != "Wachter" || got.ByGenerator[1].Differ != 0 {
		t.Errorf("ByGenerator = %+v, want ECCCo (1 differs) then Wachter (0)", got.ByGenerator)
	}
	want.Name = "moons"
	if len(got.ByDataset) != 1 || got.ByDataset[0] != want {
		t.Errorf("ByDataset = %+v, want moons alone, as All", got.ByDataset)
	}
}
