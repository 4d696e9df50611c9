package conformal

import (
	"math"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
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

// evalLogits runs fn on float64 logits (rows of K values) and returns its flat float64 output.
func evalLogits(t *testing.T, logits [][]float64, fn func(l *Node) *Node) []float64 {
	t.Helper()
	exec, err := NewExec(testBackend(t), fn)
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	out, err := exec.Call1(tensors.FromValue(logits))
	if err != nil {
		t.Fatal(err)
	}
	return tensors.MustCopyFlatData[float64](out)
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, tol)
	}
}

func TestQuantile(t *testing.T) {
	scores := []float64{1.0, 0.3, 0.5, 0.2, 0.9, 0.1, 0.4, 0.8, 0.6, 0.7} // 0.1 … 1.0, shuffled
	for _, c := range []struct {
		alpha  float64
		finite bool
		want   float64
	}{
		// Type 7: h = (n−1)(1−α) = 9·0.9 = 8.1 → v[8] + 0.1·(v[9] − v[8]) = 0.9 + 0.1·0.1 (0-based v).
		{0.1, false, 0.91},
		// h = 9·0.5 = 4.5 → (0.5 + 0.6)/2.
		{0.5, false, 0.55},
		// ⌈11·0.8⌉ = ⌈8.8⌉ = 9 → 9th smallest = 0.9.
		{0.2, true, 0.9},
		// ⌈11·0.9⌉ = ⌈9.9⌉ = 10 → 1.0.
		{0.1, true, 1.0},
		// ⌈11·0.95⌉ = 11 > n → 1 (all classes).
		{0.05, true, 1.0},
		// ⌈11·0.5⌉ = 6 → 0.6.
		{0.5, true, 0.6},
	} {
		got, err := Quantile(scores, c.alpha, c.finite)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "quantile", got, c.want, 1e-12)
	}
	if scores[0] != 1.0 || scores[1] != 0.3 {
		t.Error("Quantile modified its input")
	}
	// Exact products: (9+1)·(1−0.1) is 9 in exact arithmetic, so the rank is 9, not 10.
	nine := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	got, _ := Quantile(nine, 0.1, true)
	near(t, "rank-9 quantile", got, 0.9, 0)
}

// Logits log(0.7), log(0.2), log(0.1) give softmax (0.7, 0.2, 0.1) and scores s = (0.3, 0.8, 0.9).
var handLogits = [][]float64{{math.Log(0.7), math.Log(0.2), math.Log(0.1)}}

func TestSmoothSetSizeHandComputed(t *testing.T) {
	// q̂ = 0.5, T = 0.1: z = (q̂ − s)/T = (2, −3, −4); σ(2) = 0.8807970780, σ(−3) = 0.0474258732,
	// σ(−4) = 0.0179862100; Σ = 0.9462091612. κ = 1 → Ω = 0; κ = 0 → Ω = 0.9462091612.
	near(t, "Ω(q̂=.5, κ=1)", evalLogits(t, handLogits, func(l *Node) *Node { return SmoothSetSize(l, 0.5, 0.1, 1) })[0], 0, 1e-12)
	near(t, "Ω(q̂=.5, κ=0)", evalLogits(t, handLogits, func(l *Node) *Node { return SmoothSetSize(l, 0.5, 0.1, 0) })[0], 0.9462091612, 1e-9)
	// q̂ = 0.85: z = (5.5, 0.5, −0.5); σ(5.5) = 0.9959298623, σ(0.5) + σ(−0.5) = 1; Σ = 1.9959298623,
	// κ = 1 → Ω = 0.9959298623. The hard set {0, 1} has size 2.
	near(t, "Ω(q̂=.85, κ=1)", evalLogits(t, handLogits, func(l *Node) *Node { return SmoothSetSize(l, 0.85, 0.1, 1) })[0], 0.9959298623, 1e-9)
	near(t, "hard size", evalLogits(t, handLogits, func(l *Node) *Node { return HardSetSize(l, 0.85) })[0], 2, 0)
	c := evalLogits(t, handLogits, func(l *Node) *Node { return SoftAssignment(l, 0.85, 0.1) })
	for k, want := range []float64{0.9959298623, 0.6224593312, 0.3775406688} {
		near(t, "C_k", c[k], want, 1e-9)
	}
	// Gating: target 0 has p = 0.7 ≥ 0.5 (Ω kept), target 2 has p = 0.1 (Ω zeroed).
	gated := evalLogits(t, [][]float64{handLogits[0], handLogits[0]}, func(l *Node) *Node {
		return GateBelowHalf(SmoothSetSize(l, 0.85, 0.1, 1), l, Const(l.Graph(), []int32{0, 2}))
	})
	near(t, "gated Ω, target 0", gated[0], 0.9959298623, 1e-9)
	near(t, "gated Ω, target 2", gated[1], 0, 0)
	// Empty-set rule: p = (0.5, 0.5), q̂ = 0.3: both scores 0.5 > q̂, so the hard set is empty.
	// z = (0.3 − 0.5)/0.1 = −2, C = σ(−2) = 0.1192029220 each. Paper Ω (κ = 0) = 0.2384058440;
	// the rule gives Σ(1 − C) − κ = 1.7615941560 − 1 = 0.7615941560 (κ = 1).
	even := [][]float64{{0, 0}}
	near(t, "Ω empty, paper", evalLogits(t, even, func(l *Node) *Node { return SmoothSetSize(l, 0.3, 0.1, 0) })[0], 0.2384058440, 1e-9)
	near(t, "Ω empty, rule", evalLogits(t, even, func(l *Node) *Node { return SmoothSetSizeEmptyRule(l, 0.3, 0.1, 1) })[0], 0.7615941560, 1e-9)
	// A non-empty set is unaffected by the rule.
	near(t, "Ω non-empty, rule", evalLogits(t, handLogits, func(l *Node) *Node { return SmoothSetSizeEmptyRule(l, 0.85, 0.1, 1) })[0], 0.9959298623, 1e-9)
}

