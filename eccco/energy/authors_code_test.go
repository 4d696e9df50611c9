package energy

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

// linearLogits is a classifier with logits x·W for a fixed d×k matrix W (row-major).
func linearLogits(w []float32, d, k int) models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		return MatMul(x, Reshape(Const(x.Graph(), w), d, k))
	}, d, k)
}

// The authors' prior spans the overall range of the data: every feature gets [min X, max X].
func TestExtremaPrior(t *testing.T) {
	ds := &data.Dataset{Name: "t", FeatureNames: []string{"a", "b", "c"}, ClassNames: []string{"0", "1"},
		X: []float32{0.5, -3, 10, 2, 1, 4}, Y: []int{0, 1}}
	p, err := ExtremaPrior(ds)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		if p.Lower[j] != -3 || p.Upper[j] != 10 {
			t.Errorf("feature %d: [%v, %v], want [−3, 10]", j, p.Lower[j], p.Upper[j])
		}
	}
	if _, err := ExtremaPrior(&data.Dataset{}); err == nil {
		t.Error("empty data set: no error")
	}
}

// With SharedStart = 1 every chain of a class starts at one point, and with the batch-mean quirk
// each chain's step is the gradient divided by the chains of its own class, not of the whole batch.
// Logits x·W with W = [[1, −2], [0.5, 3]] give ∇E(x|k) = −W[:,k], so one noiseless step of φ = 2 moves
// every chain of class k by W[:,k]/Chains.
func TestSharedStartAndPerClassBatchMean(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -2, 0.5, 3}
	clf := linearLogits(w, 2, 2)
	prior := Prior{Lower: []float32{-1, -1}, Upper: []float32{1, 1}}
	const chains = 4
	sample := func(steps int) []*ClassSamples {
		t.Helper()
		opts := ClassOptions{SGLD: SGLD{StepSize: 2, NoiseSD: 0, Steps: steps, BatchMeanGrad: true},
			Prior: prior, Chains: chains, Keep: chains, SharedStart: 1}
		per, err := SamplePerClass(context.Background(), b, clf, opts, 7)
		if err != nil {
			t.Fatal(err)
		}
		return per
	}
	one, two := sample(1), sample(2)
	for k := range 2 {
		x1, x2 := one[k].X, two[k].X
		for c := 1; c < chains; c++ {
			if x1[2*c] != x1[0] || x1[2*c+1] != x1[1] {
				t.Fatalf("class %d: chains did not start at one shared point: %v", k, x1)
			}
		}
		for j := range 2 {
			step := float64(x2[j] - x1[j])
			want := float64(w[j*2+k]) / chains
			if math.Abs(step-want) > 1e-5 {
				t.Errorf("class %d feature %d: step %v, want W/Chains = %v", k, j, step, want)
			}
		}
	}
	if one[0].X[0] == one[1].X[0] && one[0].X[1] == one[1].X[1] {
		t.Error("both classes started at the same point; each class should draw its own")
	}
	if _, err := SampleClass(context.Background(), b, clf, 0, ClassOptions{SGLD: DefaultSGLD(), Prior: prior, SharedStart: 1.5}, 1); err == nil {
		t.Error("SharedStart = 1.5: no error")
	}
}

