package compare

import (
	"math"
	"testing"
)

// Welch's z computed by hand: moons (50 published runs), ours 0.60 ± 0.10 over 50 runs against 0.50 ±
// 0.05: 0.1/√(0.01/50 + 0.0025/50) = 0.1/0.0158114 = 6.3246; MNIST (10 published runs), ours 0.30 ± 0.02
// over 10 runs against 0.29 ± 0.00, the published sd taken as 0.005: 0.01/√(0.0004/10 + 0.000025/10) =
// 0.01/0.0065192 = 1.5339. One run has no z. By chance |z| > 3 has probability 0.0026998.
func TestWelchZ(t *testing.T) {
	for _, c := range []struct {
		r    ComparedCell
		want float64
	}{
		{ComparedCell{Cell: Cell{Dataset: "moons", Mean: 0.60, SD: 0.10, Runs: 50}, Paper: 0.50, PaperSD: 0.05}, 6.3246},
		{ComparedCell{Cell: Cell{Dataset: "mnist", Mean: 0.30, SD: 0.02, Runs: 10}, Paper: 0.29, PaperSD: 0}, 1.5339},
		{ComparedCell{Cell: Cell{Dataset: "mnist", Mean: 0.28, SD: 0.02, Runs: 10}, Paper: 0.29, PaperSD: 0}, -1.5339},
	} {
		if got := c.r.Z(); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("%s %v ± %v against %v ± %v: z = %.4f, want %.4f", c.r.Dataset, c.r.Mean, c.r.SD, c.r.Paper, c.r.PaperSD, got, c.want)
		}
	}
	if z := (ComparedCell{Cell: Cell{Dataset: "moons", Mean: 1, SD: 0, Runs: 1}, Paper: 0.5}).Z(); !math.IsNaN(z) {
		t.Errorf("one run: z = %v, want NaN", z)
	}
	if got := ChanceShare(); math.Abs(got-0.0026998) > 1e-6 {
		t.Errorf("chance share %v, want 0.0026998", got)
	}
	if PublishedRuns("moons") != 50 || PublishedRuns("fashion-mnist") != 10 {
		t.Errorf("published runs: moons %d, fashion-mnist %d; want 50 and 10", PublishedRuns("moons"), PublishedRuns("fashion-mnist"))
	}
}

// Counts on hand-made cells of moons (50 runs each side):
//   - cost 0.52 ± 0.01 against 0.50 ± 0.01: 0.02 ≤ 3·0.01, strictly within;
//   - implausibility 0.51 against 0.50 ± 0.00: 0.01 > 0, ≤ 0.015: within only by the floor;
//   - redundancy 0.52 against 0.50 ± 0.00: 0.02 > 0.015, a miss; within 3·0.005 + 0.005 = 0.02 (both rounded);
//     z = 0.02/√(0.0001/50 + 0.000025/50) = 12.6;
//   - validity of the valid subset, 1 against 1.00: fixed by construction (within, strictly).
//
// Signs over three models: the paper's ECCCo − Wachter unfaithfulness 0.40 − 0.40 = 0.00 (a tie, though
// ours is −0.10), −0.10 against ours −0.05 (agree), +0.02 against ours −0.01 (disagree).
func TestCounts(t *testing.T) {
	c := func(subset, model, gen, metric string, mean, sd float64) Cell {
		return Cell{Dataset: "moons", Subset: subset, Model: model, Generator: gen, Metric: metric, Mean: mean, SD: sd, Runs: 50}
	}
	p := func(subset, model, gen, metric string, mean, sd float64) Published {
		return Published{Dataset: "moons", Subset: subset, Model: model, Generator: gen, Metric: metric, Mean: mean, SD: sd}
	}
	cells := []Cell{
		c("all", "MLP", "ECCCo", "cost", 0.52, 0.01),
		c("all", "MLP", "ECCCo", "implausibility", 0.51, 0.01),
		c("all", "MLP", "ECCCo", "redundancy", 0.52, 0.01),
		c("valid", "MLP", "ECCCo", "validity", 1, 0),
		c("all", "MLP", "ECCCo", "unfaithfulness", 0.30, 0.01), c("all", "MLP", "Wachter", "unfaithfulness", 0.40, 0.01),
		c("all", "JEM", "ECCCo", "unfaithfulness", 0.35, 0.01), c("all", "JEM", "Wachter", "unfaithfulness", 0.40, 0.01),
		c("all", "JEM Ensemble", "ECCCo", "unfaithfulness", 0.39, 0.01), c("all", "JEM Ensemble", "Wachter", "unfaithfulness", 0.40, 0.01),
	}
	pub := []Published{
		p("all", "MLP", "ECCCo", "cost", 0.50, 0.01),
		p("all", "MLP", "ECCCo", "implausibility", 0.50, 0),
		p("all", "MLP", "ECCCo", "redundancy", 0.50, 0),
		p("valid", "MLP", "ECCCo", "validity", 1, 0),
		p("all", "MLP", "ECCCo", "unfaithfulness", 0.40, 0.05), p("all", "MLP", "Wachter", "unfaithfulness", 0.40, 0.05),
		p("all", "JEM", "ECCCo", "unfaithfulness", 0.30, 0.05), p("all", "JEM", "Wachter", "unfaithfulness", 0.40, 0.05),
		p("all", "JEM Ensemble", "ECCCo", "unfaithfulness", 0.42, 0.05), p("all", "JEM Ensemble", "Wachter", "unfaithfulness", 0.40, 0.05),
	}
	cmp := Compare(cells, pub)
	k := cmp.Counts()
	// Ten cells. Significant (|z| > 3) although within: cost, z = 0.02/√(0.0001/50 + 0.0001/50) = 10;
	// implausibility, z = 0.01/√(0.0001/50 + 0.000025/50) = 6.3; and three of the six unfaithfulness
	// cells, within strictly (3·0.05 = 0.15): MLP ECCCo 0.10 off, z = 0.1/√(0.0001/50 + 0.0025/50) = 13.9,
	// JEM ECCCo 0.05 off, z = 6.9, JEM Ensemble ECCCo 0.03 off, z = 4.2. With the miss: six.
	want := Tally{Cells: 10, Within: 9, FloorOnly: 1, Strict: 8, BothRounded: 10, Misses: 1,
		Significant: 6, SignificantMisses: 1}
	got := k.All
	got.MinMissZ = 0
	if got != want {
		t.Errorf("all: %+v, want %+v", got, want)
	}
	if math.Abs(k.All.MinMissZ-12.649) > 1e-3 {
		t.Errorf("least z of a miss %v, want 12.649", k.All.MinMissZ)
	}
	if k.ByConstruction != 1 || k.Open.Cells != 9 || k.Open.Within != 8 || k.Open.Strict != 7 {
		t.Errorf("by construction %d, open %+v; want 1, and 8 of 9 within, 7 strictly", k.ByConstruction, k.Open)
	}
	if want := (SignTally{Known: 3, Agree: 1, Disagree: 1, Ties: 1}); k.Unfaith != want {
		t.Errorf("unfaithfulness signs %+v, want %+v", k.Unfaith, want)
	}
	if k.Impl != (SignTally{}) {
		t.Errorf("implausibility signs %+v, want none (no REVISE cells)", k.Impl)
	}
}
