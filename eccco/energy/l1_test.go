package energy

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
)

// The ECCCo-L1 family's own sampler in the authors' code: the authors' sampler with 10 chains of 100
// steps, all kept (ECCCo.jl src/generator.jl:22-24).
func TestAuthorsL1ClassOptions(t *testing.T) {
	prior, err := PriorFromData(blobs(20, 1))
	if err != nil {
		t.Fatal(err)
	}
	o := AuthorsL1ClassOptions(prior)
	want := AuthorsClassOptions(prior)
	want.Chains, want.Keep, want.SGLD.Steps = 10, 10, 100
	if o.Chains != want.Chains || o.Keep != want.Keep || o.SGLD.Steps != want.SGLD.Steps || o.SharedStart != want.SharedStart ||
		!o.RankByLogSoftmax || o.SGLD.ClipGrad != want.SGLD.ClipGrad || !o.SGLD.BatchMeanGrad || o.SGLD.StepSize != 2 {
		t.Errorf("options %+v, want %+v", o, want)
	}
}

// Lowest(1) of samples drawn by SampleTargets is each class's lowest-energy sample, with the chains drawn
// kept for the penalty's divisor.
func TestLowestKeepsTheLowestEnergySample(t *testing.T) {
	b := testBackend(t)
	ds := blobs(40, 3)
	clf := linearLogits([]float32{1, -1, -1, 1}, 2, 2)
	prior, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	o := AuthorsL1ClassOptions(prior)
	o.SGLD.Steps = 3
	ts, err := SampleTargets(context.Background(), b, clf, o, 5)
	if err != nil {
		t.Fatal(err)
	}
	per, err := SamplePerClass(context.Background(), b, clf, o, 5)
	if err != nil {
		t.Fatal(err)
	}
	low, err := ts.Lowest(1)
	if err != nil {
		t.Fatal(err)
	}
	if low.Chains != 10 || low.Kept() != 1 || ts.Kept() != 10 {
		t.Fatalf("Lowest(1): chains %d, kept %d (of %d)", low.Chains, low.Kept(), ts.Kept())
	}
	for k, cs := range per {
		if cs.Energies[0] > cs.Energies[len(cs.Energies)-1] {
			t.Fatalf("class %d: energies not ascending: %v", k, cs.Energies)
		}
		if low.Samples[k][0] != cs.X[0] || low.Samples[k][1] != cs.X[1] {
			t.Errorf("class %d: lowest sample %v, want %v (energy %v)", k, low.Samples[k], cs.X[:2], cs.Energies[0])
		}
	}
	if _, err := ts.Lowest(11); err == nil {
		t.Error("Lowest(11) of 10: no error")
	}
}

// ClampAtEnd clamps only the result, so a chain may leave the box and come back. By hand: E(x) = (x − 1.2)²,
// φ = 1.5, no noise or clipping: x ← x − 0.75·2(x − 1.2) = 1.8 − 0.5x. From 0 in the box [−1, 1], two steps
// give 1.8 then 0.9 (inside again) when clamped at the end, but 1 then 1 when clamped after every step.
func TestClampAtEnd(t *testing.T) {
	b := testBackend(t)
	en := func(x, _ *Node) *Node {
		return Reshape(Square(AddScalar(x, -1.2)), x.Shape().Dimensions[0])
	}
	for _, c := range []struct {
		atEnd bool
		want  float32
	}{{true, 0.9}, {false, 1}} {
		s := SGLD{StepSize: 1.5, Steps: 2, Lower: []float32{-1}, Upper: []float32{1}, ClampAtEnd: c.atEnd}
		got, _, err := s.Sample(context.Background(), b, en, []float32{0}, nil, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(float64(got[0]-c.want)) > 1e-6 {
			t.Errorf("clamp at the end %v: %v after two steps, want %v", c.atEnd, got[0], c.want)
		}
	}
}

// ScalarPrior is the envelope of the per-feature mean ± 3 sd boxes: features (0, 2, 4) and (1, 3, 5) have
// boxes [−4, 8] and [−3, 9], so every feature gets [−4, 9].
func TestScalarPrior(t *testing.T) {
	ds := &data.Dataset{FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1"}, X: []float32{0, 1, 2, 3, 4, 5}, Y: []int{0, 1, 0}}
	p, err := ScalarPrior(ds)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 2 {
		if math.Abs(float64(p.Lower[j])+4) > 1e-5 || math.Abs(float64(p.Upper[j])-9) > 1e-5 {
			t.Errorf("feature %d: [%v, %v], want [−4, 9]", j, p.Lower[j], p.Upper[j])
		}
	}
}
