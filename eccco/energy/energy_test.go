package energy

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gaussianEnergy is E(x) = ½ Σ_j ((x_j − μ_j)/s_j)², the energy of N(μ, diag(s²)).
func gaussianEnergy(mu, s []float64) Energy {
	return Unconditional(func(x *Node) *Node {
		g := x.Graph()
		d := len(mu)
		m := Reshape(ConstAsDType(g, x.DType(), mu), 1, d)
		sc := Reshape(ConstAsDType(g, x.DType(), s), 1, d)
		z := Div(Sub(x, m), sc)
		return MulScalar(ReduceSum(Square(z), -1), 0.5)
	})
}

func meanVar(samples []float32, d, j int) (mean, variance float64) {
	n := len(samples) / d
	for i := range n {
		mean += float64(samples[i*d+j])
	}
	mean /= float64(n)
	for i := range n {
		v := float64(samples[i*d+j]) - mean
		variance += v * v
	}
	return mean, variance / float64(n-1)
}

// Known answer: the unbiased sampler on a Gaussian energy reproduces the Gaussian's mean and variance.
//
// Tolerances. Chains are autocorrelated in time, so only the final state of each of the n = 4000
// independent chains is used: the sample mean of dimension j has standard error s_j/√n and must lie
// within 3 of them; the sample variance has relative standard error √(2/(n−1)) ≈ 2.2%. The discretised
// (unadjusted) Langevin chain on this energy is an AR(1) process x' = (1−a)x + aμ + √ε·ξ with
// a = ε/(2s²), whose stationary variance is s²/(1 − a/2): a relative bias of a/2 = ε/(4s²), 2% for the
// narrow dimension (s = 0.5) at ε = 0.02 and 0.1% for the wide one. The variance must be within 10% of
// s², i.e. the 2% bias plus ≈ 3.6 standard errors. Burn-in: from x0 = 0 the mean error decays like
// (1−a)^J; with J = 3000 steps the slowest dimension (a = 0.0025) keeps 2·e^{−7.5} ≈ 0.001 of its initial
// offset, far inside the tolerance.
func TestUnbiasedSGLDGaussianKnownAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("3000 SGLD steps on 4000 chains (seconds); TestBiasedSGLDGaussianStationaryLaw checks the sampler's law on 300")
	}
	b := testBackend(t)
	mu, s := []float64{1, -2}, []float64{0.5, 2}
	const n, d, eps = 4000, 2, 0.02
	cfg := SGLD{StepSize: eps, Unbiased: true, Steps: 3000, StepsPerCall: 20}
	samples, energies, err := cfg.Sample(context.Background(), b, gaussianEnergy(mu, s), make([]float32, n*d), nil, d, 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(energies) != n {
		t.Fatalf("%d energies, want %d", len(energies), n)
	}
	for j := range d {
		m, v := meanVar(samples, d, j)
		se := s[j] / math.Sqrt(n)
		t.Logf("dim %d: mean %.4f (truth %.4f, tol %.4f = 3 se), variance %.4f (truth %.4f, tol 10%%, rel err %.2f%%)",
			j, m, mu[j], 3*se, v, s[j]*s[j], 100*math.Abs(v/(s[j]*s[j])-1))
		if math.Abs(m-mu[j]) > 3*se {
			t.Errorf("dim %d: mean %.4f, want %.4f ± %.4f", j, m, mu[j], 3*se)
		}
		if math.Abs(v/(s[j]*s[j])-1) > 0.10 {
			t.Errorf("dim %d: variance %.4f, want %.4f ± 10%%", j, v, s[j]*s[j])
		}
	}
}

// The biased form x ← x − (φ/2)∇E + σξ on a Gaussian is the AR(1) process with a = φ/(2s²) and noise σ,
// whose stationary variance is σ²/(a(2−a)) and mean μ: this checks that φ and σ enter where they should.
func TestBiasedSGLDGaussianStationaryLaw(t *testing.T) {
	b := testBackend(t)
	mu, s := []float64{0.5}, []float64{1}
	const n, phi, sigma = 4000, 0.2, 0.05
	cfg := SGLD{StepSize: phi, NoiseSD: sigma, Steps: 300}
	samples, _, err := cfg.Sample(context.Background(), b, gaussianEnergy(mu, s), make([]float32, n), nil, 1, 7)
	if err != nil {
		t.Fatal(err)
	}
	a := phi / (2 * s[0] * s[0])
	wantVar := sigma * sigma / (a * (2 - a))
	m, v := meanVar(samples, 1, 0)
	t.Logf("biased: mean %.4f (truth 0.5), variance %.5f (AR(1) truth %.5f)", m, v, wantVar)
	if math.Abs(m-mu[0]) > 3*math.Sqrt(wantVar/n) {
		t.Errorf("mean %.4f, want %.4f", m, mu[0])
	}
	if math.Abs(v/wantVar-1) > 0.10 {
		t.Errorf("variance %.5f, want %.5f ± 10%%", v, wantVar)
	}
}

