package counterfactual

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// searchChunk is the number of search steps one graph call takes (chunkGraph). The steps are unrolled in
// the graph rather than looped by a While: GoMLX's pure-Go backend (v0.28.5 to v0.28.16) does not execute
// a Gradient inside a While body, and its XLA backend (go-xla v0.4.4) let no closure read a value of the enclosing
// function, such as the model's weights (TestWhileLimits).
const searchChunk = 10

// chunkInputs are the inputs of one call of a chunk graph (chunkGraph), by name, as stepInputs are a step
// graph's; chunkOrder gives the order of the graph's parameters.
type chunkInputs[T any] struct {
	z, factual, target, lo, hi T // as in stepInputs
	// active [B] is 1 for the rows still searching; iters [B] and converged [B] (1 or 0) hold, for the
	// rows that stopped, the step they stopped at and whether they converged (float32: exact below 2²⁴).
	active, iters, converged T
	it0                      T // the index of the chunk's first step, a float32 scalar
	conflict                 T // as in stepInputs
	noise                    T // a Resampled latent map's posterior noise of every step of the chunk [k, B, Dz]
	counts                   T // as in stepInputs
}

// chunkOrder lists the inputs of a chunk graph of layout l in the order of its parameters: z, factual,
// target, lo, hi, active, iters, converged, it0, then conflict, noise (a Resampled map) and counts where
// l has them.
func chunkOrder[T any](l stepLayout, resampled bool, in *chunkInputs[T]) []*T {
	order := []*T{&in.z, &in.factual, &in.target, &in.lo, &in.hi, &in.active, &in.iters, &in.converged, &in.it0}
	if l.conflict {
		order = append(order, &in.conflict)
	}
	if resampled {
		order = append(order, &in.noise)
	}
	if l.jsma {
		order = append(order, &in.counts)
	}
	return order
}

// chunkGraph builds k consecutive search steps, it0 … it0+k−1, each the step of stepNodes with the rows
// still active as its move (none at step q.MaxIterations, which only evaluates), and the bookkeeping of
// descent.descend in the graph: a row stops for good at the first step where it converges or at step
// q.MaxIterations, and its step and convergence are recorded then. Its outputs: x′ [B, D] and p(y⁺|x′) [B]
// at the last step, the number of rows still active (a float32 scalar), the next state z, active, iters
// and converged, and, for JSMA, the counts. A row that stopped keeps its state, so the x′ and p(y⁺|x′) of
// later steps are those of the step it stopped at.
func chunkGraph(clf models.Classifier, g *Generator, q Request, d int, withConflict bool, k int) func(*model.Scope, []*Node) []*Node {
	step := stepNodes(clf, g, q, d)
	layout := layoutOf(g, withConflict)
	_, resampled := g.Latent.(Resampled)
	last := float32(q.MaxIterations)
	return func(scope *model.Scope, nodes []*Node) []*Node {
		var in chunkInputs[*Node]
		for i, p := range chunkOrder(layout, resampled, &in) {
			*p = nodes[i]
		}
		gr := in.z.Graph()
		inputs := scope.In("data")
		z, counts, iters, converged := in.z, in.counts, in.iters, in.converged
		active := GreaterThan(in.active, ScalarZero(gr, in.active.DType()))
		zeros, ones := ZerosLike(in.iters), OnesLike(in.iters)
		var x, prob *Node
		for j := range k {
			it := AddScalar(in.it0, float32(j))
			final := Equal(it, Scalar(gr, it.DType(), last)) // the step that only evaluates
			moves := LogicalAnd(active, LogicalNot(BroadcastToShape(final, active.Shape())))
			sin := stepInputs[*Node]{z: z, factual: in.factual, target: in.target, move: Where(moves, ones, zeros),
				lo: in.lo, hi: in.hi, conflict: in.conflict, counts: counts}
			if layout.stepwise {
				sin.step = it
			}
			if layout.reencodes {
				sin.first = ConvertDType(Equal(it, ScalarZero(gr, it.DType())), dtypes.Float32)
			}
			if resampled {
				b, dz := in.noise.Shape().Dimensions[1], in.noise.Shape().Dimensions[2]
				sin.noise = Reshape(Slice(in.noise, AxisElem(j)), b, dz)
			}
			out := step(inputs, sin)
			x, prob, z = out[0], out[1], out[3]
			if counts != nil {
				counts = out[4]
			}
			conv := GreaterThan(out[2], ScalarZero(gr, out[2].DType()))
			stops := LogicalAnd(active, LogicalOr(conv, BroadcastToShape(final, conv.Shape())))
			iters = Where(stops, BroadcastToShape(it, iters.Shape()), iters)
			converged = Where(LogicalAnd(active, conv), ones, converged)
			active = LogicalAnd(active, LogicalNot(stops))
		}
		act := Where(active, ones, zeros)
		out := []*Node{x, prob, ReduceAllSum(act), z, act, iters, converged}
		if counts != nil {
			out = append(out, counts)
		}
		return out
	}
}

