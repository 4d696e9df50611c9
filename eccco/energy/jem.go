package energy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
)

// JEMOptions configure TrainJEM (Joint Energy Model training, Grathwohl et al. 2020, as in the authors'
// JointEnergyModels.jl).
type JEMOptions struct {
	// Epochs and BatchSize as for models.Train (both required).
	Epochs, BatchSize int
	// LearningRate is Adam's step; 0 means 1e-3.
	LearningRate float64
	// SGLD draws the samples of every minibatch; its Steps is the table's "SGLD steps" (e.g. 30). Start
	// from AuthorsSGLD (φ = 2, σ = 0.01, gradients clipped to ±0.01).
	SGLD SGLD
	// Samples is the number of SGLD chains per minibatch and member (e.g. 10 or 50); 0 means BatchSize.
	Samples int
	// Lambda is λ_reg, the weight of the energy-magnitude regulariser (0.1 or 0.01 in the paper).
	Lambda float64
	// Prior starts fresh chains (see PriorFromData); the replay buffers use the paper's defaults.
	Prior Prior
	// FirstLabelEnergy reproduces a quirk of the authors' JointEnergyModels.jl (gen_loss and reg_loss call
	// energy(…, x, onecold(y)[1])): the generative and regularisation terms evaluate the energies of the
	// whole minibatch and of the SGLD samples conditioned on one class, the label of the minibatch's first
	// row, instead of each data row's own label and the class the samples were drawn for. Data rows of every
	// class then have the energy of that class lowered. Authors'-code compatibility; off by default.
	FirstLabelEnergy bool
	// SoftmaxEnergy samples and regularises −softmax(f(x))[y] instead of the energy −f(x)[y]; the
	// classification loss and the trained logits are unchanged. It is an option, not the authors' code:
	// their JEMs were MLJFlux chains ending in a softmax finaliser, but JointEnergyModels v0.1.3 strips a
	// trailing function before computing energies (src/utils.jl:4, get_logits, used by _energy at l.13/33
	// and by gen_loss/reg_loss, src/model.jl:65,77), so their energies were −logits. How either choice
	// compares with the published numbers is in paper/differences.md.
	SoftmaxEnergy bool
	// Seed fixes minibatch order, classes, chain starts and noise.
	Seed uint64
	// BaggingFraction, when positive, trains every member of a JEM ensemble on its own bag of rows
	// (models.Bags), as MLJEnsembles' EnsembleModel (bagging_fraction = 0.8) did for the authors' JEM
	// ensemble (ECCCo.jl experiments/models/default_models.jl:90). 0: every member on all rows.
	BaggingFraction float64
	// BufferCapacity is the number of samples each member's replay buffer keeps; 0 means the paper's
	// 10,000 (DefaultBufferCapacity).
	BufferCapacity int
	// OnEpoch, if set, is called after every epoch.
	OnEpoch func(models.EpochStats)
}

// WithAuthorsCode returns o with the switch that reproduces how the authors' experiments trained their
// JEMs: FirstLabelEnergy, with the energies −logits (SoftmaxEnergy off). The validity of the
// counterfactuals of JEMs trained either way is in paper/differences.md.
func (o JEMOptions) WithAuthorsCode() JEMOptions {
	o.FirstLabelEnergy, o.SoftmaxEnergy = true, false
	return o
}

// TrainJEM trains an MLP model, single or ensemble, as a Joint Energy Model. Every ensemble member is a JEM
// of its own (the paper's JEM ensemble): it has its own minibatch order, its own replay buffer and its own
// SGLD samples from its own energy, and the members advance side by side in one graph. For every
// minibatch (x, y) each member draws Samples SGLD samples x̂ of one class c chosen uniformly at random,
// starting 5% of chains fresh from the prior and the rest from its replay buffer (up to 10,000 samples,
// newest kept), which then receives x̂; the Adam step minimises the sum over members of
//
//	L = CE(x, y) + (mean E(x|y) − mean E(x̂|c)) + λ·(mean E(x|y)² + mean E(x̂|c)²),
//
// with E the member's conditional energy. When L is not finite for any member the step is skipped for all
// members and counted in History.Skipped; History.Loss holds the mean finite summed L per epoch.
//
// On XLA's accelerator plugins one graph call takes several whole minibatches (as models.Train does: 10,
// fewer where their SGLD steps together would exceed 100; 1 on the pure-Go backend and XLA's CPU plugin):
// their chains, losses and
// conditional Adam steps, with the replay buffers' draws made on the host beforehand, so the weights are
// those of one call per minibatch. TrainJEM honours ctx between calls.
func TrainJEM(ctx context.Context, backend compute.Backend, m *models.Model, ds *data.Dataset, opts JEMOptions) (*models.History, error) {
	return trainJEM(ctx, backend, m, ds, opts, jemMinibatchesPerCall(backend, opts.SGLD))
}

