package counterfactual

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
)

// shiftPosterior is the latent map z = x with the posterior q(z|x) = N(x, s²I): decoding is the identity,
// so a resampled search's states can be followed by hand.
type shiftPosterior struct {
	d        int
	logSigma float32
}

func (p shiftPosterior) LatentDim() int { return p.d }
func (p shiftPosterior) Encode(_ compute.Backend, x []float32) ([]float32, error) {
	return append([]float32(nil), x...), nil
}
func (p shiftPosterior) Decode(z *Node) *Node { return z }
func (p shiftPosterior) EncodeGraph(x *Node) (mu, logSigma *Node) {
	return x, AddScalar(ZerosLike(x), float64(p.logSigma))
}

// A Resampled search starts from x + s·ε₀ and, after each gradient step, re-encodes through a fresh
// sample: with the identity decoder and a logistic model, step t is z̃_{t+1} = z_t + η(1 − σ(w·z_t + c))w
// with z_0 = x + s·ε₀ and z_t = z̃_t + s·ε_t, where ε_t is the t-th block of B·D normals of
// data.NewRand(seed); the path records z̃_t (z_0 at step 0), computed here by hand.
func TestResampledLatentStepsByHand(t *testing.T) {
	b := testBackend(t)
	w := []float32{1.5, -2}
	c := float32(-0.25)
	clf := logistic(w, c)
	x := []float32{-1, 0.5, 0.3, 0.4}
	const sigma, eta, seed = 0.3, 0.2, 7
	post := shiftPosterior{d: 2, logSigma: float32(math.Log(sigma))}
	g := REVISE(Params{StepSize: eta, Cost: 0}, Resampled{post})
	res, err := Search(context.Background(), b, clf, g,
		Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 2, Rule: MaxIterations, RecordPath: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	rng := data.NewRand(seed)
	eps := func() []float64 {
		e := make([]float64, len(x))
		for i := range e {
			e[i] = rng.NormFloat64()
		}
		return e
	}
	step := func(z []float64) []float64 {
		out := make([]float64, len(z))
		for i := range 2 {
			a := float64(c) + float64(w[0])*z[2*i] + float64(w[1])*z[2*i+1]
			for j := range 2 {
				out[2*i+j] = z[2*i+j] + eta*(1-sigmoid(a))*float64(w[j])
			}
		}
		return out
	}
	e0 := eps()
	z := make([]float64, len(x))
	for i := range z {
		z[i] = float64(x[i]) + sigma*e0[i]
	}
	want := [][]float64{z}
	for range 2 {
		zt := step(z)
		want = append(want, zt)
		e := eps()
		z = make([]float64, len(zt))
		for i := range z {
			z[i] = zt[i] + sigma*e[i]
		}
	}
	for i := range 2 {
		if len(res.Paths[i]) != 3*2 {
			t.Fatalf("row %d: path of %d values, want 3 states of 2", i, len(res.Paths[i]))
		}
		for s := range 3 {
			for j := range 2 {
				if got := float64(res.Paths[i][2*s+j]); math.Abs(got-want[s][2*i+j]) > 1e-5 {
					t.Errorf("row %d, step %d, feature %d: %v, want %v", i, s, j, got, want[s][2*i+j])
				}
			}
		}
		for j := range 2 {
			if got := float64(res.X[2*i+j]); math.Abs(got-want[2][2*i+j]) > 1e-5 {
				t.Errorf("row %d feature %d: counterfactual %v, want %v", i, j, got, want[2][2*i+j])
			}
		}
	}
	again, err := Search(context.Background(), b, clf, g,
		Request{Factuals: x, Targets: []int{1, 1}, MaxIterations: 2, Rule: MaxIterations, Seed: seed + 1})
	if err != nil {
		t.Fatal(err)
	}
	if slicesEqual(again.X, res.X) {
		t.Errorf("another seed gave the same counterfactuals %v", again.X)
	}
}

// With a posterior of zero spread, the resampled search is the plain latent search, bit for bit.
func TestResampledWithoutSpreadIsThePlainSearch(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{1, -1, 0.5}, -0.5)
	x := []float32{-1, 0.5, 0.3, -0.4, 0.8, -1.2}
	post := shiftPosterior{d: 3, logSigma: -200} // exp(−200) is 0 in float32
	p := Params{StepSize: 0.1, Cost: 0.05}
	q := Request{Factuals: x, Targets: []int{1, 1}, RecordPath: true, Seed: 3}
	plain, err := Search(context.Background(), b, clf, REVISE(p, post), q)
	if err != nil {
		t.Fatal(err)
	}
	resampled, err := Search(context.Background(), b, clf, REVISE(p, Resampled{post}), q)
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(plain.X, resampled.X) || !slicesEqual(plain.Paths[0], resampled.Paths[0]) || !slicesEqual(plain.Paths[1], resampled.Paths[1]) {
		t.Errorf("resampled without spread: %v, plain latent search: %v", resampled.X, plain.X)
	}
	for i := range 2 {
		if plain.Iterations[i] != resampled.Iterations[i] || plain.Converged[i] != resampled.Converged[i] {
			t.Errorf("row %d: %d iterations (converged %v), plain %d (%v)", i, resampled.Iterations[i], resampled.Converged[i], plain.Iterations[i], plain.Converged[i])
		}
	}
}