// descendChunks is descent.descend with searchChunk steps per graph call (chunkGraph): the same steps,
// stops and results, bit for bit on the pure-Go backend. ctx is checked before each call, so a
// cancellation takes effect within searchChunk steps. Once every row has stopped, the rest of the chunk
// only evaluates the rows where they stopped.
func (s *Searcher) descendChunks(ctx context.Context, g *Generator, q Request, b, dz int, z []float32, bounds clamp) (*Result, error) {
	d := s.clf.NumFeatures()
	conflict := bounds.conflict != nil
	layout := layoutOf(g, conflict)
	_, resampled := g.Latent.(Resampled)
	var in chunkInputs[*tensors.Tensor]
	defer func() {
		for _, t := range chunkOrder(stepLayout{conflict: true, jsma: true}, true, &in) {
			replace(t, nil)
		}
	}()
	targets := make([]int32, b)
	for i, t := range q.Targets {
		targets[i] = int32(t)
	}
	in.z = tensors.FromFlatDataAndDimensions(z, b, dz)
	in.factual = tensors.FromFlatDataAndDimensions(q.Factuals, b, d)
	in.target = tensors.FromFlatDataAndDimensions(targets, b)
	in.lo, in.hi, in.conflict = bounds.tensors()
	active := make([]float32, b)
	for i := range active {
		active[i] = 1
	}
	in.active = tensors.FromFlatDataAndDimensions(active, b)
	in.iters = tensors.FromFlatDataAndDimensions(make([]float32, b), b)
	in.converged = tensors.FromFlatDataAndDimensions(make([]float32, b), b)
	if layout.jsma {
		in.counts = tensors.FromFlatDataAndDimensions(make([]float32, b*d), b, d)
	}
	rng := data.NewRand(q.Seed)
	for it0 := 0; ; it0 += s.chunk {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("counterfactual %s interrupted at step %d: %w", g.Name, it0, err)
		}
		k := min(s.chunk, q.MaxIterations+1-it0)
		exec, err := s.stepExec(q, b, dz, conflict, k)
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s: building the search graph: %w", g.Name, err)
		}
		replace(&in.it0, tensors.FromScalar(float32(it0)))
		if resampled { // drawn step by step, row by row, as descent.setStep draws them
			noise := make([]float32, k*b*dz)
			for i := range noise {
				noise[i] = float32(rng.NormFloat64())
			}
			replace(&in.noise, tensors.FromFlatDataAndDimensions(noise, k, b, dz))
		}
		order := chunkOrder(layout, resampled, &in)
		args := make([]any, len(order))
		for i, t := range order {
			args[i] = *t
			if t == &in.z || t == &in.counts {
				donated, err := DonateTensorBuffer(*t, s.backend, 0)
				if err != nil {
					return nil, err
				}
				args[i] = donated
			}
		}
		outs, err := exec.Call(args...)
		replace(&in.z, nil)
		replace(&in.counts, nil)
		if err != nil {
			return nil, fmt.Errorf("counterfactual %s, steps %d–%d: %w", g.Name, it0, it0+k-1, err)
		}
		x, prob, remaining := outs[0], outs[1], outs[2]
		in.z = outs[3]
		replace(&in.active, outs[4])
		replace(&in.iters, outs[5])
		replace(&in.converged, outs[6])
		if layout.jsma {
			in.counts = outs[7]
		}
		left := tensors.MustCopyFlatData[float32](remaining)[0]
		remaining.MustFinalizeAll()
		if left != 0 && it0+k <= q.MaxIterations {
			x.MustFinalizeAll()
			prob.MustFinalizeAll()
			continue
		}
		res := &Result{X: tensors.MustCopyFlatData[float32](x), Probability: tensors.MustCopyFlatData[float32](prob),
			Iterations: make([]int, b), Converged: make([]bool, b)}
		x.MustFinalizeAll()
		prob.MustFinalizeAll()
		for i, v := range tensors.MustCopyFlatData[float32](in.iters) {
			res.Iterations[i] = int(v)
		}
		for i, v := range tensors.MustCopyFlatData[float32](in.converged) {
			res.Converged[i] = v != 0
		}
		return res, nil
	}
}
