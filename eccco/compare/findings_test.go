package compare

import (
	"math"
	"testing"
)

// TestPairedEstimate checks a t interval computed by hand: d = 1…5 has mean 3, sd √2.5, se √0.5, and
// Student t's 0.975 quantile on 4 degrees of freedom is 2.776445 (any table).
func TestPairedEstimate(t *testing.T) {
	e, ok := PairedEstimate([]float64{1, 2, 3, 4, 5}, 10)
	if !ok {
		t.Fatal("not estimated")
	}
	se := math.Sqrt(0.5)
	if e.Value != 3 || math.Abs(e.SE-se) > 1e-12 || e.DF != 4 || e.Test != TestPaired || e.Runs != 5 {
		t.Errorf("estimate %+v", e)
	}
	if math.Abs(e.Lo-(3-2.776445*se)) > 1e-5 || math.Abs(e.Hi-(3+2.776445*se)) > 1e-5 {
		t.Errorf("interval [%g, %g], want 3 ∓ 2.776445·%g", e.Lo, e.Hi, se)
	}
	if math.Abs(e.Effect()-0.3) > 1e-12 {
		t.Errorf("effect %g, want 0.3", e.Effect())
	}
	if _, ok := PairedEstimate([]float64{1}, 1); ok {
		t.Error("one run estimated")
	}
}

// TestWelchEstimate checks Welch's standard error and Welch–Satterthwaite degrees of freedom by hand:
// means 10 and 8, sd 2 and 3, 10 runs each: se = √(0.4 + 0.9), df = 1.3² / (0.4²/9 + 0.9²/9) = 15.68.
func TestWelchEstimate(t *testing.T) {
	e, ok := WelchEstimate(func(v []float64) float64 { return v[0] - v[1] }, []float64{10, 8}, []float64{2, 3}, []int{10, 10}, 10)
	if !ok {
		t.Fatal("not estimated")
	}
	if math.Abs(e.Value-2) > 1e-9 || math.Abs(e.SE-math.Sqrt(1.3)) > 1e-6 || math.Abs(e.DF-1.69/(0.97/9)) > 1e-4 {
		t.Errorf("estimate %+v", e)
	}
	// t(0.975) lies between the tabulated 2.120 (16 df) and 2.131 (15 df).
	q := (e.Hi - e.Value) / e.SE
	if q < 2.120 || q > 2.131 {
		t.Errorf("t quantile %g on %g df", q, e.DF)
	}
	// A ratio by the delta method: f = a/b at 2/4 has ∂f/∂a = 1/4, ∂f/∂b = −2/16; se = √((0.25·1)² /5 + (0.125·2)² /5).
	r, _ := WelchEstimate(func(v []float64) float64 { return v[0] / v[1] }, []float64{2, 4}, []float64{1, 2}, []int{5, 5}, 1)
	if want := math.Sqrt(0.0625/5 + 0.0625/5); math.Abs(r.SE-want) > 1e-6 {
		t.Errorf("ratio se %g, want %g", r.SE, want)
	}
}

// TestJudge checks the rule: a difference counts only when significant and material.
func TestJudge(t *testing.T) {
	est := func(v, lo, hi float64) Estimate { return Estimate{Value: v, Lo: lo, Hi: hi, Scale: 1} }
	for _, c := range []struct {
		e    Estimate
		d    Direction
		want Outcome
	}{
		{est(-0.1, -0.15, -0.05), Below, For},
		{est(-0.01, -0.012, -0.008), Below, Neither}, // significant, 1 % of the metric
		{est(-0.1, -0.3, 0.1), Below, Neither},       // material, not significant
		{est(0.1, 0.05, 0.15), Below, Against},
		{est(0.1, 0.05, 0.15), Above, For},
		{est(0.01, -0.01, 0.03), NotAbove, For}, // the upper end below 5 %
		{est(0.03, 0.01, 0.06), NotAbove, Neither},
		{est(0.1, 0.05, 0.15), NotAbove, Against},
	} {
		if got := Judge(c.e, c.d); got != c.want {
			t.Errorf("Judge(%+v, %s) = %s, want %s", c.e, c.d, got, c.want)
		}
	}
	if got := JudgeAt(est(-0.01, -0.012, -0.008), Below, 0.005); got != For {
		t.Errorf("at 0.5 %% materiality: %s", got)
	}
}

