package energy

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

// The samples behind unfaithfulness and ECCCo-L1: the paper's setting keeps 25 of 50 chains (a data set's
// numbers are the catalogue's), all started from their own prior draw; the authors' code keeps
// 25 of 50 everywhere, 95 % of chains from one shared start, ranked by −log softmax, from one range for
// every feature (ScalarPrior), clamped once at the end.
func TestTargetSampleOptions(t *testing.T) {
	train := &data.Dataset{Name: "t", FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1"},
		X: []float32{0, 1, 2, 3, 4, 5}, Y: []int{0, 1, 0}}
	for _, c := range []struct {
		dataset     string
		authorsCode bool
		chains      int
		keep        int
		shared      float64
	}{
		{"paper", false, 50, 25, 0},
		{"authors", true, 50, 25, 0.95},
	} {
		o, err := TargetSampleOptions(train, c.authorsCode)
		if err != nil {
			t.Fatal(err)
		}
		if o.Chains != c.chains || o.Keep != c.keep || o.SharedStart != c.shared || o.RankByLogSoftmax != c.authorsCode || o.SGLD.BatchMeanGrad != c.authorsCode {
			t.Errorf("%s authorsCode=%v: %d/%d chains, shared %v, log-softmax %v, batch mean %v", c.dataset, c.authorsCode, o.Keep, o.Chains, o.SharedStart, o.RankByLogSoftmax, o.SGLD.BatchMeanGrad)
		}
		// mean ± 3 sd of feature a (0, 2, 4: mean 2, sample sd 2) is [−4, 8], of b (1, 3, 5) [−3, 9]; their
		// envelope, the authors' one range, [−4, 9].
		want := [][2]float64{{-4, 8}, {-3, 9}}
		if c.authorsCode {
			want = [][2]float64{{-4, 9}, {-4, 9}}
		}
		for j, w := range want {
			if math.Abs(float64(o.Prior.Lower[j])-w[0]) > 1e-5 || math.Abs(float64(o.Prior.Upper[j])-w[1]) > 1e-5 ||
				o.SGLD.Lower[j] != o.Prior.Lower[j] || o.SGLD.Upper[j] != o.Prior.Upper[j] {
				t.Errorf("%s authorsCode=%v: prior of feature %d [%v, %v] (clamp [%v, %v]), want %v", c.dataset, c.authorsCode, j,
					o.Prior.Lower[j], o.Prior.Upper[j], o.SGLD.Lower[j], o.SGLD.Upper[j], w)
			}
		}
		if o.SGLD.ClampAtEnd != c.authorsCode {
			t.Errorf("%s authorsCode=%v: clamp at the end %v", c.dataset, c.authorsCode, o.SGLD.ClampAtEnd)
		}
	}
}

