package benchmark

import "testing"

// MissCause on hand-made cells: a cell within the tolerance has no cause; a wide spread that covers the
// difference comes first; then the known differences; the rest is unexplained.
func TestMissCause(t *testing.T) {
	cell := func(d, m, g, metric string, mean, sd, paper, paperSD float64) ComparedCell {
		c := ComparedCell{Cell: Cell{Dataset: d, Subset: "all", Model: m, Generator: g, Metric: metric, Mean: mean, SD: sd}, Paper: paper, PaperSD: paperSD}
		c.Within = WithinRounding(mean, paper, paperSD)
		return c
	}
	for _, c := range []struct {
		r    ComparedCell
		want string
	}{
		{cell("moons", "MLP", "Wachter", "cost", 1.01, 0.01, 1.0, 0.01), ""},                        // within 3 sd
		{cell("moons", "MLP", "ECCCo", "unfaithfulness", 0.80, 0.10, 0.60, 0.02), CauseSpread},      // 0.2 ≤ 3·0.1, sd 5× the paper's
		{cell("moons", "MLP", "ECCCo", "unfaithfulness", 0.80, 0.03, 0.60, 0.02), CauseUnexplained}, // sd alike: no spread
		{cell("moons", "JEM", "Wachter", "validity", 0.70, 0.01, 1.00, 0.00), CauseJEMValidity},     // JEM below 0.95+
		{cell("moons", "MLP", "Wachter", "validity", 0.70, 0.01, 1.00, 0.00), CauseUnexplained},     // not a JEM
		{cell("circles", "MLP", "REVISE", "cost", 2.0, 0.01, 1.0, 0.01), CauseREVISECollapse},       // REVISE on circles
		{cell("german-credit", "JEM", "Schut", "cost", 4.6, 0.1, 2.44, 0.09), CauseSchutGerman},     // Schut on German JEMs
		{cell("german-credit", "MLP", "REVISE", "cost", 11.6, 0.1, 17.2, 0.2), CauseREVISEGerman},   // German REVISE cost
		{cell("gmsc", "MLP", "ECCCo+", "implausibility", 3.0, 0.01, 2.0, 0.01), CauseEnergyDecay},   // ECCCo family
		{cell("gmsc", "MLP", "ECCCo-L1", "implausibility", 3.0, 0.01, 2.0, 0.01), CauseUnexplained}, // not the energy family
	} {
		if got := MissCause(c.r); got != c.want {
			t.Errorf("%s %s %s %s: cause %q, want %q", c.r.Dataset, c.r.Model, c.r.Generator, c.r.Metric, got, c.want)
		}
	}
}

// Where the paper prints a difference as 0.00, ours agrees when it rounds to 0.00 too (−0.001), not when it
// does not (−0.006); elsewhere the signs decide, however small ours is (+0.0004 against +0.02).
func TestSignsAtTwoDecimals(t *testing.T) {
	for _, c := range []struct {
		ours, paper float64
		want        bool
	}{{-0.001, 0, true}, {0.004, 0, true}, {-0.006, 0, false}, {0.0004, 0.02, true}, {-0.004, -0.01, true}, {0.2, -0.05, false}} {
		if got := agreesAtTwoDecimals(c.ours, c.paper); got != c.want {
			t.Errorf("ours %v, paper %v: agree = %v, want %v", c.ours, c.paper, got, c.want)
		}
	}
}