// TestClaimOnRuns builds claim 1 from run means of three models: on the MLP ECCCo is below Wachter by
// 0.1 in every run (for), on the JEM by 0.001 (significant, immaterial: neither), on the MLP Ensemble
// above by 0.1 (against); the JEM Ensemble lacks Wachter (not measurable).
func TestClaimOnRuns(t *testing.T) {
	var rms []RunMean
	add := func(model, gen string, base float64) {
		for r := 1; r <= 5; r++ {
			rms = append(rms, RunMean{Dataset: "moons", Subset: "all", Model: model, Generator: gen, Metric: "unfaithfulness", Run: r, N: 10,
				Mean: base + 0.01*float64(r)})
		}
	}
	add("MLP", "ECCCo", 0.2)
	add("MLP", "Wachter", 0.3)
	add("JEM", "ECCCo", 0.299)
	add("JEM", "Wachter", 0.3)
	add("MLP Ensemble", "ECCCo", 0.4)
	add("MLP Ensemble", "Wachter", 0.3)
	add("JEM Ensemble", "ECCCo", 0.1)
	cells := AggregateRunMeans(rms)
	f := TestClaim(PaperClaims[0], ClaimSource{Name: "ours", Cells: cells, RunMeans: rms})
	if f.Tally != (ClaimTally{For: 1, Against: 1, Neither: 1, Unmeasured: 1}) || f.Verdict != VerdictDoesNot {
		t.Errorf("tally %+v, verdict %s", f.Tally, f.Verdict)
	}
	for _, u := range f.Units {
		if u.Outcome != Unmeasured && u.Estimates[0].Estimate.Test != TestPaired {
			t.Errorf("%s: test %s, want paired", u.Model, u.Estimates[0].Estimate.Test)
		}
	}
	// Without the run means the cells' sd (0.0158 in each) make JEM's difference of 0.001 not
	// significant by Welch, and the others still count.
	w := TestClaim(PaperClaims[0], ClaimSource{Name: "cells", Cells: cells})
	if w.Tally != (ClaimTally{For: 1, Against: 1, Neither: 1, Unmeasured: 1}) {
		t.Errorf("Welch tally %+v", w.Tally)
	}
	if e := w.Units[0].Estimates[0].Estimate; e.Test != TestWelch {
		t.Errorf("without run means: %s", e.Test)
	}
}

// TestLikeForLike checks that the published-rounding copy rounds the means to two decimals and floors
// the sd at 0.005, and keeps only the published pairs.
func TestLikeForLike(t *testing.T) {
	cell := func(model, gen string, mean float64) Cell {
		return Cell{Dataset: "moons", Subset: "all", Model: model, Generator: gen, Metric: "unfaithfulness", Mean: mean, SD: 0.0001, Runs: 50}
	}
	ours := []Cell{cell("MLP", "ECCCo", 0.2549), cell("MLP", "Wachter", 0.2551), cell("JEM", "ECCCo", 0.1), cell("JEM", "Wachter", 0.3)}
	pubCell := func(gen string, mean float64) Published {
		return Published{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: "unfaithfulness", Mean: mean, SD: 0, Decimals: 2}
	}
	pub := []Published{pubCell("ECCCo", 0.25), pubCell("Wachter", 0.26)}
	src := LikeForLike(ClaimSource{Name: "ours", Cells: ours}, pub)
	f := TestClaim(PaperClaims[0], src)
	if len(f.Units) != 1 || f.Units[0].Model != "MLP" {
		t.Fatalf("units %+v, want the MLP only", f.Units)
	}
	e := f.Units[0].Estimates[0].Estimate
	// 0.25 − 0.26 (rounded), se √(2·0.005²/50).
	if math.Abs(e.Value+0.01) > 1e-9 || math.Abs(e.SE-math.Sqrt(2*0.005*0.005/50)) > 1e-9 {
		t.Errorf("rounded estimate %+v", e)
	}
	p := TestClaim(PaperClaims[0], PublishedSource(pub))
	if p.Units[0].Estimates[0].Estimate.Runs != 50 {
		t.Errorf("published runs %d, want the paper's 50", p.Units[0].Estimates[0].Estimate.Runs)
	}
}