func TestSameSeedSameSamples(t *testing.T) {
	b := testBackend(t)
	e := gaussianEnergy([]float64{0, 0, 0}, []float64{1, 1, 1})
	cfg := DefaultSGLD()
	cfg.Steps, cfg.StepSize, cfg.NoiseSD = 25, 0.1, 0.5
	x0 := data.NewRand(1).NormFloat64()
	start := []float32{float32(x0), 1, 2, 3, 4, 5}
	s1, _, err := cfg.Sample(context.Background(), b, e, start, nil, 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	s2, _, _ := cfg.Sample(context.Background(), b, e, start, nil, 3, 5)
	s3, _, _ := cfg.Sample(context.Background(), b, e, start, nil, 3, 6)
	same, diff := true, false
	for i := range s1 {
		same = same && s1[i] == s2[i]
		diff = diff || s1[i] != s3[i]
	}
	if !same {
		t.Errorf("same seed gave different samples: %v vs %v", s1, s2)
	}
	if !diff {
		t.Errorf("different seeds gave identical samples")
	}
	if start[1] != 1 {
		t.Errorf("Sample modified its start points")
	}
}

// smallNet is a 3-4-3 tanh network with fixed weights, in float64, as a models.Classifier.
func smallNet() models.Classifier {
	w1 := [][]float64{{0.3, -1.2, 0.7, 0.1}, {1.1, 0.4, -0.6, 0.9}, {-0.5, 0.8, 0.2, -1.3}}
	b1 := []float64{0.1, -0.2, 0.05, 0.3}
	w2 := [][]float64{{1.0, -0.7, 0.2}, {0.3, 0.9, -1.1}, {-0.8, 0.4, 0.6}, {0.5, -0.2, 1.3}}
	b2 := []float64{0.2, -0.1, 0.0}
	fn := func(_ *model.Scope, x *Node) *Node {
		g := x.Graph()
		h := Tanh(Add(DotProduct(x, ConstAsDType(g, x.DType(), w1)), Reshape(ConstAsDType(g, x.DType(), b1), 1, 4)))
		return Add(DotProduct(h, ConstAsDType(g, x.DType(), w2)), Reshape(ConstAsDType(g, x.DType(), b2), 1, 3))
	}
	return models.FromFunc(model.NewStore(), fn, 3, 3)
}

// The input gradient of E(x|y) = −logit_y(x), as the sampler computes it, matches central differences in
// float64.
func TestEnergyGradientMatchesFiniteDifferences(t *testing.T) {
	b := testBackend(t)
	clf := smallNet()
	x := [][]float64{{0.2, -0.4, 1.1}, {-1.0, 0.5, 0.3}, {0.7, 0.7, -0.9}}
	y := []int32{0, 2, 1}
	en := ClassifierEnergy(clf)
	gradExec := MustNewExec(b, func(x, y *Node) *Node { return InputGradient(en, x, y) })
	energyExec := MustNewExec(b, func(x, y *Node) *Node { return en(x, y) })
	grad := gradExec.MustCall1(x, y).Value().([][]float64)
	const h = 1e-6
	maxErr := 0.0
	for i := range x {
		for j := range x[i] {
			xp, xm := clone2(x), clone2(x)
			xp[i][j] += h
			xm[i][j] -= h
			ep := energyExec.MustCall1(xp, y).Value().([]float64)
			em := energyExec.MustCall1(xm, y).Value().([]float64)
			fd := (ep[i] - em[i]) / (2 * h)
			maxErr = max(maxErr, math.Abs(fd-grad[i][j]))
		}
	}
	t.Logf("max |autodiff − central difference| = %.3g", maxErr)
	if maxErr > 1e-7 {
		t.Errorf("gradient differs from finite differences by %.3g", maxErr)
	}
	// And the energy is minus the chosen logit.
	logits := MustExecOnce(b, func(x *Node) *Node { return clf.Logits(x) }, x).Value().([][]float64)
	e := energyExec.MustCall1(x, y).Value().([]float64)
	for i := range x {
		if math.Abs(e[i]+logits[i][y[i]]) > 1e-12 {
			t.Errorf("E(x_%d|%d) = %v, want −logit %v", i, y[i], e[i], logits[i][y[i]])
		}
	}
}

func clone2(x [][]float64) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		out[i] = append([]float64(nil), x[i]...)
	}
	return out
}

// For an ensemble the conditional energy is the mean of the members' energies.
func TestEnsembleEnergyIsMeanMemberEnergy(t *testing.T) {
	b := testBackend(t)
	m, err := models.New(b, models.Spec{Kind: models.KindMLPEnsemble, NumFeatures: 2, NumClasses: 3, Hidden: 4, Layers: 1, Activation: "relu", Members: 3}, 9)
	if err != nil {
		t.Fatal(err)
	}
	x := [][]float32{{0.3, -1}, {2, 0.5}}
	y := []int32{2, 0}
	got := model.MustNewExec(b, model.NewStore(), func(_ *model.Scope, x, y *Node) *Node { return ConditionalEnergy(m, y)(x) }).MustCall1(x, y).Value().([]float32)
	want := model.MustNewExec(b, model.NewStore(), func(_ *model.Scope, x, y *Node) *Node {
		var sum *Node
		for i := range m.NumMembers() {
			oh := OneHot(y, 3, x.DType())
			e := Neg(ReduceSum(Mul(oh, m.MemberLogits(x, i)), -1))
			if sum == nil {
				sum = e
			} else {
				sum = Add(sum, e)
			}
		}
		return DivScalar(sum, float64(m.NumMembers()))
	}).MustCall1(x, y).Value().([]float32)
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-5 {
			t.Errorf("ensemble energy %v, mean member energy %v", got, want)
		}
	}
}
