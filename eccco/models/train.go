package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
)

// TrainOptions configure Train. Zero values take the defaults noted on each field.
type TrainOptions struct {
	// Epochs is the number of passes over the training data (required, > 0).
	Epochs int
	// BatchSize is the minibatch size (required, > 0). The last, smaller batch of an epoch is kept, as
	// Flux's DataLoader does.
	BatchSize int
	// LearningRate is Adam's step size; 0 means 1e-3.
	LearningRate float64
	// Seed fixes the order of minibatches (each ensemble member gets its own order). The same seed, data
	// and model give the same weights.
	Seed uint64
	// BaggingFraction, when positive, trains every member of an ensemble on its own bag of
	// floor(BaggingFraction·N) rows drawn without replacement (Bags), as MLJEnsembles' EnsembleModel did
	// with its default bagging_fraction = 0.8 (v0.3.3 src/ensembles.jl:335) for the authors' ensembles
	// (ECCCo.jl experiments/models/default_models.jl:74,90): AuthorsBaggingFraction. 0 trains every
	// member on all rows (the paper's text). Single models ignore it.
	BaggingFraction float64
	// OnEpoch, if set, is called after every epoch (e.g. to advance a progress bar).
	OnEpoch func(EpochStats)
}

// AuthorsBaggingFraction is MLJEnsembles' default bagging_fraction (v0.3.3 src/ensembles.jl:335), with
// which the authors' ensembles were fitted (ECCCo.jl experiments/models/default_models.jl:74,90).
const AuthorsBaggingFraction = 0.8

// Bags returns, for each of members ensemble members, the rows of its bag: floor(fraction·n) distinct
// rows of 0 … n−1 drawn at random (seeded), as MLJEnsembles drew them (StatsBase.sample without
// replacement of n_train = floor(bagging_fraction·n) rows, v0.3.3 src/ensembles.jl:154,463). It returns
// nil (every member on all rows) when fraction is 0 or 1 or there is a single member; a fraction outside
// [0, 1] or a bag that would be empty is an error.
func Bags(n, members int, fraction float64, seed uint64) ([][]int, error) {
	if !(fraction >= 0 && fraction <= 1) {
		return nil, fmt.Errorf("bagging fraction %v, must lie in [0, 1]", fraction)
	}
	if fraction == 0 || fraction == 1 || members < 2 {
		return nil, nil
	}
	size := int(math.Floor(fraction * float64(n)))
	if size < 1 {
		return nil, fmt.Errorf("bagging fraction %v of %d rows leaves an empty bag", fraction, n)
	}
	rng := data.NewRand(seed ^ 0xBA66ED0B5)
	bags := make([][]int, members)
	for i := range bags {
		bags[i] = rng.Perm(n)[:size]
	}
	return bags, nil
}

// EpochStats summarises one finished epoch.
type EpochStats struct {
	Epoch, Epochs int
	// Loss is the mean over the epoch's minibatches of the summed members' mean cross-entropy.
	Loss    float64
	Elapsed time.Duration // since training started
}

// History records a training run.
type History struct {
	Loss     []float64     // per epoch, see EpochStats.Loss
	Duration time.Duration // wall time of the whole run
	Steps    int           // optimiser steps taken
	// Skipped counts minibatches whose loss was not finite and whose update was therefore skipped (JEM
	// training; Train itself stops with an error instead).
	Skipped int
}

// Train fits m to the training set by minibatch Adam on the cross-entropy of the logits (for an ensemble,
// the members are trained side by side in one graph, each on its own shuffle of the data, which is the
// same as training them one after the other because their losses do not interact). On XLA's
// accelerator plugins it takes 10 minibatches per graph call where they are whole, with the weights of one
// call per minibatch (TrainStepsPerCall); it honours ctx between calls.
func Train(ctx context.Context, backend compute.Backend, m *Model, ds *data.Dataset, opts TrainOptions) (*History, error) {
	return train(ctx, backend, m, ds, opts, TrainStepsPerCall(backend))
}