// TestDiscriminating checks DiscriminatingRule on hand-made published cells: generators printed 0.24,
// 0.25 and 0.25 (spread 0.01) cannot be told apart by a tolerance of 0.015, and every cell of that
// column agrees with ours whatever the generator; costs of 1.0, 2.0 and 3.0 (spread 2) can.
func TestDiscriminating(t *testing.T) {
	var pub []Published
	var ours []Cell
	for i, g := range []string{"ECCCo", "REVISE", "Wachter"} {
		pub = append(pub, Published{Dataset: "mnist", Subset: "all", Model: "MLP", Generator: g, Metric: "unfaithfulness", Mean: []float64{0.24, 0.25, 0.25}[i]},
			Published{Dataset: "mnist", Subset: "all", Model: "MLP", Generator: g, Metric: "cost", Mean: float64(i + 1), SD: 0.1})
		// Ours swapped: ECCCo gets Wachter's numbers and the other way round.
		ours = append(ours, Cell{Dataset: "mnist", Subset: "all", Model: "MLP", Generator: g, Metric: "unfaithfulness", Mean: []float64{0.25, 0.25, 0.24}[i], Runs: 10},
			Cell{Dataset: "mnist", Subset: "all", Model: "MLP", Generator: g, Metric: "cost", Mean: float64(3 - i), Runs: 10})
	}
	c := Compare(ours, pub)
	tl := TallyOf(c.Rows)
	// Unfaithfulness: all 3 within, none discriminating; cost: 1 within (REVISE, 2 = 2), 3 discriminating.
	if tl.Within != 4 || tl.Discriminating != 3 || tl.WithinDiscriminating != 1 {
		t.Errorf("tally %+v: want 4 within, 3 discriminating, 1 of them within", tl)
	}
	for _, r := range c.Rows {
		if r.Metric == "unfaithfulness" && (r.Discriminating || math.Abs(r.Spread-0.01) > 1e-12) {
			t.Errorf("%s unfaithfulness: spread %g, discriminating %v", r.Generator, r.Spread, r.Discriminating)
		}
	}
}

// TestOffsets checks OffsetRule on hand-made rows: unfaithfulness 0.2 above the paper for two generators
// and 0.1 for a third (median 0.2, generators 0.1–0.2) is systematic; cost split 2 above, 1 below is not;
// implausibility 0.01 above everywhere is below the floor.
func TestOffsets(t *testing.T) {
	row := func(gen, metric string, ours, paper float64) ComparedCell {
		return ComparedCell{Cell: Cell{Dataset: "gmsc", Subset: "all", Model: "MLP", Generator: gen, Metric: metric, Mean: ours}, Paper: paper}
	}
	rows := []ComparedCell{
		row("ECCCo", "unfaithfulness", 1.2, 1.0), row("Wachter", "unfaithfulness", 1.5, 1.3), row("REVISE", "unfaithfulness", 1.1, 1.0),
		row("ECCCo", "cost", 2, 1), row("Wachter", "cost", 2, 1), row("REVISE", "cost", 1, 2),
		row("ECCCo", "implausibility", 0.51, 0.5), row("Wachter", "implausibility", 0.51, 0.5),
	}
	os := Offsets(rows)
	if len(os) != 1 || os[0].Metric != "unfaithfulness" {
		t.Fatalf("offsets %+v, want unfaithfulness only", os)
	}
	o := os[0]
	if o.Cells != 3 || o.Above != 3 || math.Abs(o.Median-0.2) > 1e-9 || math.Abs(o.GenLow-0.1) > 1e-9 || math.Abs(o.GenHigh-0.2) > 1e-9 {
		t.Errorf("offset %+v", o)
	}
}
