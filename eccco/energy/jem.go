package energy

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// JEMOptions configure TrainJEM (Joint Energy Model training, Grathwohl et al. 2020, as in the authors'
// JointEnergyModels.jl).
type JEMOptions struct {
	// Epochs and BatchSize as for models.Train (both required).
	Epochs, BatchSize int
	// LearningRate is Adam's step; 0 means 1e-3.
	LearningRate float64
	// SGLD draws the samples of every minibatch; its Steps is the table's "SGLD steps" (e.g. 30). Start
	// from PaperCodeSGLD (φ = 2, σ = 0.01, gradients clipped to ±0.01).
	SGLD SGLD
	// Samples is the number of SGLD chains per minibatch (e.g. 10 or 50); 0 means BatchSize.
	Samples int
	// Lambda is λ_reg, the weight of the energy-magnitude regulariser (0.1 or 0.01 in the paper).
	Lambda float64
	// Prior starts fresh chains (see PriorFromData); the replay buffer uses the paper's defaults.
	Prior Prior
	// Seed fixes minibatch order, classes, chain starts and noise.
	Seed uint64
	// OnEpoch, if set, is called after every epoch.
	OnEpoch func(models.EpochStats)
}

// TrainJEM trains a single (non-ensemble) MLP as a Joint Energy Model. For every minibatch (x, y) it draws
// Samples SGLD samples x̂ of one class c chosen uniformly at random, starting 5% of chains fresh from the
// prior and the rest from a replay buffer (up to 10,000 samples, newest kept) that then receives x̂, and
// takes an Adam step on
//
//	L = CE(x, y) + (mean E(x|y) − mean E(x̂|c)) + λ·(mean E(x|y)² + mean E(x̂|c)²),
//
// skipping the step when L is not finite. History.Loss holds the mean finite L per epoch; steps skipped
// are not counted in History.Steps.
func TrainJEM(ctx context.Context, backend compute.Backend, m *models.Model, ds *data.Dataset, opts JEMOptions) (*models.History, error) {
	switch {
	case m == nil || ds == nil || ds.N() == 0:
		return nil, fmt.Errorf("jem: nil model or empty data")
	case m.NumMembers() != 1 || m.Spec().Kind == models.KindLeNet:
		return nil, fmt.Errorf("jem: only single MLPs can be trained as JEMs (got %s with %d members)", m.Spec().Kind, m.NumMembers())
	case ds.D() != m.NumFeatures() || ds.K() != m.NumClasses():
		return nil, fmt.Errorf("jem: data has %d features and %d classes, the model %d and %d", ds.D(), ds.K(), m.NumFeatures(), m.NumClasses())
	case opts.Epochs <= 0 || opts.BatchSize <= 0:
		return nil, fmt.Errorf("jem: Epochs (%d) and BatchSize (%d) must be positive", opts.Epochs, opts.BatchSize)
	case opts.Lambda < 0:
		return nil, fmt.Errorf("jem: Lambda = %v, must be non-negative", opts.Lambda)
	case opts.Prior.D() != ds.D():
		return nil, fmt.Errorf("jem: prior has %d features, the data %d", opts.Prior.D(), ds.D())
	}
	lr := opts.LearningRate
	if lr == 0 {
		lr = 1e-3
	}
	nSamples := opts.Samples
	if nSamples <= 0 {
		nSamples = opts.BatchSize
	}
	d, k := ds.D(), ds.K()
	sampler, err := opts.SGLD.NewSampler(backend, ClassifierEnergy(m), d)
	if err != nil {
		return nil, fmt.Errorf("jem: %w", err)
	}
	defer sampler.Finalize()

	lossFn := func(x, y, xs, ys *Node) *Node {
		logits := m.Logits(x)
		ce := ReduceAllMean(Neg(ReduceSum(Mul(OneHot(y, k, logits.DType()), LogSoftmax(logits)), -1)))
		eData := ConditionalEnergy(m, y)(x)
		eSample := ConditionalEnergy(m, ys)(xs)
		gen := Sub(ReduceAllMean(eData), ReduceAllMean(eSample))
		reg := MulScalar(Add(ReduceAllMean(Square(eData)), ReduceAllMean(Square(eSample))), opts.Lambda)
		return Add(Add(ce, gen), reg)
	}
	adam := optimizer.Adam().LearningRate(lr).Done()
	step, err := model.NewExec(backend, m.Store(), func(scope *model.Scope, x, y, xs, ys *Node) *Node {
		loss := lossFn(x, y, xs, ys)
		adam.UpdateGraph(scope, x.Graph(), loss)
		return loss
	})
	if err != nil {
		return nil, fmt.Errorf("jem: building the training step: %w", err)
	}
	defer step.Finalize()
	check, err := model.NewExec(backend, model.NewStore(), func(_ *model.Scope, x, y, xs, ys *Node) *Node {
		return lossFn(x, y, xs, ys)
	})
	if err != nil {
		return nil, fmt.Errorf("jem: building the loss graph: %w", err)
	}
	defer check.Finalize()

	rng := data.NewRand(opts.Seed)
	buffer := NewReplayBuffer(opts.Prior)
	hist := &models.History{}
	start := time.Now()
	size := min(opts.BatchSize, ds.N())
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		perm := rng.Perm(ds.N())
		var sum float64
		var finite int
		for b := 0; b < ds.N(); b += size {
			if err := ctx.Err(); err != nil {
				return hist, fmt.Errorf("jem: interrupted at epoch %d: %w", epoch, err)
			}
			rows := perm[b:min(b+size, ds.N())]
			xb := make([]float32, 0, len(rows)*d)
			yb := make([]int32, 0, len(rows))
			for _, r := range rows {
				xb = append(xb, ds.Row(r)...)
				yb = append(yb, int32(ds.Y[r]))
			}
			c := int32(rng.IntN(k))
			ys := make([]int32, nSamples)
			for i := range ys {
				ys[i] = c
			}
			xs, _, err := sampler.Run(ctx, buffer.Init(nSamples, rng), ys, rng.Uint64())
			if err != nil {
				return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
			}
			if err := buffer.Add(xs); err != nil {
				return hist, err
			}
			args := []any{
				tensors.FromFlatDataAndDimensions(xb, len(rows), d), tensors.FromFlatDataAndDimensions(yb, len(rows)),
				tensors.FromFlatDataAndDimensions(xs, nSamples, d), tensors.FromFlatDataAndDimensions(ys, nSamples),
			}
			lossT, err := check.Call1(args...)
			if err != nil {
				return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
			}
			loss := float64(tensors.MustCopyFlatData[float32](lossT)[0])
			lossT.MustFinalizeAll()
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				continue
			}
			lossT, err = step.Call1(args...)
			if err != nil {
				return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
			}
			lossT.MustFinalizeAll()
			sum += loss
			finite++
			hist.Steps++
		}
		mean := math.NaN()
		if finite > 0 {
			mean = sum / float64(finite)
		}
		hist.Loss = append(hist.Loss, mean)
		if opts.OnEpoch != nil {
			opts.OnEpoch(models.EpochStats{Epoch: epoch, Epochs: opts.Epochs, Loss: mean, Elapsed: time.Since(start)})
		}
	}
	hist.Duration = time.Since(start)
	return hist, nil
}