func TestConfigurableLossHandComputed(t *testing.T) {
	loss := func(target int32, q float64, opts LossOptions) float64 {
		return evalLogits(t, handLogits, func(l *Node) *Node {
			return ConfigurableLoss(l, Const(l.Graph(), []int32{target}), q, 0.1, opts)
		})[0]
	}
	// q̂ = 0.85, C = (0.9959298623, 0.6224593312, 0.3775406688), z = (5.5, 0.5, −0.5).
	// Stutz, L = I, target 1: 1 − C_1 = 0.3775406688.
	near(t, "Stutz L=I y=1", loss(1, 0.85, LossOptions{}), 0.3775406688, 1e-9)
	// Stutz, L row 0 = (1, 0.5, 2), target 0: (1 − C_0) + 0.5·C_1 + 2·C_2
	// = 0.0040701377 + 0.3112296656 + 0.7550813376 = 1.0703811409.
	m := [][]float64{{1, 0.5, 2}, {0, 1, 0}, {0, 0, 1}}
	near(t, "Stutz L y=0", loss(0, 0.85, LossOptions{Matrix: m}), 1.0703811409, 1e-9)
	// Log-odds, L = I, target 1: −z_1 = −0.5.
	near(t, "log-odds L=I y=1", loss(1, 0.85, LossOptions{Form: LossLogOdds}), -0.5, 1e-9)
	// Log-odds, L row 0 = (1, 0.5, 2), target 0: −5.5 + 0.5·0.5 + 2·(−0.5) = −6.25.
	near(t, "log-odds L y=0", loss(0, 0.85, LossOptions{Matrix: m, Form: LossLogOdds}), -6.25, 1e-9)
	// q̂ = 0.5, target 0: 1 − σ(2) = 0.1192029220.
	near(t, "Stutz L=I y=0 q=.5", loss(0, 0.5, LossOptions{}), 0.1192029220, 1e-9)
}

// As T → 0, C_k → 1[s_k < q̂], so Ω + κ (with Σ C_k ≥ κ) tends to the hard set size.
func TestSmallTemperatureGivesHardSize(t *testing.T) {
	rng := data.NewRand(3)
	const n, k = 200, 4
	logits := make([][]float64, n)
	for i := range logits {
		logits[i] = make([]float64, k)
		for j := range logits[i] {
			logits[i][j] = rng.NormFloat64()
		}
	}
	const qHat = 0.85
	smooth := evalLogits(t, logits, func(l *Node) *Node { return SmoothSetSize(l, qHat, 1e-4, 0) })
	hard := evalLogits(t, logits, func(l *Node) *Node { return HardSetSize(l, qHat) })
	sizes := map[float64]int{}
	for i := range n {
		// Count the hard set in Go, independently of the graph.
		lse := 0.0
		for _, v := range logits[i] {
			lse += math.Exp(v)
		}
		count, margin := 0, math.Inf(1)
		for _, v := range logits[i] {
			s := 1 - math.Exp(v)/lse
			margin = min(margin, math.Abs(s-qHat))
			if s <= qHat {
				count++
			}
		}
		if margin < 1e-2 {
			continue // within 100·T of the threshold the sigmoid has not saturated yet
		}
		sizes[hard[i]]++
		near(t, "hard size", hard[i], float64(count), 0)
		near(t, "smooth size at T=1e-4", smooth[i], float64(count), 1e-12)
	}
	if len(sizes) < 3 {
		t.Errorf("test points cover set sizes %v only; want at least 3 distinct sizes", sizes)
	}
}

