package counterfactual

import (
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Objective builds the generator's search objective per row, shape [B], at the state s: its Loss
// (CrossEntropy when nil) plus every penalty of non-zero weight, Weight·Term(s). It is the objective that
// Search descends (paper Eq. 1, with x′ = s.X).
func (g *Generator) Objective(s *State) *Node {
	loss := g.Loss
	if loss == nil {
		loss = CrossEntropy
	}
	obj := loss(s)
	for i, p := range g.Penalties {
		if p.Weight != 0 {
			obj = Add(obj, MulScalar(p.eval(s, i), p.Weight))
		}
	}
	return obj
}

// Field is a generator's search objective and its negative gradient with respect to x′ at P points, for
// one factual and target (the arrows of the paper's Figure 2). Row i of every slice belongs to point i.
type Field struct {
	// D is the number of features.
	D int
	// Points holds the P points x′ (P·D values, row-major), as given.
	Points []float32
	// Objective is the objective at each point (P values).
	Objective []float64
	// NegGradient is −∇_{x′} objective at each point (P·D values, row-major): the direction in which the
	// search would move x′ there. NaN components count as 0, as in Search.
	NegGradient []float32
}

// ObjectiveField evaluates g's search objective, for the factual (D values) and target class, and its
// negative gradient with respect to x′ at every row of points (P·D values) in one graph call.
//
// The field is taken in feature space and ignores the search's projection: x′ is the point itself (no
// clamping to bounds, no mutability constraints). For a generator with a latent map (REVISE, ECCCo+) the
// field is the gradient of the same objective with respect to x′ = f(z), not with respect to z: it shows
// the landscape the latent search descends, drawn in the plane of the data, not the (decoder-distorted)
// steps it takes. For Schut's JSMA generator the field is the gradient of its objective, whose largest
// component is the feature a JSMA step would move. Every term is computed row by row, so one batch of P
// points gives the same values as P separate calls.
func ObjectiveField(backend compute.Backend, clf models.Classifier, g *Generator, factual []float32, target int, points []float32) (*Field, error) {
	obj, neg, err := objectiveField(backend, clf, g, factual, target, points)
	if err != nil {
		return nil, err
	}
	return &Field{D: len(factual), Points: points, Objective: obj, NegGradient: neg}, nil
}

// objectiveField is ObjectiveField in either float dtype: the graph runs in the dtype of the inputs
// (float64 needs a classifier that computes in the dtype of its input).
func objectiveField[T float32 | float64](backend compute.Backend, clf models.Classifier, g *Generator, factual []T, target int, points []T) (obj []float64, negGrad []T, err error) {
	if clf == nil || backend == nil {
		return nil, nil, fmt.Errorf("objective field: nil classifier or backend")
	}
	if err := g.Validate(); err != nil {
		return nil, nil, err
	}
	d, k := clf.NumFeatures(), clf.NumClasses()
	switch {
	case len(factual) != d:
		return nil, nil, fmt.Errorf("objective field: the factual has %d values, the model %d features", len(factual), d)
	case len(points) == 0 || len(points)%d != 0:
		return nil, nil, fmt.Errorf("objective field: %d point values are not whole rows of %d features", len(points), d)
	case target < 0 || target >= k:
		return nil, nil, fmt.Errorf("objective field: target %d is not a class of the model (0 … %d)", target, k-1)
	}
	for i, v := range factual {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, nil, fmt.Errorf("objective field: factual feature %d is %v", i, v)
		}
	}
	p := len(points) / d
	exec, err := model.NewExec(backend, model.NewStore(), func(_ *model.Scope, in []*Node) []*Node {
		x, fact, tgt := in[0], in[1], in[2]
		fact = BroadcastToDims(Reshape(fact, 1, d), p, d)
		s := &State{X: x, Factual: fact, Target: tgt, Logits: clf.Logits(x), Model: clf, Step: ScalarZero(x.Graph(), dtypes.Float32)}
		o := g.Objective(s)
		grad := Gradient(ReduceAllSum(o), x)[0]
		grad = zeroNaNs(grad) // as in Search
		return []*Node{ConvertDType(o, dtypes.Float64), Neg(grad)}
	})
	if err != nil {
		return nil, nil, fmt.Errorf("objective field of %s: building the graph: %w", g.Name, err)
	}
	defer exec.Finalize()
	targets := make([]int32, p)
	for i := range targets {
		targets[i] = int32(target)
	}
	outs, err := exec.Call(tensors.FromFlatDataAndDimensions(points, p, d), tensors.FromFlatDataAndDimensions(factual, d),
		tensors.FromFlatDataAndDimensions(targets, p))
	if err != nil {
		return nil, nil, fmt.Errorf("objective field of %s: %w", g.Name, err)
	}
	defer func() {
		for _, t := range outs {
			t.MustFinalizeAll()
		}
	}()
	return tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[T](outs[1]), nil
}
