package vae

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/livevars"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Training defaults of the authors' VAE (CounterfactualExplanations.jl, VAEParams in
// src/generative_models/vae.jl): Adam with η = 1e-3, minibatches of 50, 100 epochs, L2 penalty λ = 0.01
// on the decoder's parameters.
const (
	DefaultEpochs       = 100
	DefaultBatchSize    = 50
	DefaultLearningRate = 1e-3
	DefaultL2           = 0.01
	// VisionL2 is the weaker penalty of the pretrained MNIST and Fashion-MNIST VAEs
	// (dev/artifacts/vision.qmd:49,164 of CounterfactualExplanations.jl: λ = 0.0001).
	VisionL2 = 1e-4
)

// TrainOptions configure Train. Zero values take the defaults noted on each field.
type TrainOptions struct {
	// Epochs is the number of passes over the training data (required, > 0).
	Epochs int
	// BatchSize is the minibatch size; 0 means DefaultBatchSize (50). The last, smaller batch of an epoch
	// is kept, as Flux's DataLoader does.
	BatchSize int
	// LearningRate is Adam's step size; 0 means DefaultLearningRate (1e-3).
	LearningRate float64
	// L2 is λ of the penalty λ·Σθ² over the decoder's weights and biases; 0 means no penalty (must not be
	// negative). catalogue.Dataset.VAETrainOptions sets the authors' value.
	L2 float64
	// Seed fixes the order of minibatches and the reparameterisation noise. The same seed, data and VAE
	// give the same weights.
	Seed uint64
	// OnEpoch, if set, is called after every epoch (e.g. to advance a progress bar).
	OnEpoch func(EpochStats)
}

// EpochStats summarises one finished epoch. The terms are those of the training objective, averaged over
// the epoch's minibatches.
type EpochStats struct {
	Epoch, Epochs int
	// Loss is Reconstruction + KL + the L2 penalty.
	Loss float64
	// Reconstruction is the sum over features of the squared error of a row's reconstruction from a
	// sampled z, averaged over rows.
	Reconstruction float64
	// KL is KL(q(z|x) ‖ N(0, I)) averaged over rows.
	KL      float64
	Elapsed time.Duration // since training started
}

// History records a training run: one entry per epoch (see EpochStats).
type History struct {
	Loss, Reconstruction, KL []float64
	Duration                 time.Duration // wall time of the whole run
	Steps                    int           // optimiser steps taken
}

// Train fits v to the rows of ds (labels are ignored) by minibatch Adam on the authors' objective,
// the negative ELBO of a Gaussian decoder plus an L2 penalty:
//
//	loss = (1/B) Σ_rows ‖x̂ − x‖² + (1/B) Σ_rows KL(N(μ, σ²) ‖ N(0, I)) + λ Σ_decoder θ²,
//	x̂ = Decode(μ + σ ⊙ ε), ε ~ N(0, I),
//
// i.e. sums over features and latent dimensions, means over the B rows of the minibatch (Flux's
// mse(…, agg = sum)/B in CounterfactualExplanations.jl's model_loss). The noise ε is drawn in Go from a
// seeded generator and fed to the graph, so runs are reproducible. On XLA's accelerator plugins Train
// takes 10 minibatches per graph call where they are whole, with the weights of one call per minibatch
// (models.TrainStepsPerCall). Train honours ctx between calls and stops with an error if the loss stops
// being finite.
func Train(ctx context.Context, backend compute.Backend, v *VAE, ds *data.Dataset, opts TrainOptions) (*History, error) {
	return train(ctx, backend, v, ds, opts, models.TrainStepsPerCall(backend))
}