// train is Train with perCall minibatches per graph call where they are whole (1: one per call).
func train(ctx context.Context, backend compute.Backend, m *Model, ds *data.Dataset, opts TrainOptions, perCall int) (*History, error) {
	if err := checkTrainingData(m, ds); err != nil {
		return nil, err
	}
	if opts.Epochs <= 0 || opts.BatchSize <= 0 {
		return nil, fmt.Errorf("training %s: Epochs (%d) and BatchSize (%d) must be positive", m.spec.Kind, opts.Epochs, opts.BatchSize)
	}
	lr := opts.LearningRate
	if lr == 0 {
		lr = 1e-3
	}
	members, k := m.spec.Members, m.spec.NumClasses
	adam := optimizer.Adam().LearningRate(lr).Done()
	// One graph takes perCall minibatches (x [K, M, B, D], y [K, M, B]) and their K Adam steps, one
	// after the other, and returns the K losses; the other takes one minibatch (an epoch's last ones).
	// Both build the same step, so the weights are those of one step per call.
	var chunk *model.Exec
	var err error
	if perCall > 1 {
		chunk, err = model.NewExec(backend, m.store, func(scope *model.Scope, x, y *Node) *Node {
			livevars.Mark(x.Graph())
			dims := x.Shape().Dimensions
			losses := make([]*Node, dims[0])
			for j := range losses {
				xj := Reshape(Slice(x, AxisElem(j)), dims[1:]...)
				yj := Reshape(Slice(y, AxisElem(j)), dims[1:3]...)
				losses[j] = m.ensembleLoss(scope, xj, yj, k, crossEntropy)
				adam.UpdateGraph(scope, x.Graph(), losses[j])
			}
			return Stack(losses, 0)
		})
		if err != nil {
			return nil, fmt.Errorf("building the training step of %s: %w", m.spec.Kind, err)
		}
		defer chunk.Finalize()
	}
	step, err := model.NewExec(backend, m.store, func(scope *model.Scope, x, y *Node) *Node {
		livevars.Mark(x.Graph())
		loss := m.ensembleLoss(scope, x, y, k, crossEntropy)
		adam.UpdateGraph(scope, x.Graph(), loss)
		return loss
	})
	if err != nil {
		return nil, fmt.Errorf("building the training step of %s: %w", m.spec.Kind, err)
	}
	defer step.Finalize()

	bags, err := Bags(ds.N(), members, opts.BaggingFraction, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("training %s: %w", m.spec.Kind, err)
	}
	batches := newMemberBatches(ds, members, opts.BatchSize, opts.Seed, bags)
	hist := &History{}
	start := clock.Now()
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		batches.shuffle()
		var sum float64
		for b := 0; b < batches.numBatches(); {
			if err := ctx.Err(); err != nil {
				return hist, fmt.Errorf("training %s interrupted at epoch %d: %w", m.spec.Kind, epoch, err)
			}
			n := batches.fullIn(b, perCall)
			var lossT *tensors.Tensor
			var err error
			if n == perCall && n > 1 {
				x, y := batches.batches(b, n)
				lossT, err = chunk.Call1(x, y)
			} else {
				n = 1
				x, y := batches.batch(b)
				lossT, err = step.Call1(x, y)
			}
			if err != nil {
				return hist, fmt.Errorf("training %s, epoch %d, batch %d: %w", m.spec.Kind, epoch, b, err)
			}
			losses := tensors.MustCopyFlatData[float32](lossT)
			lossT.MustFinalizeAll()
			for j, l := range losses {
				loss := float64(l)
				if math.IsNaN(loss) || math.IsInf(loss, 0) {
					return hist, fmt.Errorf("training %s diverged: loss is %v at epoch %d, batch %d (try a smaller learning rate)", m.spec.Kind, loss, epoch, b+j)
				}
				sum += loss
				hist.Steps++
			}
			b += n
		}
		hist.Loss = append(hist.Loss, sum/float64(batches.numBatches()))
		if opts.OnEpoch != nil {
			opts.OnEpoch(EpochStats{Epoch: epoch, Epochs: opts.Epochs, Loss: hist.Loss[epoch-1], Elapsed: clock.Since(start)})
		}
	}
	hist.Duration = clock.Since(start)
	return hist, nil
}

func checkTrainingData(m *Model, ds *data.Dataset) error {
	switch {
	case ds == nil || ds.N() == 0:
		return fmt.Errorf("training %s: empty training set", m.spec.Kind)
	case ds.D() != m.spec.NumFeatures:
		return fmt.Errorf("training %s: data set %q has %d features, the model expects %d", m.spec.Kind, ds.Name, ds.D(), m.spec.NumFeatures)
	case ds.K() != m.spec.NumClasses:
		return fmt.Errorf("training %s: data set %q has %d classes, the model expects %d", m.spec.Kind, ds.Name, ds.K(), m.spec.NumClasses)
	}
	return nil
}

// trainChunk is the number of minibatches, and Adam steps, one graph call of Train takes: the steps are
// unrolled in the graph (counterfactual's searchChunk says why not in a While), so that the host hands
// data over and reads losses back once per trainChunk steps.
const trainChunk = 10

// TrainStepsPerCall returns the minibatches a training loop takes per graph call on a backend (Train here,
// vae.Train; energy.TrainJEM takes fewer where their SGLD steps would make the graph large): 10 on XLA's
// accelerator plugins (CUDA), 1 on the pure-Go backend and XLA's CPU plugin, where the chunks are slower
// (BenchmarkTrainChunks compares them).
func TrainStepsPerCall(backend compute.Backend) int {
	p, xla := backend.(interface{ PluginName() string })
	if !xla || strings.Contains(strings.ToLower(p.PluginName()), "cpu") {
		return 1
	}
	return trainChunk
}

