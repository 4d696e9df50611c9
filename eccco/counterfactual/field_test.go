package counterfactual

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

// fieldMLP is a fixed 2-4-2 tanh network that computes in the dtype of its input (float32 or float64), so
// the objective field can be checked in float64 against finite differences.
func fieldMLP() models.Classifier {
	w1 := []float64{1.2, -0.7, 0.4, 0.9, -0.5, 1.1, 0.8, -0.3} // [2, 4]
	b1 := []float64{0.1, -0.2, 0.3, 0}
	w2 := []float64{0.7, -0.9, -1.1, 0.6, 0.5, 0.8, -0.4, 1.3} // [4, 2]
	b2 := []float64{0.05, -0.1}
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		g, dt := x.Graph(), x.DType()
		c := func(v []float64, dims ...int) *Node { return ConvertDType(Reshape(Const(g, v), dims...), dt) }
		b := x.Shape().Dimensions[0]
		h := Tanh(Add(MatMul(x, c(w1, 2, 4)), BroadcastToDims(c(b1, 1, 4), b, 4)))
		return Add(MatMul(h, c(w2, 4, 2)), BroadcastToDims(c(b2, 1, 2), b, 2))
	}, 2, 2)
}

// fieldGenerators are the objectives checked: every term of the paper's generators (cross-entropy, L1
// cost, energy with a ridge, smooth set size, distance to samples).
func fieldGenerators(clf models.Classifier) []*Generator {
	cal := &conformal.Calibrated{Clf: clf, QHat: 0.45, Opts: conformal.DefaultOptions()}
	p := Params{StepSize: 0.05, Cost: 0.3, SetSize: 0.7, Energy: 0.4, Ridge: 0.25}
	samples := &energy.TargetSamples{Samples: [][]float32{{-1, -1, -1.5, -0.5}, {1, 1, 1.5, 0.5}}, D: 2}
	return []*Generator{Wachter(p), ECCCo(p, cal), ECCCoNoCP(p), ECCCoL1(p, cal, samples)}
}

// fieldPoints are points whose coordinates all differ from the factual (the L1 kink) by more than h.
var (
	fieldFactual = []float64{-0.8, 0.6}
	fieldPoints  = []float64{-0.3, 0.2, 0.7, -0.9, 1.4, 1.1, -1.6, -0.4, 0.25, 0.35}
)

