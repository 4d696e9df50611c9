package counterfactual

// The search engine as it was before the compiled step graphs were kept (Searcher), device-resident state
// and the host-computed projection bounds (issue 16): a verbatim copy, so that TestSearcherMatchesReference
// can check that the counterfactuals have not changed by a single bit.
//
// Why this oracle is kept rather than replaced by golden files of its results (issue 52 asked for one or
// the other): its answers are not fixed bits.
//   - They depend on the build and the backend. The pure-Go backend gives other float32 bits with its
//     SIMD kernels than without (ECCCO_SIMD=0): on TestSearcherMatchesReferenceTabular's model, Wachter's
//     and ECCCo's counterfactuals differ (checked when this was written; Schut's agree), and XLA fuses
//     the graphs differently by CPU. The oracle runs on the same backend as the engine, so the comparison
//     is exact on every one of them; a golden file would be exact on the build that wrote it only.
//   - Its inputs are made by the tests: models trained in the test (moons' MLP and VAE), retrained
//     between two searches (TestSearcherSeesNewWeights), other generators' samples swapped in
//     (TestSearchWithAnotherGeneratorsSamples). Golden files would have to freeze those too, and a
//     change upstream that keeps the search right (a training that gives other weights) would fail
//     these tests.
// It is test code only and must not change: a change to the engine is checked against it, not in it.

import (
	"context"
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Search finds counterfactuals for all rows of req at once with generator g: one GoMLX graph call per step
// for the whole batch. Each row starts at its factual (its latent code under g.Latent), takes gradient
// steps (or JSMA steps) on its own objective, is clamped to the bounds and projected onto its mutability
// constraints after every step, and stops moving once it converges while the other rows go on.
//
// A target equal to the model's prediction for its factual, a wrong feature count, a NaN input, an
// unknown generator setting or a negative weight give an error before any search.
func searchReference(ctx context.Context, backend compute.Backend, clf models.Classifier, g *Generator, req Request) (*Result, error) {
	if clf == nil || backend == nil {
		return nil, fmt.Errorf("counterfactual: nil classifier or backend")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	q := req.withDefaults()
	b, err := q.validate(clf)
	if err != nil {
		return nil, err
	}
	d := clf.NumFeatures()
	pred, err := models.Predict(backend, clf, q.Factuals)
	if err != nil {
		return nil, fmt.Errorf("counterfactual: predicting the factuals: %w", err)
	}
	for i, p := range pred {
		if p == q.Targets[i] {
			return nil, fmt.Errorf("counterfactual: factual %d is already predicted as its target class %d; choose another target", i, p)
		}
	}

	// The starting state: the factual itself, or its latent code.
	var z []float32
	dz := d
	if g.Latent != nil {
		dz = g.Latent.LatentDim()
		if z, err = g.Latent.Encode(backend, q.Factuals); err != nil {
			return nil, fmt.Errorf("counterfactual: encoding the factuals: %w", err)
		}
		if len(z) != b*dz {
			return nil, fmt.Errorf("counterfactual: the latent map returned %d values for %d rows of %d", len(z), b, dz)
		}
	} else {
		z = append([]float32(nil), q.Factuals...)
		if q.Lower != nil {
			for i := range z {
				z[i] = min(max(z[i], q.Lower[i%d]), q.Upper[i%d])
			}
		}
	}

	exec, err := model.NewExec(backend, model.NewStore(), stepGraphReference(clf, g, q, d))
	if err != nil {
		return nil, fmt.Errorf("counterfactual %s: building the search graph: %w", g.Name, err)
	}
	defer exec.Finalize()

	targets := make([]int32, b)
	for i, t := range q.Targets {
		targets[i] = int32(t)
	}
	res := &Result{Iterations: make([]int, b), Converged: make([]bool, b)}
	if q.RecordPath {
		res.Paths = make([][]float32, b)
	}
	active := make([]float32, b)
	for i := range active {
		active[i] = 1
	}
	counts := make([]float32, b*d)
	factT := tensors.FromFlatDataAndDimensions(q.Factuals, b, d)
	targT := tensors.FromFlatDataAndDimensions(targets, b)
	defer factT.MustFinalizeAll()
	defer targT.MustFinalizeAll()
	for it := 0; ; it++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("counterfactual %s interrupted at step %d: %w", g.Name, it, err)
		}
		move := active
		if it == q.MaxIterations {
			move = make([]float32, b) // the last call only evaluates
		}
		outs, err := exec.Call(tensors.FromFlatDataAndDimensions(z, b, dz), factT, targT,
			tensors.FromFlatDataAndDimensions(move, b), tensors.FromFlatDataAndDimensions(counts, b, d))
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s, step %d: %w", g.Name, it, err)
		}
		x := tensors.MustCopyFlatData[float32](outs[0])
		prob := tensors.MustCopyFlatData[float32](outs[1])
		conv := tensors.MustCopyFlatData[float32](outs[2])
		z = tensors.MustCopyFlatData[float32](outs[3])
		counts = tensors.MustCopyFlatData[float32](outs[4])
		for _, t := range outs {
			t.MustFinalizeAll()
		}
		remaining := 0
		for i := range b {
			if active[i] == 0 {
				continue
			}
			if q.RecordPath {
				res.Paths[i] = append(res.Paths[i], x[i*d:(i+1)*d]...)
			}
			switch {
			case conv[i] != 0:
				res.Converged[i], res.Iterations[i], active[i] = true, it, 0
			case it == q.MaxIterations:
				res.Iterations[i], active[i] = it, 0
			default:
				remaining++
			}
		}
		if remaining == 0 {
			res.X, res.Probability = x, prob
			return res, nil
		}
	}
}