// NewTargetSamples keeps class k's rows at index k and refuses classes out of order, of other sizes or of
// a partial row; Kept counts rows per class.
func TestNewTargetSamples(t *testing.T) {
	per := []*ClassSamples{{Class: 0, X: []float32{1, 2, 3, 4, 5, 6}}, {Class: 1, X: []float32{7, 8, 9, 10, 11, 12}}}
	ts, err := NewTargetSamples(per, 2)
	if err != nil {
		t.Fatal(err)
	}
	if ts.D != 2 || len(ts.Samples) != 2 || ts.Samples[1][0] != 7 || ts.Kept() != 3 || ts.Chains != 0 {
		t.Errorf("got D %d, %d classes, class 1 starting %v, %d kept, %d chains; want 2, 2, 7, 3, 0", ts.D, len(ts.Samples), ts.Samples[1][0], ts.Kept(), ts.Chains)
	}
	for name, bad := range map[string][]*ClassSamples{
		"no classes":   nil,
		"out of order": {per[1], per[0]},
		"nil class":    {per[0], nil},
		"other size":   {per[0], {Class: 1, X: []float32{1, 2}}},
		"partial row":  {{Class: 0, X: []float32{1, 2, 3}}},
		"empty class":  {{Class: 0}},
	} {
		if _, err := NewTargetSamples(bad, 2); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewTargetSamples(per, 0); err == nil {
		t.Error("0 features: no error")
	}
}

// SampleTargets keeps opts.Keep rows of every class and records the chains drawn. With linear logits
// x·W the energy of class k falls along W[:,k], so after noiseless steps every kept sample of class 0
// (W[:,0] = (1, 0)) has moved 3 along feature 0 and every one of class 1 (W[:,1] = (0, 1)) 3 along feature 1,
// from a start of at least −0.5.
func TestSampleTargets(t *testing.T) {
	b := testBackend(t)
	clf := linearLogits([]float32{1, 0, 0, 1}, 2, 2)
	opts := ClassOptions{SGLD: SGLD{StepSize: 2, NoiseSD: 0, Steps: 3},
		Prior: Prior{Lower: []float32{-0.5, -0.5}, Upper: []float32{0.5, 0.5}}, Chains: 6, Keep: 4}
	ts, err := SampleTargets(context.Background(), b, clf, opts, 3)
	if err != nil {
		t.Fatal(err)
	}
	if ts.D != 2 || ts.Chains != 6 || len(ts.Samples) != 2 || ts.Kept() != 4 {
		t.Fatalf("D %d, chains %d, %d classes, %d kept; want 2, 6, 2, 4", ts.D, ts.Chains, len(ts.Samples), ts.Kept())
	}
	for k, rows := range ts.Samples {
		for i := range ts.Kept() {
			if v := rows[i*2+k]; v < 2.5-1e-5 {
				t.Errorf("class %d, sample %d: feature %d = %v, want ≥ 2.5 (three steps of +1 from ≥ −0.5)", k, i, k, v)
			}
		}
	}
}

// SampleEach gives every entry a set of its own: on two bumps with E(x|k) = ½‖x − c_k‖² each set sits at
// its target's centre, two entries of the same class get different (independent) samples, and the same
// seed gives the same sets.
func TestSampleEach(t *testing.T) {
	b := testBackend(t)
	prior, err := NewPrior([]float32{-3, -3}, []float32{3, 3})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultClassOptions(prior)
	opts.Chains, opts.Keep = 20, 10
	targets := []int{1, 0, 1}
	sets, err := SampleEach(context.Background(), b, bumps(), targets, opts, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 3 {
		t.Fatalf("%d sets for 3 targets", len(sets))
	}
	centre := [][2]float64{{-1, 0}, {1, 0}}
	for i, s := range sets {
		if len(s) != 10*2 {
			t.Fatalf("set %d holds %d values, want 10 samples of 2 features", i, len(s))
		}
		var mx, my float64
		for r := range 10 {
			mx, my = mx+float64(s[2*r])/10, my+float64(s[2*r+1])/10
		}
		if c := centre[targets[i]]; math.Hypot(mx-c[0], my-c[1]) > 0.05 {
			t.Errorf("set %d (class %d): mean (%.3f, %.3f), want within 0.05 of %v", i, targets[i], mx, my, c)
		}
	}
	if slices.Equal(sets[0], sets[2]) {
		t.Error("two entries of class 1 got the same samples; want independent draws")
	}
	again, err := SampleEach(context.Background(), b, bumps(), targets, opts, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sets {
		if !slices.Equal(sets[i], again[i]) {
			t.Errorf("set %d differs between two draws with one seed", i)
		}
	}
	if _, err := SampleEach(context.Background(), b, bumps(), nil, opts, 7); err == nil {
		t.Error("no targets: want an error")
	}
}

// bumps has the logits −½‖x − c_k‖² for c₀ = (−1, 0) and c₁ = (1, 0): E(x|k) = ½‖x − c_k‖².
func bumps() models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		centres := ConvertDType(Const(x.Graph(), [][]float32{{-1, 0}, {1, 0}}), x.DType())
		return MulScalar(ReduceSum(Square(Sub(ExpandAxes(x, 1), ExpandAxes(centres, 0))), -1), -0.5)
	}, 2, 2)
}