// trainJEM is TrainJEM with perCall whole minibatches per graph call (jemChunk; 1: one per call, with
// the SGLD sampler, the loss and the Adam step as separate calls).
func trainJEM(ctx context.Context, backend compute.Backend, m *models.Model, ds *data.Dataset, opts JEMOptions, perCall int) (*models.History, error) {
	switch {
	case m == nil || ds == nil || ds.N() == 0:
		return nil, fmt.Errorf("jem: nil model or empty data")
	case m.Spec().Kind == models.KindLeNet:
		return nil, fmt.Errorf("jem: only MLPs and MLP ensembles can be trained as JEMs, not %s", m.Spec().Kind)
	case ds.D() != m.NumFeatures() || ds.K() != m.NumClasses():
		return nil, fmt.Errorf("jem: data has %d features and %d classes, the model %d and %d", ds.D(), ds.K(), m.NumFeatures(), m.NumClasses())
	case opts.Epochs <= 0 || opts.BatchSize <= 0:
		return nil, fmt.Errorf("jem: Epochs (%d) and BatchSize (%d) must be positive", opts.Epochs, opts.BatchSize)
	case opts.Lambda < 0 || math.IsNaN(opts.Lambda):
		return nil, fmt.Errorf("jem: Lambda = %v, must be non-negative", opts.Lambda)
	case opts.Prior.D() != ds.D():
		return nil, fmt.Errorf("jem: prior has %d features, the data %d", opts.Prior.D(), ds.D())
	case opts.BufferCapacity < 0:
		return nil, fmt.Errorf("jem: BufferCapacity = %d, must be non-negative", opts.BufferCapacity)
	}
	lr := opts.LearningRate
	if lr == 0 {
		lr = 1e-3
	}
	nSamples := opts.Samples
	if nSamples <= 0 {
		nSamples = opts.BatchSize
	}
	d, k, members := ds.D(), ds.K(), m.NumMembers()

	// The sampler runs members·nSamples chains as one batch; chain i belongs to member i / nSamples.
	// With BatchMeanGrad (paper code) each member's gradient must be divided by its own nSamples, not by
	// the whole batch, hence the factor members on the energy that the sampler differentiates.
	sgld := opts.SGLD
	scale := 1.0
	if sgld.BatchMeanGrad {
		scale = float64(members)
	}
	memberEnergy := func(x, y *Node) *Node {
		xs := Reshape(x, members, nSamples, d)
		out := m.StackedLogits(xs)
		if opts.SoftmaxEnergy {
			out = Softmax(out, -1)
		}
		e := pickNegLogit(out, Reshape(y, members, nSamples)) // [M, S]
		return MulScalar(Reshape(e, members*nSamples), scale)
	}
	sampler, err := sgld.NewSampler(backend, memberEnergy, d)
	if err != nil {
		return nil, fmt.Errorf("jem: %w", err)
	}
	sampler.live = true // it samples from the weights of each step
	defer sampler.Finalize()

	// x [M, B, D], y [M, B], xs [M, S, D], ys [M, S] → the members' losses [M].
	memberLosses := func(x, y, xs, ys *Node) *Node {
		logits := m.StackedLogits(x) // [M, B, K]
		ce := ReduceMean(Neg(ReduceSum(Mul(OneHot(y, k, logits.DType()), LogSoftmax(logits)), -1)), 1)
		yData, ySample := y, ys
		if opts.FirstLabelEnergy {
			first := Slice(y, AxisRange(), AxisRange(0, 1)) // [M, 1]
			yData = BroadcastToDims(first, y.Shape().Dimensions...)
			ySample = BroadcastToDims(first, ys.Shape().Dimensions...)
		}
		outData, outSample := logits, m.StackedLogits(xs)
		if opts.SoftmaxEnergy {
			outData, outSample = Softmax(outData, -1), Softmax(outSample, -1)
		}
		eData := pickNegLogit(outData, yData)       // [M, B]
		eSample := pickNegLogit(outSample, ySample) // [M, S]
		gen := Sub(ReduceMean(eData, 1), ReduceMean(eSample, 1))
		reg := MulScalar(Add(ReduceMean(Square(eData), 1), ReduceMean(Square(eSample), 1)), opts.Lambda)
		return Add(Add(ce, gen), reg)
	}
	adam := optimizer.Adam().LearningRate(lr).Done()
	step, err := model.NewExec(backend, m.Store(), func(scope *model.Scope, x, y, xs, ys *Node) *Node {
		livevars.Mark(x.Graph())
		loss := ReduceAllSum(memberLosses(x, y, xs, ys))
		adam.UpdateGraph(scope, x.Graph(), loss)
		return loss
	})
	if err != nil {
		return nil, fmt.Errorf("jem: building the training step: %w", err)
	}
	defer step.Finalize()
	check, err := model.NewExec(backend, model.NewStore(), func(_ *model.Scope, x, y, xs, ys *Node) *Node {
		livevars.Mark(x.Graph())
		return ReduceAllSum(memberLosses(x, y, xs, ys))
	})
	if err != nil {
		return nil, fmt.Errorf("jem: building the loss graph: %w", err)
	}
	defer check.Finalize()
	var chunk *jemChunk
	if perCall > 1 {
		if chunk, err = newJEMChunk(backend, m.Store(), perCall, members, nSamples, d, k, sgld, memberEnergy, memberLosses, adam); err != nil {
			return nil, err
		}
		defer chunk.Finalize()
	}

	// Every member has its own random stream (order, classes, chain starts) and buffer.
	rngs := make([]*rand.Rand, members)
	buffers := make([]*ReplayBuffer, members)
	for i := range members {
		rngs[i] = data.NewRand(opts.Seed + uint64(i)*0x9E3779B97F4A7C15)
		buffers[i] = NewReplayBuffer(opts.Prior)
		if opts.BufferCapacity > 0 {
			buffers[i].Capacity = opts.BufferCapacity
		}
	}
	noiseRng := data.NewRand(opts.Seed ^ 0x5DEECE66D)
	hist := &models.History{}
	start := clock.Now()
	bags, err := models.Bags(ds.N(), members, opts.BaggingFraction, opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("jem: %w", err)
	}
	rows := ds.N() // per member and epoch
	if bags != nil {
		rows = len(bags[0])
	}
	size := min(opts.BatchSize, rows)
	perms := make([][]int, members)
	xs0 := make([]float32, members*nSamples*d)
	ys := make([]int32, members*nSamples)
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		for i := range members {
			perms[i] = rngs[i].Perm(rows)
			if bags != nil {
				for j, p := range perms[i] {
					perms[i][j] = bags[i][p]
				}
			}
		}
		var sum float64
		var finite int
		count := func(loss float64) {
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				hist.Skipped++
				return
			}
			sum += loss
			finite++
			hist.Steps++
		}
		for b := 0; b < rows; {
			if err := ctx.Err(); err != nil {
				return hist, fmt.Errorf("jem: interrupted at epoch %d: %w", epoch, err)
			}
			if chunk != nil && (rows-b)/size >= perCall {
				losses, err := chunk.run(jemDraws{ds: ds, perms: perms, rngs: rngs, buffers: buffers, noiseRng: noiseRng}, b, size)
				if err != nil {
					return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
				}
				for _, l := range losses {
					count(float64(l))
				}
				b += perCall * size
				continue
			}
			from, n := b, min(b+size, rows)-b
			b += n
			xb := make([]float32, 0, members*n*d)
			yb := make([]int32, 0, members*n)
			for i := range members {
				for _, r := range perms[i][from : from+n] {
					xb = append(xb, ds.Row(r)...)
					yb = append(yb, int32(ds.Y[r]))
				}
				c := int32(rngs[i].IntN(k))
				for j := range nSamples {
					ys[i*nSamples+j] = c
				}
				copy(xs0[i*nSamples*d:(i+1)*nSamples*d], buffers[i].Init(nSamples, rngs[i]))
			}
			xs, _, err := sampler.Run(ctx, xs0, ys, noiseRng.Uint64())
			if err != nil {
				return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
			}
			for i := range members {
				if err := buffers[i].Add(xs[i*nSamples*d : (i+1)*nSamples*d]); err != nil {
					return hist, err
				}
			}
			args := []any{
				tensors.FromFlatDataAndDimensions(xb, members, n, d), tensors.FromFlatDataAndDimensions(yb, members, n),
				tensors.FromFlatDataAndDimensions(xs, members, nSamples, d), tensors.FromFlatDataAndDimensions(append([]int32(nil), ys...), members, nSamples),
			}
			loss, err := scalarCall(check, args)
			if err != nil {
				return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
			}
			if !math.IsNaN(loss) && !math.IsInf(loss, 0) {
				if _, err := scalarCall(step, args); err != nil {
					return hist, fmt.Errorf("jem: epoch %d: %w", epoch, err)
				}
			}
			count(loss)
		}
		mean := math.NaN()
		if finite > 0 {
			mean = sum / float64(finite)
		}
		hist.Loss = append(hist.Loss, mean)
		if opts.OnEpoch != nil {
			opts.OnEpoch(models.EpochStats{Epoch: epoch, Epochs: opts.Epochs, Loss: mean, Elapsed: clock.Since(start)})
		}
	}
	hist.Duration = clock.Since(start)
	return hist, nil
}

// pickNegLogit returns −logits[..., y] for logits [..., K] and integer labels y [...].
func pickNegLogit(logits, y *Node) *Node {
	if y.DType() != dtypes.Int32 {
		y = ConvertDType(y, dtypes.Int32)
	}
	k := logits.Shape().Dimensions[logits.Rank()-1]
	return Neg(ReduceSum(Mul(OneHot(y, k, logits.DType()), logits), -1))
}

// scalarCall runs exec on args and returns its scalar float32 result.
func scalarCall(exec *model.Exec, args []any) (float64, error) {
	t, err := exec.Call1(args...)
	if err != nil {
		return 0, err
	}
	defer t.MustFinalizeAll()
	return float64(tensors.MustCopyFlatData[float32](t)[0]), nil
}