// stepGraph builds one search step for a batch: inputs z [B, Dz], factual [B, D], target [B], move [B]
// (1: the row may take a step) and JSMA change counts [B, D]; outputs x′ [B, D] and p(y⁺|x′) [B] at the
// current state, whether the row has converged there [B], the next state z and counts.
func stepGraphReference(clf models.Classifier, g *Generator, q Request, d int) func(*model.Scope, []*Node) []*Node {
	down, up := constraintMasks(q.Mutability, d)
	lossFn := g.Loss
	if lossFn == nil {
		lossFn = CrossEntropy
	}
	return func(_ *model.Scope, in []*Node) []*Node {
		z, factual, target, move, counts := in[0], in[1], in[2], in[3], in[4]
		gr := z.Graph()
		b := z.Shape().Dimensions[0]
		row := func(v []float32) *Node { return BroadcastToDims(Reshape(Const(gr, v), 1, d), b, d) }
		var lo, hi *Node
		if q.Lower != nil {
			lo, hi = row(q.Lower), row(q.Upper)
		}
		downN, upN := row(down), row(up)
		proj := func(x *Node) *Node { return projectReference(x, factual, lo, hi, downN, upN) }
		xOf := func(z *Node) *Node {
			if g.Latent == nil {
				return z // kept projected by the update below
			}
			return proj(g.Latent.Decode(z))
		}
		x := xOf(z)
		logits := clf.Logits(x)
		s := &State{X: x, Factual: factual, Target: target, Logits: logits, Model: clf}
		obj := lossFn(s)
		for i, p := range g.Penalties {
			if p.Weight != 0 {
				obj = Add(obj, MulScalar(p.eval(s, i), p.Weight))
			}
		}
		grad := Gradient(ReduceAllSum(obj), z)[0]
		grad = Where(IsNaN(grad), ZerosLike(grad), grad) // NaN gradients count as 0, as in the authors' code
		k := logits.Shape().Dimensions[1]
		prob := ReduceSum(Mul(OneHot(target, k, logits.DType()), Softmax(logits)), -1)
		valid := GreaterOrEqual(prob, Scalar(gr, prob.DType(), q.Threshold))

		eta := g.StepSize
		var zNext, countsNext, effGrad *Node
		switch {
		case g.JSMA != nil:
			zNext, countsNext = jsmaStepReference(z, grad, factual, lo, hi, downN, upN, counts, eta, float64(g.maxChanges()))
			effGrad = grad
		case g.Latent == nil:
			zNext = proj(Sub(z, MulScalar(grad, eta)))
			effGrad = DivScalar(Sub(z, zNext), eta) // the projected gradient
			countsNext = counts
		default:
			zNext = Sub(z, MulScalar(grad, eta))
			effGrad = grad
			countsNext = counts
		}
		conv := valid
		switch {
		case q.Rule == MaxIterations:
			conv = ZerosLike(valid)
		case q.Rule == GeneratorConditionsAll || (q.Rule == GeneratorConditions && g.JSMA == nil):
			small := LessThan(ReduceMax(Abs(effGrad), -1), Scalar(gr, effGrad.DType(), q.GradientTol))
			conv = LogicalAnd(valid, small)
		}
		step := LogicalAnd(GreaterThan(move, ScalarZero(gr, move.DType())), LogicalNot(conv))
		zOut := Where(step, zNext, z)
		countsOut := Where(step, countsNext, counts)
		return []*Node{x, prob, ConvertDType(conv, dtypes.Float32), zOut, countsOut}
	}
}