// Ranking by −log softmax (the authors' get_lowest_energy_sample): the energies returned are
// −log softmax_y(x) of the returned rows, computed here by hand from the linear logits, ascending,
// and keeping fewer samples keeps the head of the same ranking.
func TestRankByLogSoftmax(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, 2, 1, -1}
	clf := linearLogits(w, 2, 2)
	prior := Prior{Lower: []float32{-2, -2}, Upper: []float32{2, 2}}
	opts := ClassOptions{SGLD: SGLD{StepSize: 2, NoiseSD: 0.3, Steps: 3}, Prior: prior, Chains: 20, Keep: 20, RankByLogSoftmax: true}
	all, err := SampleClass(context.Background(), b, clf, 1, opts, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range all.Energies {
		x0, x1 := float64(all.X[2*i]), float64(all.X[2*i+1])
		l0, l1 := x0*1+x1*1, x0*2-x1
		want := math.Log(math.Exp(l0)+math.Exp(l1)) - l1
		if math.Abs(float64(e)-want) > 1e-4 {
			t.Errorf("sample %d: energy %v, want −log softmax_1 = %v", i, e, want)
		}
		if i > 0 && e < all.Energies[i-1] {
			t.Errorf("energies not ascending at %d: %v", i, all.Energies)
		}
	}
	opts.Keep = 5
	head, err := SampleClass(context.Background(), b, clf, 1, opts, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range head.X {
		if head.X[i] != all.X[i] {
			t.Fatalf("Keep = 5 is not the head of the Keep = 20 ranking: %v vs %v", head.X, all.X[:10])
		}
	}
}

// AuthorsClassOptions assembles the authors' sampler: the given prior, clipped batch-mean SGLD clamped
// to the prior, 50/25, 95 % shared start, −log softmax ranking.
func TestAuthorsClassOptions(t *testing.T) {
	prior, err := ExtremaPrior(blobs(20, 1))
	if err != nil {
		t.Fatal(err)
	}
	o := AuthorsClassOptions(prior)
	if o.Chains != 50 || o.Keep != 25 || o.SharedStart != 0.95 || !o.RankByLogSoftmax ||
		o.SGLD.ClipGrad != 0.01 || !o.SGLD.BatchMeanGrad || o.SGLD.StepSize != 2 || o.SGLD.NoiseSD != 0.01 || o.SGLD.Steps != 500 {
		t.Errorf("unexpected options %+v", o)
	}
	if o.Prior.Lower[0] != o.Prior.Lower[1] || o.SGLD.Lower[0] != o.Prior.Lower[0] || o.SGLD.Upper[1] != o.Prior.Upper[1] {
		t.Errorf("prior/clamp box %v %v / %v %v", o.Prior.Lower, o.Prior.Upper, o.SGLD.Lower, o.SGLD.Upper)
	}
}

// Samples the model is sure of must still be ranked: with logits (0, 40·x₀) and x₀ ∈ [0.3, 0.8],
// −log softmax₁ = log(1 + e^{−40·x₀}) ≈ e^{−40·x₀} lies between 1e-14 and 6e-6; float32 log-softmax
// rounds it to 0 wherever x₀ > 0.41, tying most samples. The energies must be the hand-computed values
// (to 0.1 % plus 1e-14, the float64 rounding of logit + log-sum-exp at logits near 30), all positive and strictly ascending, so
// the lowest-energy samples are the ones with the largest x₀.
func TestRankByLogSoftmaxSeparatesConfidentSamples(t *testing.T) {
	b := testBackend(t)
	clf := linearLogits([]float32{0, 40, 0, 0}, 2, 2)
	prior := Prior{Lower: []float32{0.3, -1}, Upper: []float32{0.8, 1}}
	opts := ClassOptions{SGLD: SGLD{StepSize: 2, NoiseSD: 0.001, Steps: 1, ClipGrad: 0.001, Lower: prior.Lower, Upper: prior.Upper},
		Prior: prior, Chains: 30, Keep: 30, RankByLogSoftmax: true}
	s, err := SampleClass(context.Background(), b, clf, 1, opts, 9)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range s.Energies {
		want := math.Log1p(math.Exp(-40 * float64(s.X[2*i])))
		if e <= 0 || math.Abs(float64(e)-want) > 1e-3*want+1e-14 {
			t.Errorf("sample %d (x₀ = %v): energy %g, want %g", i, s.X[2*i], e, want)
		}
		if i > 0 && (e <= s.Energies[i-1] || s.X[2*i] >= s.X[2*(i-1)]) {
			t.Errorf("sample %d: energy %g after %g, x₀ %v after %v: want strictly ascending energies, descending x₀", i, e, s.Energies[i-1], s.X[2*i], s.X[2*(i-1)])
		}
	}
}