// The authors'-code ingredients resample REVISE's codes; a latent map without a posterior is an error.
func TestAuthorsREVISEResamples(t *testing.T) {
	in := Ingredients{VAE: shiftPosterior{d: 2}}.WithAuthorsCode()
	g, err := paperGenerator("REVISE", Params{StepSize: 0.1}, in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Latent.(Resampled); !ok {
		t.Errorf("authors'-code REVISE searches %T, want Resampled", g.Latent)
	}
	g, err = paperGenerator("REVISE", Params{StepSize: 0.1}, Ingredients{VAE: shiftPosterior{d: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := g.Latent.(Resampled); ok {
		t.Error("the paper's REVISE resamples its codes")
	}
	_, err = paperGenerator("REVISE", Params{StepSize: 0.1}, Ingredients{VAE: plainLatent{}, ResampleLatent: true})
	if err == nil || !strings.Contains(err.Error(), "posterior") {
		t.Errorf("REVISE resampling a map without a posterior: error %v", err)
	}
}

type plainLatent struct{ shiftPosterior }

func (plainLatent) EncodeGraph() {}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// Schut's greedy step on a logistic model whose steepest feature already sits on its upper bound: blind to
// the bounds (the authors' JSMADescent) it picks that feature, the clamp undoes the move and the change
// counts, until the feature is frozen after n = 2 changes; otherwise the next-steepest feature moves at once.
func TestJSMABoundsBlindWastesStepsOnABound(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{2, 1}, -3)
	const eta = 0.5
	q := Request{Factuals: []float32{1, 0}, Targets: []int{1}, Lower: []float32{-1, -1}, Upper: []float32{1, 1},
		MaxIterations: 3, Rule: MaxIterations, RecordPath: true}
	for _, tc := range []struct {
		blind bool
		want  []float32
	}{
		{true, []float32{1, 0, 1, 0, 1, 0, 1, 0.5}},
		{false, []float32{1, 0, 1, 0.5, 1, 1, 1, 1}},
	} {
		g := Schut(Params{StepSize: eta})
		g.JSMA.MaxChanges, g.JSMA.BoundsBlind = 2, tc.blind
		res, err := Search(context.Background(), b, clf, g, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slicesEqual(res.Paths[0], tc.want) {
			t.Errorf("bounds-blind %v: path %v, want %v", tc.blind, res.Paths[0], tc.want)
		}
	}
	in := Ingredients{}.WithAuthorsCode()
	g, err := paperGenerator("Schut", Params{StepSize: eta}, in)
	if err != nil {
		t.Fatal(err)
	}
	if !g.JSMA.BoundsBlind {
		t.Error("the authors'-code Schut respects the bounds when it chooses")
	}
}

// The decayed energy penalty alone on a logistic model: E(x′|1) = −(w·x′ + c) has gradient −w, so step t
// moves x′ by η·ϕ_t·w with ϕ_t = exp(−0.1·t) at t = 0, 5, 10, … and 1 otherwise (ECCCo.jl's decay (0.1, 5)).
func TestDecayedEnergyStepsByHand(t *testing.T) {
	b := testBackend(t)
	w := []float32{1, -0.5}
	clf := logistic(w, -5)
	const eta, rate, every = 0.1, 0.1, 5
	noLoss := func(s *State) *Node { return ReduceSum(MulScalar(s.X, 0), -1) }
	g := &Generator{Name: "energy only", StepSize: eta, Loss: noLoss, Stepwise: true, Penalties: []Penalty{{Name: "energy", Weight: 1, Term: DecayedEnergyPenalty(0, rate, every)}}}
	res, err := Search(context.Background(), b, clf, g,
		Request{Factuals: []float32{0, 0}, Targets: []int{1}, MaxIterations: 11, Rule: MaxIterations, RecordPath: true})
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0, 0}
	for step := range 11 {
		phi := 1.0
		if step%every == 0 {
			phi = math.Exp(-rate * float64(step))
		}
		for j := range 2 {
			x[j] += eta * phi * float64(w[j])
			if got := float64(res.Paths[0][2*(step+1)+j]); math.Abs(got-x[j]) > 1e-5 {
				t.Errorf("after step %d, feature %d: %v, want %v (ϕ = %.4f)", step, j, got, x[j], phi)
			}
		}
	}
	p := testRows["moons"].params
	p.DecayRate, p.DecayEvery = rate, every
	if g := ECCCoNoCP(p); g.Penalties[1].Name != "energy (decay 0.1 every 5)" || !g.Stepwise {
		t.Errorf("decayed energy penalty named %q, stepwise %v", g.Penalties[1].Name, g.Stepwise)
	}
}

// ECCCo+'s re-encoding, by hand, on a one-component PCA of two features (x = z·(0.6, 0.8), μ = 0) with
// x₁ ≤ 0.1 and a logistic model that reads x₂ alone (p(1|x) = σ(x₂ − 1)): the step is
// z ← s + η·0.8·(1 − σ(0.8·s − 1)), taken plainly at s = z, and after step 0 re-encoded at
// s = 0.6·min(0.6·z, 0.1) + 0.8·(0.8·z), the code of the clamped counterfactual, which differs once x₁ hits
// its bound. The clamp's own gradient plays no part (the loss does not read x₁).
func TestReencodedFollowsTheClamp(t *testing.T) {
	b := testBackend(t)
	clf := logistic([]float32{0, 1}, -1)
	pca := &PCA{Mean: []float32{0, 0}, Components: []float32{0.6, 0.8}, Variances: []float64{1}, d: 2, k: 1}
	const eta, steps = 0.5, 4
	q := Request{Factuals: []float32{0, 0}, Targets: []int{1}, Lower: []float32{-1, -1}, Upper: []float32{0.1, 1},
		MaxIterations: steps, Rule: MaxIterations, RecordPath: true}
	step := func(s float64) float64 { return s + eta*0.8*(1-sigmoid(0.8*s-1)) }
	x := func(z float64) []float64 { return []float64{math.Min(0.6*z, 0.1), 0.8 * z} }
	for _, tc := range []struct {
		name   string
		latent LatentMap
		encode func(z float64) float64
	}{
		{"plain", pca, func(z float64) float64 { return z }},
		{"re-encoded", Reencoded{pca}, func(z float64) float64 { c := x(z); return 0.6*c[0] + 0.8*c[1] }},
	} {
		res, err := Search(context.Background(), b, clf, &Generator{Name: tc.name, StepSize: eta, Latent: tc.latent}, q)
		if err != nil {
			t.Fatal(err)
		}
		z := 0.0
		for st := range steps + 1 {
			for j, want := range x(z) {
				if got := float64(res.Paths[0][2*st+j]); math.Abs(got-want) > 1e-5 {
					t.Errorf("%s, step %d, feature %d: %v, want %v", tc.name, st, j, got, want)
				}
			}
			s := z
			if st > 0 {
				s = tc.encode(z)
			}
			z = step(s)
		}
	}
	if g, err := paperGenerator("ECCCo+", Params{StepSize: eta}, Ingredients{Calibrated: &conformal.Calibrated{}, PCA: pca}.WithAuthorsCode()); err != nil {
		t.Fatal(err)
	} else if _, ok := g.Latent.(Reencoded); !ok {
		t.Errorf("the authors'-code ECCCo+ searches %T, want Reencoded", g.Latent)
	}
}