// jsmaStep is Schut et al.'s greedy step for every row: among the features that are not frozen (changed
// fewer than n times) and may move in the descent direction (mutability, bounds), the one with the largest
// |gradient| moves by η·(−sign(gradient)); its counter grows by one. Rows where every such feature is
// frozen have their counters reset.
func jsmaStepReference(x, grad, factual, lo, hi, down, up, counts *Node, eta, n float64) (xNext, countsNext *Node) {
	gr := x.Graph()
	zero := ZerosLike(grad)
	// Descent moves x_j down where the gradient is positive, up where it is negative.
	goesDown, goesUp := GreaterThan(grad, zero), LessThan(grad, zero)
	fits := func(dir, mask, bound *Node, cmpBeyond func(a, b *Node) *Node) *Node {
		ok := LogicalAnd(dir, GreaterThan(mask, ScalarZero(gr, mask.DType())))
		if bound != nil {
			ok = LogicalAnd(ok, cmpBeyond(x, bound))
		}
		return ok
	}
	canDown := fits(goesDown, down, lo, GreaterThan)
	canUp := fits(goesUp, up, hi, LessThan)
	// Decrease-only features may still move back up towards the factual and vice versa.
	canDown = LogicalOr(canDown, LogicalAnd(goesDown, GreaterThan(x, factual)))
	canUp = LogicalOr(canUp, LogicalAnd(goesUp, LessThan(x, factual)))
	free := LessThan(counts, Scalar(gr, counts.DType(), n))
	candidate := LogicalAnd(free, LogicalOr(canDown, canUp))
	score := Where(candidate, Abs(grad), Scalar(gr, grad.DType(), -1))
	best := ArgMax(score, -1, dtypes.Int32)
	d := x.Shape().Dimensions[1]
	pick := OneHot(best, d, x.DType())
	has := ConvertDType(GreaterThan(ReduceMax(score, -1), ScalarZero(gr, score.DType())), x.DType()) // [B]
	pick = Mul(pick, ExpandAxes(has, -1))
	xNext = Sub(x, MulScalar(Mul(pick, Sign(grad)), eta))
	xNext = projectReference(xNext, factual, lo, hi, down, up)
	countsNext = Add(counts, pick)
	// Reset the counters of rows whose movable features are all frozen.
	movable := LogicalOr(GreaterThan(down, ZerosLike(down)), GreaterThan(up, ZerosLike(up)))
	stillFree := LogicalAnd(movable, LessThan(countsNext, Scalar(gr, counts.DType(), n)))
	anyFree := ReduceLogicalOr(stillFree, -1)
	countsNext = Where(anyFree, countsNext, ZerosLike(countsNext))
	return xNext, countsNext
}

// project returns x′ [B, D] clamped to the bounds [lo, hi] (when given) and to the mutability constraints
// relative to the factual, in one clamp: feature j is clamped to [L_j, U_j] with L_j = lo_j where it may
// go down (down_j = 1) and the factual's value otherwise, and U_j likewise. An immutable feature therefore
// equals the factual's, an increase-only feature is at least the factual's, and every value lies exactly
// within the bounds. Where the two disagree (a factual outside the bounds in a blocked direction), the
// mutability constraint wins and the feature keeps the factual's value. down and up are [B, D] masks
// (1 = allowed).
func projectReference(x, factual, lo, hi, down, up *Node) *Node {
	g := x.Graph()
	if lo == nil {
		lo = BroadcastToDims(Scalar(g, x.DType(), -math.MaxFloat32), x.Shape().Dimensions...)
		hi = BroadcastToDims(Scalar(g, x.DType(), math.MaxFloat32), x.Shape().Dimensions...)
	}
	zero := ZerosLike(down)
	l := Where(GreaterThan(down, zero), lo, factual)
	u := Where(GreaterThan(up, zero), hi, factual)
	clamped := Min(Max(x, l), u) // Clamp with tensor bounds has no gradient in GoMLX
	return Where(GreaterThan(l, u), factual, clamped)
}