// train is Train with perCall minibatches per graph call where they are whole (1: one per call).
func train(ctx context.Context, backend compute.Backend, v *VAE, ds *data.Dataset, opts TrainOptions, perCall int) (*History, error) {
	switch {
	case ds == nil || ds.N() == 0:
		return nil, fmt.Errorf("training VAE: empty training set")
	case ds.D() != v.spec.NumFeatures:
		return nil, fmt.Errorf("training VAE: data set %q has %d features, the VAE expects %d", ds.Name, ds.D(), v.spec.NumFeatures)
	case opts.Epochs <= 0:
		return nil, fmt.Errorf("training VAE: Epochs = %d, must be positive", opts.Epochs)
	case opts.BatchSize < 0:
		return nil, fmt.Errorf("training VAE: BatchSize = %d, must not be negative", opts.BatchSize)
	case opts.L2 < 0 || math.IsNaN(opts.L2) || math.IsInf(opts.L2, 0):
		return nil, fmt.Errorf("training VAE: L2 = %v, must be finite and not negative", opts.L2)
	case opts.LearningRate < 0 || math.IsNaN(opts.LearningRate) || math.IsInf(opts.LearningRate, 0):
		return nil, fmt.Errorf("training VAE: LearningRate = %v, must be finite and not negative (0: the default)", opts.LearningRate)
	}
	lr, batch := opts.LearningRate, opts.BatchSize
	if lr == 0 {
		lr = DefaultLearningRate
	}
	if batch == 0 {
		batch = DefaultBatchSize
	}
	batch = min(batch, ds.N())
	adam := optimizer.Adam().LearningRate(lr).Done()
	// One graph takes perCall minibatches (x [K, B, D], eps [K, B, Latent]) and their K Adam steps, one
	// after the other, and returns the K values of each term; the other takes one minibatch (an epoch's
	// last ones). Both build the same step, so the weights are those of one step per call.
	var chunk *model.Exec
	if perCall > 1 {
		var err error
		chunk, err = model.NewExec(backend, v.store, func(scope *model.Scope, x, eps *Node) []*Node {
			livevars.Mark(x.Graph())
			xd, ed := x.Shape().Dimensions, eps.Shape().Dimensions
			var terms [3][]*Node
			for j := range xd[0] {
				xj := Reshape(Slice(x, AxisElem(j)), xd[1:]...)
				ej := Reshape(Slice(eps, AxisElem(j)), ed[1:]...)
				loss, recon, kl := v.loss(scope, xj, ej, opts.L2)
				adam.UpdateGraph(scope, x.Graph(), loss)
				terms[0], terms[1], terms[2] = append(terms[0], loss), append(terms[1], recon), append(terms[2], kl)
			}
			return []*Node{Stack(terms[0], 0), Stack(terms[1], 0), Stack(terms[2], 0)}
		})
		if err != nil {
			return nil, fmt.Errorf("building the VAE training chunk: %w", err)
		}
		defer chunk.Finalize()
	}
	step, err := model.NewExec(backend, v.store, func(scope *model.Scope, x, eps *Node) []*Node {
		livevars.Mark(x.Graph())
		loss, recon, kl := v.loss(scope, x, eps, opts.L2)
		adam.UpdateGraph(scope, x.Graph(), loss)
		return []*Node{loss, recon, kl}
	})
	if err != nil {
		return nil, fmt.Errorf("building the VAE training step: %w", err)
	}
	defer step.Finalize()

	n, d, latent := ds.N(), ds.D(), v.spec.Latent
	order := data.NewRand(opts.Seed)
	noise := data.NewRand(opts.Seed ^ 0xD1B5_4A32_D192_ED03)
	numBatches := (n + batch - 1) / batch
	whole := n / batch // the epoch's minibatches of the full size
	xs := make([]float32, max(perCall, 1)*batch*d)
	hist := &History{}
	start := clock.Now()
	for epoch := 1; epoch <= opts.Epochs; epoch++ {
		perm := order.Perm(n)
		var sum [3]float64
		for b := 0; b < numBatches; {
			if err := ctx.Err(); err != nil {
				return hist, fmt.Errorf("training VAE interrupted at epoch %d: %w", epoch, err)
			}
			k := 1
			if perCall > 1 && whole-b >= perCall {
				k = perCall
			}
			// The k minibatches from b on, and their noise drawn in the order of one step per call.
			rows := perm[b*batch : min((b+k)*batch, n)]
			for j, r := range rows {
				copy(xs[j*d:(j+1)*d], ds.Row(r))
			}
			eps := make([]float32, len(rows)*latent)
			for j := range eps {
				eps[j] = float32(noise.NormFloat64())
			}
			var out []*tensors.Tensor
			var err error
			if k > 1 {
				out, err = chunk.Call(tensors.FromFlatDataAndDimensions(xs[:len(rows)*d], k, batch, d),
					tensors.FromFlatDataAndDimensions(eps, k, batch, latent))
			} else {
				out, err = step.Call(tensors.FromFlatDataAndDimensions(xs[:len(rows)*d], len(rows), d),
					tensors.FromFlatDataAndDimensions(eps, len(rows), latent))
			}
			if err != nil {
				return hist, fmt.Errorf("training VAE, epoch %d, batch %d: %w", epoch, b, err)
			}
			var terms [3][]float32
			for i, t := range out {
				terms[i] = tensors.MustCopyFlatData[float32](t)
				t.MustFinalizeAll()
			}
			for j := range k {
				for i := range terms {
					sum[i] += float64(terms[i][j])
				}
				if math.IsNaN(sum[0]) || math.IsInf(sum[0], 0) {
					return hist, fmt.Errorf("training VAE diverged: loss is not finite at epoch %d, batch %d (try a smaller learning rate)", epoch, b+j)
				}
				hist.Steps++
			}
			b += k
		}
		nb := float64(numBatches)
		hist.Loss = append(hist.Loss, sum[0]/nb)
		hist.Reconstruction = append(hist.Reconstruction, sum[1]/nb)
		hist.KL = append(hist.KL, sum[2]/nb)
		if opts.OnEpoch != nil {
			opts.OnEpoch(EpochStats{Epoch: epoch, Epochs: opts.Epochs, Loss: sum[0] / nb, Reconstruction: sum[1] / nb,
				KL: sum[2] / nb, Elapsed: clock.Since(start)})
		}
	}
	hist.Duration = clock.Since(start)
	return hist, nil
}

// loss builds the training objective for a minibatch x [B, D] with standard normal noise eps [B, Latent]
// and returns it with its reconstruction and KL terms (see Train).
func (v *VAE) loss(scope *model.Scope, x, eps *Node, l2 float64) (loss, recon, kl *Node) {
	b := float64(x.Shape().Dimensions[0])
	mu, logSigma := v.encode(scope, x)
	z := Add(mu, Mul(eps, Exp(logSigma)))
	xHat := v.decode(scope, z)
	recon = DivScalar(ReduceAllSum(Square(Sub(xHat, x))), b)
	kl = DivScalar(ReduceAllSum(KL(mu, logSigma)), b)
	loss = Add(recon, kl)
	if l2 > 0 {
		var reg *Node
		for _, p := range v.decoderParams(x.Graph()) {
			s := ReduceAllSum(Square(p))
			if reg == nil {
				reg = s
			} else {
				reg = Add(reg, s)
			}
		}
		loss = Add(loss, MulScalar(reg, l2))
	}
	return loss, recon, kl
}