// testMLP is a fixed 2-4-3 tanh network whose weights are constants in x's dtype.
func testMLP() models.Classifier {
	w1 := [][]float64{{1.2, -0.7, 0.3, 0.9}, {-0.4, 1.1, 0.8, -1.3}}
	b1 := []float64{0.1, -0.2, 0.05, 0.3}
	w2 := [][]float64{{0.9, -1.1, 0.4}, {-0.6, 0.8, 1.0}, {1.3, 0.2, -0.9}, {-0.5, 1.2, 0.7}}
	b2 := []float64{0.2, -0.1, 0.0}
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		g, dt := x.Graph(), x.DType()
		c := func(v any) *Node { return ConvertDType(Const(g, v), dt) }
		h := Tanh(Add(Dot(x, c(w1)).Product(), ExpandAxes(c(b1), 0)))
		return Add(Dot(h, c(w2)).Product(), ExpandAxes(c(b2), 0))
	}, 2, 3)
}

// Gradients of ΣΩ and of the summed configurable losses with respect to x agree with central finite
// differences in float64.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	b := testBackend(t)
	x0 := [][]float64{{0.3, -0.2}, {-0.8, 0.5}, {1.1, 0.9}, {0.1, 0.05}}
	targets := []int32{0, 1, 2, 1}
	cal := &Calibrated{Clf: testMLP(), QHat: 0.6, Opts: Options{Alpha: 0.1, Temperature: 0.1, Kappa: 1}, NumCalibration: 1}
	m := [][]float64{{1, 0.3, 0.2}, {0.5, 1, 0}, {0.1, 0.4, 1}}
	for _, c := range []struct {
		name string
		f    func(x *Node) *Node
	}{
		{"Ω", cal.SmoothSetSize},
		{"Ω κ=0", (&Calibrated{Clf: cal.Clf, QHat: 0.6, Opts: Options{Alpha: 0.1, Temperature: 0.1}}).SmoothSetSize},
		{"Stutz loss", func(x *Node) *Node { return cal.ConfigurableLoss(x, Const(x.Graph(), targets), LossOptions{Matrix: m}) }},
		{"log-odds loss", func(x *Node) *Node {
			return cal.ConfigurableLoss(x, Const(x.Graph(), targets), LossOptions{Matrix: m, Form: LossLogOdds})
		}},
	} {
		rows := MustNewExec(b, c.f)
		vals, err := rows.Call1(tensors.FromValue(x0))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range tensors.MustCopyFlatData[float64](vals) {
			if c.name == "Ω" && !(v > 1e-3) {
				t.Fatalf("%s: row %d has Ω = %v; pick points away from the max(0, ·) kink", c.name, i, v)
			}
		}
		sum := MustNewExec(b, func(x *Node) *Node { return ReduceAllSum(c.f(x)) })
		grad := MustNewExec(b, func(x *Node) *Node { return Gradient(ReduceAllSum(c.f(x)), x)[0] })
		g := tensors.MustCopyFlatData[float64](grad.MustCall1(tensors.FromValue(x0)))
		const h = 1e-5
		maxErr := 0.0
		for i := range x0 {
			for j := range x0[i] {
				at := func(d float64) float64 {
					x := make([][]float64, len(x0))
					for r := range x0 {
						x[r] = slices.Clone(x0[r])
					}
					x[i][j] += d
					return tensors.MustCopyFlatData[float64](sum.MustCall1(tensors.FromValue(x)))[0]
				}
				fd := (at(h) - at(-h)) / (2 * h)
				got := g[i*2+j]
				e := math.Abs(got-fd) / max(1, math.Abs(fd))
				maxErr = max(maxErr, e)
				if e > 1e-6 {
					t.Errorf("%s: d/dx[%d][%d] = %.10g, finite difference %.10g", c.name, i, j, got, fd)
				}
			}
		}
		t.Logf("%s: max relative gradient error vs finite differences %.2e", c.name, maxErr)
		rows.Finalize()
		sum.Finalize()
		grad.Finalize()
	}
}