func evalObjective64(t *testing.T, clf models.Classifier, g *Generator, pts []float64) []float64 {
	t.Helper()
	obj, _, err := objectiveField(testBackend(t), clf, g, fieldFactual, 1, pts)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

// The negative gradient equals minus the central finite differences of the objective (float64 graph,
// h = 1e-5: agreement to 1e-6).
func TestFieldMatchesFiniteDifferences(t *testing.T) {
	clf := fieldMLP()
	const h = 1e-5
	for _, g := range fieldGenerators(clf) {
		_, neg, err := objectiveField(testBackend(t), clf, g, fieldFactual, 1, fieldPoints)
		if err != nil {
			t.Fatal(err)
		}
		// All shifted points in one batch: for point i and feature j, +h then −h.
		var shifted []float64
		for i := range len(fieldPoints) / 2 {
			for j := range 2 {
				for _, s := range []float64{h, -h} {
					pt := []float64{fieldPoints[2*i], fieldPoints[2*i+1]}
					pt[j] += s
					shifted = append(shifted, pt...)
				}
			}
		}
		obj := evalObjective64(t, clf, g, shifted)
		for i := range len(fieldPoints) / 2 {
			for j := range 2 {
				fd := (obj[4*i+2*j] - obj[4*i+2*j+1]) / (2 * h)
				if got := neg[2*i+j]; math.Abs(got+fd) > 1e-6*max(1, math.Abs(fd)) {
					t.Errorf("%s, point %d, feature %d: −∇ = %.9g, finite differences −%.9g", g.Name, i, j, got, fd)
				}
			}
		}
	}
}

// The float32 path (real models) agrees with float64 finite differences to 1e-4 (float32 rounding).
func TestFieldFloat32(t *testing.T) {
	clf := fieldMLP()
	g := fieldGenerators(clf)[1] // ECCCo
	pts32 := make([]float32, len(fieldPoints))
	for i, v := range fieldPoints {
		pts32[i] = float32(v)
	}
	f, err := ObjectiveField(testBackend(t), clf, g, []float32{float32(fieldFactual[0]), float32(fieldFactual[1])}, 1, pts32)
	if err != nil {
		t.Fatal(err)
	}
	obj64, neg64, err := objectiveField(testBackend(t), clf, g, fieldFactual, 1, fieldPoints)
	if err != nil {
		t.Fatal(err)
	}
	if f.D != 2 || len(f.Objective) != 5 || len(f.NegGradient) != 10 || &f.Points[0] != &pts32[0] {
		t.Fatalf("field shape: D %d, %d objectives, %d gradient values", f.D, len(f.Objective), len(f.NegGradient))
	}
	for i := range f.Objective {
		if math.Abs(f.Objective[i]-obj64[i]) > 1e-5 {
			t.Errorf("point %d: float32 objective %v, float64 %v", i, f.Objective[i], obj64[i])
		}
	}
	for i := range f.NegGradient {
		if math.Abs(float64(f.NegGradient[i])-neg64[i]) > 1e-4 {
			t.Errorf("value %d: float32 −∇ %v, float64 %v", i, f.NegGradient[i], neg64[i])
		}
	}
}

// Arrows point downhill: a small step along −∇ lowers the objective at every point.
func TestFieldArrowsPointDownhill(t *testing.T) {
	clf := fieldMLP()
	for _, g := range fieldGenerators(clf) {
		obj, neg, err := objectiveField(testBackend(t), clf, g, fieldFactual, 1, fieldPoints)
		if err != nil {
			t.Fatal(err)
		}
		moved := make([]float64, len(fieldPoints))
		for i := range moved {
			moved[i] = fieldPoints[i] + 1e-3*neg[i]
		}
		after := evalObjective64(t, clf, g, moved)
		for i := range obj {
			if n := math.Hypot(neg[2*i], neg[2*i+1]); n < 1e-8 {
				t.Errorf("%s, point %d: zero gradient, the test is vacuous there", g.Name, i)
			}
			if !(after[i] < obj[i]) {
				t.Errorf("%s, point %d: objective %v after a step along −∇, %v before", g.Name, i, after[i], obj[i])
			}
		}
	}
}

// The field is the objective Search descends: one search step from x is x + η·(−∇) of the field at x
// (first step from the factual and second step, where the L1 cost is active), for ECCCo.
func TestFieldIsTheSearchStep(t *testing.T) {
	b := testBackend(t)
	clf := fieldMLP()
	g := fieldGenerators(clf)[1]
	x0 := []float32{-0.8, 0.6}
	pred, err := models.Predict(b, clf, x0)
	if err != nil {
		t.Fatal(err)
	}
	target := 1 - pred[0]
	res, err := Search(context.Background(), b, clf, g, Request{Factuals: x0, Targets: []int{target}, MaxIterations: 2,
		Rule: MaxIterations, RecordPath: true})
	if err != nil {
		t.Fatal(err)
	}
	path := res.Paths[0] // x0, x1, x2
	f, err := ObjectiveField(b, clf, g, x0, target, path[:4])
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		for j := range 2 {
			want := path[2*s+j] + float32(g.StepSize)*f.NegGradient[2*s+j]
			if got := path[2*(s+1)+j]; math.Abs(float64(got-want)) > 1e-6 {
				t.Errorf("step %d, feature %d: search moved to %v, field predicts %v", s+1, j, got, want)
			}
		}
	}
}

func TestFieldRejectsBadInput(t *testing.T) {
	b := testBackend(t)
	clf := fieldMLP()
	g := Wachter(Params{StepSize: 0.1, Cost: 0.1})
	for name, err := range map[string]error{
		"short factual": func() error { _, err := ObjectiveField(b, clf, g, []float32{1}, 1, []float32{0, 0}); return err }(),
		"ragged points": func() error { _, err := ObjectiveField(b, clf, g, []float32{1, 1}, 1, []float32{0, 0, 1}); return err }(),
		"no points":     func() error { _, err := ObjectiveField(b, clf, g, []float32{1, 1}, 1, nil); return err }(),
		"bad target":    func() error { _, err := ObjectiveField(b, clf, g, []float32{1, 1}, 2, []float32{0, 0}); return err }(),
		"NaN factual": func() error {
			_, err := ObjectiveField(b, clf, g, []float32{float32(math.NaN()), 1}, 1, []float32{0, 0})
			return err
		}(),
		"bad generator": func() error {
			_, err := ObjectiveField(b, clf, &Generator{Name: "x"}, []float32{1, 1}, 1, []float32{0, 0})
			return err
		}(),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