// crossEntropy returns the per-row cross-entropy of logits [B, K] against integer labels [B].
func crossEntropy(logits, labels *Node) *Node {
	oneHot := OneHot(labels, logits.Shape().Dimensions[1], logits.DType())
	return Neg(ReduceSum(Mul(oneHot, LogSoftmax(logits)), -1))
}

// ensembleLoss takes x [M, B, D] and y [M, B] (member i trains on x[i], y[i]) and returns the sum over
// members of the mean per-row loss.
func (m *Model) ensembleLoss(scope *model.Scope, x, y *Node, k int, rowLoss func(logits, labels *Node) *Node) *Node {
	dims := x.Shape().Dimensions
	if m.spec.Kind == KindLeNet {
		xi, yi := Reshape(x, dims[1], dims[2]), Reshape(y, dims[1])
		return ReduceAllMean(rowLoss(m.memberLogits(scope, xi, 0), yi))
	}
	logits := m.stackedLogits(scope, x) // [M, B, K]
	perRow := rowLoss(Reshape(logits, dims[0]*dims[1], k), Reshape(y, dims[0]*dims[1]))
	// The mean over all M·B rows times M is the sum over members of each member's mean.
	return MulScalar(ReduceAllMean(perRow), float64(dims[0]))
}

// memberBatches serves, for every ensemble member, minibatches in that member's own shuffled order (of
// its bag, when bags are given), packed as x [M, B, D] and y [M, B] tensors.
type memberBatches struct {
	ds        *data.Dataset
	size      int
	perms     [][]int
	bags      [][]int
	rngs      []*rand.Rand
	rows      int // rows per member and epoch
	dims, num int
}

func newMemberBatches(ds *data.Dataset, members, size int, seed uint64, bags [][]int) *memberBatches {
	rows := ds.N()
	if bags != nil {
		rows = len(bags[0])
	}
	mb := &memberBatches{ds: ds, size: min(size, rows), dims: ds.D(), bags: bags, rows: rows}
	for i := range members {
		mb.rngs = append(mb.rngs, data.NewRand(seed+uint64(i)*0x9E3779B97F4A7C15))
		mb.perms = append(mb.perms, nil)
	}
	mb.num = (rows + mb.size - 1) / mb.size
	return mb
}

func (mb *memberBatches) numBatches() int { return mb.num }

func (mb *memberBatches) shuffle() {
	for i, r := range mb.rngs {
		mb.perms[i] = r.Perm(mb.rows)
		if mb.bags != nil {
			for j, p := range mb.perms[i] {
				mb.perms[i][j] = mb.bags[i][p]
			}
		}
	}
}

func (mb *memberBatches) batch(b int) (x, y *tensors.Tensor) {
	return mb.batches(b, 1)
}

// fill writes minibatch b of every member into xs [M, B, D] and ys [M, B] (n rows each) and returns n.
func (mb *memberBatches) fill(b int, xs []float32, ys []int32) int {
	start := b * mb.size
	end := min(start+mb.size, mb.rows)
	n, d := end-start, mb.dims
	for i, perm := range mb.perms {
		for j, row := range perm[start:end] {
			copy(xs[(i*n+j)*d:(i*n+j+1)*d], mb.ds.Row(row))
			ys[i*n+j] = int32(mb.ds.Y[row])
		}
	}
	return n
}

// fullIn returns how many of the k minibatches from b on are whole (of the batch size), up to the first
// that is not or the end of the epoch.
func (mb *memberBatches) fullIn(b, k int) int {
	n := 0
	for n < k && b+n < mb.num && (b+n+1)*mb.size <= mb.rows {
		n++
	}
	return n
}

// batches packs the k minibatches from b on as x [k, M, B, D] and y [k, M, B] (k = 1: x [M, B, D] and
// y [M, B], where B may be the epoch's partial last batch); for k > 1 they must be whole (fullIn).
func (mb *memberBatches) batches(b, k int) (x, y *tensors.Tensor) {
	members, d := len(mb.perms), mb.dims
	n := min(mb.size, mb.rows-b*mb.size)
	xs := make([]float32, k*members*n*d)
	ys := make([]int32, k*members*n)
	for j := range k {
		mb.fill(b+j, xs[j*members*n*d:(j+1)*members*n*d], ys[j*members*n:(j+1)*members*n])
	}
	if k == 1 {
		return tensors.FromFlatDataAndDimensions(xs, members, n, d), tensors.FromFlatDataAndDimensions(ys, members, n)
	}
	return tensors.FromFlatDataAndDimensions(xs, k, members, n, d), tensors.FromFlatDataAndDimensions(ys, k, members, n)
}

// tensorRows wraps row-major data as an [n, d] tensor.
func tensorRows(x []float32, n, d int) *tensors.Tensor {
	return tensors.FromFlatDataAndDimensions(x, n, d)
}
