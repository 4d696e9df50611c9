package energy

import (
	"fmt"
	"math/rand/v2"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// jemUnrolledSGLDSteps bounds the SGLD steps one call of a JEM training chunk unrolls (its minibatches
// times SGLD.Steps), which bounds the graph that XLA compiles.
const jemUnrolledSGLDSteps = 100

// jemMinibatchesPerCall returns the whole minibatches TrainJEM takes per graph call on a backend:
// jemChunkSize of models.TrainStepsPerCall (1 on the pure-Go backend and XLA's CPU plugin, 10 on XLA's
// accelerator plugins).
func jemMinibatchesPerCall(backend compute.Backend, s SGLD) int {
	return jemChunkSize(models.TrainStepsPerCall(backend), s)
}

// jemChunkSize returns the minibatches per call for a backend where models.Train takes trainPerCall: 1
// where that is 1 or where the sampler clamps its chains only at the end (on the host); otherwise
// trainPerCall, fewer where the minibatches' SGLD steps would exceed jemUnrolledSGLDSteps.
func jemChunkSize(trainPerCall int, s SGLD) int {
	if trainPerCall <= 1 || (s.Lower != nil && s.ClampAtEnd) {
		return 1
	}
	return max(1, min(trainPerCall, jemUnrolledSGLDSteps/max(1, s.Steps)))
}

// jemChunk trains k whole minibatches of TrainJEM in one graph call, each as one call per minibatch
// does: the members' SGLD chains, started from the replay buffers as ReplayBuffer.Init starts them
// (stored samples written earlier in the same chunk read from the graph), then the loss and the Adam step,
// which is skipped where the loss is not finite (every variable, Adam's moments and step counters
// included, keeps its value). The host makes every random draw beforehand, in the order of one call per
// minibatch, so the weights are those of one call per minibatch.
type jemChunk struct {
	k, members, samples, d, classes, steps int
	exec                                   *model.Exec
}

// newJEMChunk builds the graph of k minibatches for the members' conditional energy (chains of all
// members as one batch, as TrainJEM's sampler runs them) and their losses (TrainJEM's memberLosses).
func newJEMChunk(backend compute.Backend, store *model.Store, k, members, samples, d, classes int, sgld SGLD,
	energy Energy, losses func(x, y, xs, ys *Node) *Node, adam optimizer.Interface) (*jemChunk, error) {
	c := &jemChunk{k: k, members: members, samples: samples, d: d, classes: classes, steps: sgld.Steps}
	chains := members * samples
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, x, y, ys, start, ref, noise *Node) (*Node, *Node) {
		g := x.Graph()
		livevars.Mark(g)
		var lo, hi *Node
		if sgld.Lower != nil && !sgld.ClampAtEnd {
			lo = BroadcastToDims(Reshape(Const(g, sgld.Lower), 1, d), chains, d)
			hi = BroadcastToDims(Reshape(Const(g, sgld.Upper), 1, d), chains, d)
		}
		dims := x.Shape().Dimensions // [k, M, B, D]
		var drawn, lossOf []*Node
		for j := range k {
			x0 := Reshape(Slice(start, AxisElem(j)), chains, d)
			if j > 0 {
				r := Reshape(Slice(ref, AxisElem(j)), chains)
				earlier := Gather(Concatenate(drawn, 0), Reshape(MaxScalar(r, 0), chains, 1))
				use := BroadcastToDims(Reshape(GreaterOrEqual(r, ScalarZero(g, r.DType())), chains, 1), chains, d)
				x0 = Where(use, earlier, x0)
			}
			yj := Reshape(Slice(ys, AxisElem(j)), chains)
			noiseJ := Reshape(Slice(noise, AxisElem(j)), c.steps, chains, d)
			xs := x0
			for s := range c.steps {
				xs = sgld.step(energy, xs, yj, Reshape(Slice(noiseJ, AxisElem(s)), chains, d), lo, hi)
			}
			xs = StopGradient(xs) // the samples are data of the loss, as one call per minibatch hands them over
			drawn = append(drawn, xs)
			xb := Reshape(Slice(x, AxisElem(j)), dims[1:]...)
			yb := Reshape(Slice(y, AxisElem(j)), dims[1:3]...)
			loss := ReduceAllSum(losses(xb, yb, Reshape(xs, members, samples, d), Reshape(yj, members, samples)))
			updateIfFinite(scope, g, adam, loss)
			lossOf = append(lossOf, loss)
		}
		return Stack(lossOf, 0), Stack(drawn, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("jem: building the training chunk: %w", err)
	}
	c.exec = exec
	return c, nil
}

// updateIfFinite adds opt's step on loss to the graph, kept only where loss is finite: every variable
// the step changes (the weights, Adam's moments, its step counters) takes its new value if loss is
// finite and keeps the value it had before the step otherwise.
func updateIfFinite(scope *model.Scope, g *Graph, opt optimizer.Interface, loss *Node) {
	store := scope.Store()
	before := map[*model.Variable]*Node{}
	for v := range store.IterVariables() {
		if v.InUseByGraph(g) {
			before[v] = v.NodeValue(g)
		}
	}
	opt.UpdateGraph(scope, g, loss)
	finite := IsFinite(loss)
	for v := range store.IterVariables() {
		if !v.InUseByGraph(g) {
			continue
		}
		old, ok := before[v]
		if !ok { // first read by this step (the optimiser's own variables in the chunk's first step)
			old = g.GetParameterByName(v.Path())
		}
		now := v.NodeValue(g)
		if old == nil {
			panic(fmt.Sprintf("jem: no value of %s before the step", v.Path()))
		}
		if now == old {
			continue
		}
		v.SetNodeValue(Where(BroadcastToDims(finite, now.Shape().Dimensions...), now, old))
	}
}

// jemDraws is what one chunk needs from TrainJEM's state: the data, each member's minibatch order, random
// stream and replay buffer, and the stream that seeds every minibatch's SGLD noise.
type jemDraws struct {
	ds       *data.Dataset
	perms    [][]int
	rngs     []*rand.Rand
	buffers  []*ReplayBuffer
	noiseRng *rand.Rand
}

// run trains the k minibatches of size rows each from row b of the members' orders, adds their samples
// to the replay buffers and returns the k losses (the members' summed losses, before the step).
func (c *jemChunk) run(st jemDraws, b, size int) ([]float32, error) {
	k, d, s := c.k, c.d, c.samples
	chains := c.members * s
	x := make([]float32, 0, k*c.members*size*d)
	y := make([]int32, 0, k*c.members*size)
	for j := range k {
		for _, perm := range st.perms {
			for _, r := range perm[b+j*size : b+(j+1)*size] {
				x = append(x, st.ds.Row(r)...)
				y = append(y, int32(st.ds.Y[r]))
			}
		}
	}
	ys := make([]int32, k*chains)
	start := make([]float32, k*chains*d)
	ref := make([]int32, k*chains)
	for i, buf := range st.buffers {
		stored, next := buf.Len(), buf.next
		written := map[int]int{} // slot → the chunk's sample (j·chains + chain) last written there
		for j := range k {
			class := int32(st.rngs[i].IntN(c.classes))
			slots, fresh := buf.draw(s, stored, st.rngs[i])
			for ch, r := range slots {
				at := j*chains + i*s + ch
				ys[at], ref[at] = class, -1
				if w, ok := written[r]; ok && r >= 0 {
					ref[at] = int32(w)
					continue
				}
				row := fresh[ch*d : (ch+1)*d]
				if r >= 0 {
					row = buf.rows[r*d : (r+1)*d]
				}
				copy(start[at*d:(at+1)*d], row)
			}
			var wrote []int
			wrote, stored, next = buf.writeSlots(stored, next, s)
			for ch, r := range wrote {
				written[r] = j*chains + i*s + ch
			}
		}
	}
	noise := make([]float32, k*c.steps*chains*d)
	per := c.steps * chains * d
	for j := range k {
		rng := data.NewRand(st.noiseRng.Uint64()) // as Sampler.Run seeds each minibatch's noise
		for i := range per {
			noise[j*per+i] = float32(rng.NormFloat64())
		}
	}
	out, err := c.exec.Call(
		tensors.FromFlatDataAndDimensions(x, k, c.members, size, d), tensors.FromFlatDataAndDimensions(y, k, c.members, size),
		tensors.FromFlatDataAndDimensions(ys, k, chains), tensors.FromFlatDataAndDimensions(start, k, chains, d),
		tensors.FromFlatDataAndDimensions(ref, k, chains), tensors.FromFlatDataAndDimensions(noise, k, c.steps, chains, d))
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, t := range out {
			t.MustFinalizeAll()
		}
	}()
	losses, samples := tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
	for j := range k {
		for i, buf := range st.buffers {
			at := (j*chains + i*s) * d
			if err := buf.Add(samples[at : at+s*d]); err != nil {
				return nil, err
			}
		}
	}
	return losses, nil
}

// Finalize frees the chunk's graph.
func (c *jemChunk) Finalize() { c.exec.Finalize() }