func TestGatedSmoothSetSizeZeroesLowTargetProbability(t *testing.T) {
	b := testBackend(t)
	cal := &Calibrated{Clf: testMLP(), QHat: 0.6, Opts: Options{Alpha: 0.1, Temperature: 0.1, Kappa: 1}}
	x0 := [][]float64{{0.3, -0.2}, {-0.8, 0.5}, {1.1, 0.9}, {0.1, 0.05}}
	targets := []int32{0, 1, 2, 1}
	out := MustNewExec(b, func(x *Node) []*Node {
		t := Const(x.Graph(), targets)
		return []*Node{cal.GatedSmoothSetSize(x, t), cal.SmoothSetSize(x), Softmax(cal.Clf.Logits(x), -1)}
	}).MustCall(tensors.FromValue(x0))
	gated, plain, probs := tensors.MustCopyFlatData[float64](out[0]), tensors.MustCopyFlatData[float64](out[1]), tensors.MustCopyFlatData[float64](out[2])
	opened := 0
	for i, y := range targets {
		want := plain[i]
		if probs[i*3+int(y)] < 0.5 {
			want = 0
		} else {
			opened++
		}
		near(t, "gated Ω", gated[i], want, 0)
	}
	if opened == 0 || opened == len(targets) {
		t.Errorf("test points should exercise both gate states, %d of %d open", opened, len(targets))
	}
}

// twoMembers is an ensemble of two members on 2 features and 2 classes whose member m's logits are
// scale[m]·x (StackedLogits), and whose Logits are their mean, as models.Model's.
type twoMembers struct{ scale [2]float64 }

func (e twoMembers) NumFeatures() int { return 2 }
func (e twoMembers) NumClasses() int  { return 2 }
func (e twoMembers) NumMembers() int  { return 2 }
func (e twoMembers) StackedLogits(x *Node) *Node {
	s := Const(x.Graph(), [][][]float64{{{e.scale[0]}}, {{e.scale[1]}}})
	return Mul(x, ConvertDType(s, x.DType()))
}
func (e twoMembers) Logits(x *Node) *Node {
	return ReduceMean(e.StackedLogits(BroadcastPrefix(x, 2)), 0)
}

// With MeanMemberProbabilities an ensemble's Ω is that of the mean of its members' probabilities (the
// scalar OmegaOf of p̄, computed by hand below), not that of the softmax of its mean logits; without it,
// and for the gate, the mean logits stay.
func TestMeanMemberProbabilities(t *testing.T) {
	clf := twoMembers{scale: [2]float64{1, 5}}
	x := [][]float64{{0.3, 0}} // member logits (0.3, 0) and (1.5, 0)
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	pMean := (sig(0.3) + sig(1.5)) / 2 // p̄(class 0) = 0.7842…
	pLogit := sig((0.3 + 1.5) / 2)     // softmax of the mean logits: 0.7109…
	opts := DefaultOptions()
	for _, tc := range []struct {
		mean bool
		p    float64
	}{{true, pMean}, {false, pLogit}} {
		o := opts
		o.MeanMemberProbabilities = tc.mean
		c := &Calibrated{Clf: clf, QHat: 0.5, Opts: o}
		got := evalLogits(t, x, func(x *Node) *Node { return c.SmoothSetSize(x) })
		want := OmegaOf([]float64{tc.p, 1 - tc.p}, 0.5, opts.Temperature, opts.Kappa, false)
		if math.Abs(got[0]-want) > 1e-12 {
			t.Errorf("mean member probabilities %v: Ω = %.12f, want %.12f (p̄ = %.4f)", tc.mean, got[0], want, tc.p)
		}
	}
	// A single model is unaffected by the switch.
	single := &Calibrated{Clf: models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node { return MulScalar(x, 3) }, 2, 2), QHat: 0.5, Opts: opts}
	on := *single
	on.Opts.MeanMemberProbabilities = true
	a := evalLogits(t, x, func(x *Node) *Node { return single.SmoothSetSize(x) })
	b := evalLogits(t, x, func(x *Node) *Node { return on.SmoothSetSize(x) })
	if a[0] != b[0] {
		t.Errorf("single model: Ω %v with the switch, %v without", b[0], a[0])
	}
}
