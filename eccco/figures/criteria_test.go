package figures

import (
	"math"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The measures on points worked out by hand.
func TestMeasuresByHand(t *testing.T) {
	labels, err := NearestLabels([]float32{0, 0, 10, 0}, []int{0, 1}, 2, []float32{1, 0, 9, 0, 5, 0})
	if err != nil {
		t.Fatal(err)
	}
	if labels[0] != 0 || labels[1] != 1 || labels[2] != 0 { // (5, 0) is a tie: the first reference row
		t.Errorf("nearest labels %v, want [0 1 0]", labels)
	}
	if _, err := NearestLabels([]float32{0, 0}, []int{0, 1}, 2, []float32{1, 0}); err == nil {
		t.Error("two labels for one reference row: no error")
	}
	// A 3-4-5 triangle: the pairwise distances are 3, 4 and 5.
	if v := MeanPairwiseDistance([][]float32{{0, 0}, {3, 0}, {0, 4}}); !near(v, 4) {
		t.Errorf("mean pairwise distance %v, want 4", v)
	}
	if v := MeanPairwiseDistance([][]float32{{1, 1}}); v != 0 {
		t.Errorf("mean pairwise distance of one row %v, want 0", v)
	}
	if v := MeanDistanceTo([]float32{0, 0}, [][]float32{{3, 4}, {0, 1}}); !near(v, 3) {
		t.Errorf("mean distance %v, want (5 + 1)/2 = 3", v)
	}
	r, v := gridShares([]int{1, 2, 3}, []int{1, 0, 3}, []float32{0.6, 0.4, 0.5})
	if !near(r, 2.0/3) || !near(v, 2.0/3) {
		t.Errorf("grid shares %v, %v, want 2/3 and 2/3", r, v)
	}
}

// Validity counts p ≥ 0.5, and the paper's invalid generators are not needed.
func TestValidCount(t *testing.T) {
	names, p := []string{"ECCCo", "Wachter", "Schut"}, []float64{0.9, 0.5, 0.02}
	c := ValidCount("valid", names, p, "Schut")
	if c.Value != 2 || !c.Holds {
		t.Errorf("with Schut excepted: %v valid, holds %v; want 2, true", c.Value, c.Holds)
	}
	if c := ValidCount("valid", names, p); c.Holds {
		t.Error("with Schut needed and p = 0.02: holds")
	}
	s := c.String()
	for _, want := range []string{"valid: ", "= 2", "Schut p = 0.02", "— holds"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	if s := (Criterion{Claim: "c", Measure: "m", Value: 0.125}).String(); s != "c: m = 0.125 — does not hold" {
		t.Errorf("String = %q", s)
	}
}

// The image criteria on tiny "images" of 2 pixels whose classes sit at 0 and 10.
func TestImageCriteriaByHand(t *testing.T) {
	refX, refY := []float32{0, 0, 1, 0, 10, 10, 11, 10}, []int{0, 0, 1, 1}
	// Class 0's samples both at (0, 0): no diversity; class 1's at (10, 10) and (11, 10): as diverse as
	// the class's first two training rows (distance 1 each).
	samples := [][][]float32{{{0, 0}, {0, 0}}, {{10, 10}, {11, 10}}}
	c, err := sampleCriteria(refX, refY, 2, samples, []string{"zero", "one"})
	if err != nil {
		t.Fatal(err)
	}
	if c[0].Value != 0 || c[0].Holds || !strings.Contains(c[0].Detail, "zero 0.00, one 1.00") {
		t.Errorf("diversity %+v, want 0 (class zero), not holding", c[0])
	}
	if c[1].Value != 1 || !c[1].Holds {
		t.Errorf("recognition %+v, want 1, holding", c[1])
	}
	read := readAsTarget("plausible", []string{"ECCCo", "REVISE", "Schut"}, []int{5, 3, 5}, 5, nil, []string{"ECCCo", "REVISE"})
	if read.Value != 0.5 || read.Holds {
		t.Errorf("read as target %+v, want 0.5, not holding", read)
	}
	g := reviseAgainstECCCo(GridMade{ReadAsTarget: 0.7}, GridMade{ReadAsTarget: 0.4})
	if !near(g.Value, 0.3) || g.Holds {
		t.Errorf("REVISE 0.7 against ECCCo+ 0.4: %+v, want 0.3, not holding", g)
	}
}

// Fig. 2's, poc-gen's and cp-diff's criteria on a hand-made Synthetic.
func TestSyntheticCriteriaByHand(t *testing.T) {
	s := &Synthetic{
		// Class 0 (the target) at (10, 0) and (10, 2), class 1 at (0, 0).
		Data:       plot.Labelled{X: []float32{10, 0, 10, 2, 0, 0}, Y: []int{0, 0, 1}},
		ClassNames: []string{"blue", "orange"}, From: 1, To: 0, QHat: 0.01,
		Grid: &conformal.Grid{X: []float64{0, 5, 10}, Y: []float64{0, 1}, SmoothSetSize: [][]float64{{0, 0, 0}, {0, 0, 0}}},
		// Samples of class 0 at (10, 1) twice, of class 1 at (0, 0) and (10, 0): one in the wrong class.
		Samples: [][]float32{{10, 1, 10, 1}, {0, 0, 10, 0}},
	}
	ends := map[string][]float32{"Wachter": {6, 0}, "ECCCo (no EBM)": {6, 0}, "ECCCo (no CP)": {10, 1}, "ECCCo": {10, 1}}
	iters := map[string]int{"Wachter": 100, "ECCCo (no EBM)": 100, "ECCCo (no CP)": 15, "ECCCo": 15}
	for i, g := range POCGenerators {
		s.Panels = append(s.Panels, plot.GeneratorPanel{Generator: g})
		s.Results = append(s.Results, &experiment.Explanation{Result: &counterfactual.Result{X: ends[g], Probability: []float32{0.99}, Iterations: []int{iters[g]}}})
		s.EndEnergy = append(s.EndEnergy, -float64(i))
	}
	c := s.POCCriteria()
	if len(c) != 5 {
		t.Fatalf("%d criteria, want 5", len(c))
	}
	if c[0].Value != 4 || !c[0].Holds {
		t.Errorf("validity %+v", c[0])
	}
	if c[1].Value != -3 || !c[1].Holds { // E(ECCCo) = −3, E(Wachter) = 0
		t.Errorf("energy %+v, want −3, holding", c[1])
	}
	// Wachter's end (6, 0) is 4 and √20 from the blue points, ECCCo's (10, 1) 1 and 1.
	if want := 1 / ((4 + math.Sqrt(20)) / 2); !near(c[2].Value, want) || !c[2].Holds {
		t.Errorf("distance ratio %+v, want %v, holding", c[2], want)
	}
	if c[3].Value != 0 || c[3].Holds || !strings.Contains(c[3].Detail, "Ω = max(0, Σₖ Cₖ − 1) = 0") {
		t.Errorf("no EBM against Wachter %+v, want 0, not holding, with the cause", c[3])
	}
	if c[4].Value != 0 || c[4].Holds {
		t.Errorf("steps %+v, want 0, not holding", c[4])
	}
	cp := s.CPDiffCriteria()
	if cp[0].Value != 0 || cp[0].Holds {
		t.Errorf("Ω range %+v, want 0, not holding", cp[0])
	}
	g, err := s.POCGenCriteria()
	if err != nil {
		t.Fatal(err)
	}
	if g[0].Value != 0.75 || g[0].Holds { // 3 of 4 samples nearest to their class
		t.Errorf("in class %+v, want 0.75, not holding", g[0])
	}
	// Class 0's samples coincide (ratio 0); class 1's are 10 apart, its one data point has no pair.
	if g[1].Value != 0 || g[1].Holds {
		t.Errorf("spread %+v, want 0, not holding", g[1])
	}
}
