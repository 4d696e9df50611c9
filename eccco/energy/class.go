package energy

import (
	"context"
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// Defaults of the unfaithfulness metric (appendix): 50 chains per class, keep the n_E = 25 lowest-energy.
const (
	DefaultChains = 50
	DefaultKeep   = 25
)

// ClassOptions configure SampleClass and SamplePerClass.
type ClassOptions struct {
	// SGLD is the sampler; see DefaultClassOptions.
	SGLD SGLD
	// Prior is where every chain starts (inference uses no replay buffer).
	Prior Prior
	// Chains per class; 0 means DefaultChains (50).
	Chains int
	// Keep is the number of lowest-energy samples returned per class; 0 means DefaultKeep (25). Use
	// Keep = Chains to return all samples (the paper's real-world data sets: 10 chains, all kept).
	Keep int
	// SharedStart is the probability that a chain starts at its class's one shared draw from Prior
	// rather than at its own draw; 0 starts every chain afresh (the paper). The authors' code (a
	// JointEnergyModels v0.1.3 ConditionalSampler whose replay buffer held a single prior draw, with
	// prob_buffer = 0.95) started about 95 % of the chains at one point: AuthorsSharedStart.
	SharedStart float64
	// RankByLogSoftmax ranks the samples by −log softmax_y(x) instead of E(x|y) = −logit_y(x) when
	// keeping the lowest Keep, as the authors' get_lowest_energy_sample did (authors'-code compatibility).
	// ClassSamples.Energies then hold −log softmax_y, ascending.
	RankByLogSoftmax bool
	// Graphs, when set, keeps the sampler's compiled graphs for later draws with the same model and
	// settings (models.Graphs): the benchmark draws every run of a model with one compilation. nil
	// compiles them in every call. The samples are the same either way.
	Graphs *models.Graphs
}

// samplerKey names a class sampler in models.Graphs: the classifier, the gradient's scale and the SGLD
// settings (printed: they hold the prior's bounds as slices).
type samplerKey struct {
	clf   models.Classifier
	scale float64
	sgld  string
}

// AuthorsSharedStart is the share of the authors' inference chains that started at one shared point.
const AuthorsSharedStart = 0.95

// DefaultClassOptions returns the paper's inference setting: the biased SGLD of the paper (φ = 2,
// σ = 0.01, 500 steps) with gradients clipped element-wise to ±0.01 as in the authors' code, chains
// started uniformly from prior and clamped to its box, 50 chains, 25 kept.
//
// The clipping is not in the paper's text but it is what made the paper's samples: without it a step of
// (φ/2)·∇E = ∇E is far too large for the tabular models, whose input gradients reach several units, and
// chains bounce between the corners of the box, so that many samples are not predicted as their class
// and lie far from its training data (`eccco sample` shows both; paper/differences.md has the numbers).
// Set SGLD.ClipGrad = 0 for the text's unclipped sampler.
func DefaultClassOptions(prior Prior) ClassOptions {
	s := DefaultSGLD()
	s.ClipGrad = AuthorsClipGrad
	s.Lower, s.Upper = prior.Lower, prior.Upper
	return ClassOptions{SGLD: s, Prior: prior, Chains: DefaultChains, Keep: DefaultKeep}
}

// AuthorsClassOptions returns the inference sampler of the authors' code (ECCCo.jl's EnergySampler)
// with chains started from prior: about 95 % of them at one shared draw (SharedStart); φ = 2, σ = 0.01,
// 500 steps, gradients of the class's batch-mean energy (each chain's gradient divided by the number of
// chains) clipped to ±0.01, clamped to prior's box once, after the last step (SGLD.ClampAtEnd,
// JointEnergyModels v0.1.3 src/Samplers/Samplers.jl:50); 50 chains, the 25 lowest by −log softmax kept.
// Chains move at most 0.01 per step (5 over 500 steps) and mostly from the same point.
//
// Which prior: the authors' EnergySampler drew from prior_sampling_space, one range for all features
// (ScalarPrior; ECCCo.jl src/utils.jl:66-73, src/sampling.jl:53), which TargetSampleOptions passes.
// Of the other readings, the per-feature mean ± 3 sd (PriorFromData) comes close to the published German
// Credit unfaithfulness and the data's overall range (ExtremaPrior) does not (paper/differences.md);
// German Credit's features are standardised, so ScalarPrior is close to PriorFromData there.
func AuthorsClassOptions(prior Prior) ClassOptions {
	s := AuthorsSGLD()
	s.Lower, s.Upper, s.ClampAtEnd = prior.Lower, prior.Upper, true
	return ClassOptions{SGLD: s, Prior: prior, Chains: DefaultChains, Keep: DefaultKeep,
		SharedStart: AuthorsSharedStart, RankByLogSoftmax: true}
}

// Settings of the sampler that ECCCo.jl's generator built for ECCCo-L1's penalty: nsamples = 10,
// niter = 100, nmin = 1 (src/generator.jl:22-24; run_benchmark passes nsamples = nothing → 10 and never
// niter_eccco).
const (
	AuthorsL1Chains = 10
	AuthorsL1Steps  = 100
	AuthorsL1Lowest = 1
)

// AuthorsL1ClassOptions returns the sampler that the authors' ECCCo-L1 family drew its samples with:
// AuthorsClassOptions(prior) with AuthorsL1Chains (10) chains of AuthorsL1Steps (100) steps, all
// kept, lowest −log softmax first. ECCCo.jl's distance_from_energy built it once per counterfactual and
// cached it in ce.params (src/penalties.jl:116); the penalty pulled towards its nmin = 1 lowest-energy
// sample (l.119-121: TargetSamples.Lowest(AuthorsL1Lowest)) and divided by n = 10 (l.134); the
// unfaithfulness metric, finding the sampler cached, took min(25, 10) = 10 samples and divided by its
// own n = 50 (metrics.Options.UnfaithfulnessDivisor).
func AuthorsL1ClassOptions(prior Prior) ClassOptions {
	o := AuthorsClassOptions(prior)
	o.SGLD.Steps = AuthorsL1Steps
	o.Chains, o.Keep = AuthorsL1Chains, AuthorsL1Chains
	return o
}

func (o ClassOptions) withDefaults(clf models.Classifier) (ClassOptions, error) {
	if o.Chains == 0 {
		o.Chains = DefaultChains
	}
	if o.Keep == 0 {
		o.Keep = min(DefaultKeep, o.Chains)
	}
	if err := o.Prior.Validate(); err != nil {
		return o, err
	}
	switch {
	case clf == nil:
		return o, fmt.Errorf("class sampling: nil classifier")
	case o.Prior.D() != clf.NumFeatures():
		return o, fmt.Errorf("class sampling: prior has %d features, the model %d", o.Prior.D(), clf.NumFeatures())
	case o.Chains < 0 || o.Keep < 0 || o.Keep > o.Chains:
		return o, fmt.Errorf("class sampling: Chains = %d, Keep = %d (want 0 < Keep ≤ Chains)", o.Chains, o.Keep)
	case !(o.SharedStart >= 0 && o.SharedStart <= 1):
		return o, fmt.Errorf("class sampling: SharedStart = %v, must be in [0, 1]", o.SharedStart)
	}
	return o, nil
}

// ClassSamples are the kept SGLD samples of one class.
type ClassSamples struct {
	Class int
	// X holds the samples, row-major (Keep·D values), lowest energy first.
	X []float32
	// Energies are E(x|Class) of the rows of X, ascending.
	Energies []float32
}

// SampleClass draws conditional samples of clf for one class: opts.Chains chains from the prior, SGLD
// for opts.SGLD.Steps steps, and the opts.Keep samples with the lowest E(x|class).
func SampleClass(ctx context.Context, backend compute.Backend, clf models.Classifier, class int, opts ClassOptions, seed uint64) (*ClassSamples, error) {
	all, err := sampleClasses(ctx, backend, clf, []int{class}, opts, seed, nil)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// SampleClasses draws, for every class classes[i], the samples SampleClass(classes[i], seeds[i]) draws
// (the same starts and the same noise), all in one batched run of len(classes)·Chains chains: several
// classes' independent draws for the cost of one graph call per block of steps. A class's samples do not
// depend on the classes drawn with it: they are SampleClass's, up to the rounding of the model's
// arithmetic on a larger batch (bit for bit for the MLP of TestSampleClassesEqualsOneClassAtATime on the
// pure-Go backend, whose energies differ in the last bit); with SGLD.BatchMeanGrad by rounding too (the
// gradient of each class's batch mean is taken as K times the whole batch's). Element i of the result is
// classes[i]'s.
func SampleClasses(ctx context.Context, backend compute.Backend, clf models.Classifier, classes []int, opts ClassOptions, seeds []uint64) ([]*ClassSamples, error) {
	if len(classes) == 0 || len(seeds) != len(classes) {
		return nil, fmt.Errorf("class sampling: %d classes and %d seeds (want one seed per class)", len(classes), len(seeds))
	}
	return sampleClasses(ctx, backend, clf, classes, opts, 0, seeds)
}

// SamplePerClass draws conditional samples for every class of clf in one batch of K·Chains chains (the
// data behind the appendix figures of SGLD samples); element k of the result is class k. With
// SGLD.BatchMeanGrad each chain's gradient is divided by Chains (the class's own batch, as the authors'
// one-class-at-a-time sampler did), not by the K·Chains of the whole batch.
func SamplePerClass(ctx context.Context, backend compute.Backend, clf models.Classifier, opts ClassOptions, seed uint64) ([]*ClassSamples, error) {
	if clf == nil {
		return nil, fmt.Errorf("class sampling: nil classifier")
	}
	classes := make([]int, clf.NumClasses())
	for k := range classes {
		classes[k] = k
	}
	return sampleClasses(ctx, backend, clf, classes, opts, seed, nil)
}

// sampleClasses draws opts.Chains chains of every class of classes in one batched run: from one generator
// seeded by seed when seeds is nil, else class i's chains from their own seeds[i] (SampleClasses).
func sampleClasses(ctx context.Context, backend compute.Backend, clf models.Classifier, classes []int, opts ClassOptions, seed uint64, seeds []uint64) ([]*ClassSamples, error) {
	opts, err := opts.withDefaults(clf)
	if err != nil {
		return nil, err
	}
	for _, c := range classes {
		if c < 0 || c >= clf.NumClasses() {
			return nil, fmt.Errorf("class sampling: class %d out of range [0, %d)", c, clf.NumClasses())
		}
	}
	d, n := clf.NumFeatures(), opts.Chains
	var x0 []float32
	var runSeeds []uint64
	if seeds == nil {
		rng := data.NewRand(seed)
		x0 = opts.Prior.Draw(n*len(classes), rng)
		if opts.SharedStart > 0 {
			for i := range classes {
				shared := opts.Prior.Draw(1, rng)
				for c := range n {
					if rng.Float64() < opts.SharedStart {
						copy(x0[(i*n+c)*d:(i*n+c+1)*d], shared)
					}
				}
			}
		}
		runSeeds = []uint64{rng.Uint64()}
	} else {
		// Class i's chains start and move as SampleClass(classes[i], seeds[i]) would move them.
		if len(seeds) != len(classes) {
			return nil, fmt.Errorf("class sampling: %d seeds for %d classes", len(seeds), len(classes))
		}
		for i := range classes {
			rng := data.NewRand(seeds[i])
			xi := opts.Prior.Draw(n, rng)
			if opts.SharedStart > 0 {
				shared := opts.Prior.Draw(1, rng)
				for c := range n {
					if rng.Float64() < opts.SharedStart {
						copy(xi[c*d:(c+1)*d], shared)
					}
				}
			}
			x0 = append(x0, xi...)
			runSeeds = append(runSeeds, rng.Uint64())
		}
	}
	y := make([]int32, 0, n*len(classes))
	for _, c := range classes {
		for range n {
			y = append(y, int32(c))
		}
	}
	en, scale := ClassifierEnergy(clf), 1.0
	if opts.SGLD.BatchMeanGrad && len(classes) > 1 {
		// The sampler divides by the whole batch, K·Chains; the class's own batch is Chains.
		k := float64(len(classes))
		en, scale = func(x, y *Node) *Node { return MulScalar(ClassifierEnergy(clf)(x, y), k) }, k
	}
	graphs := opts.Graphs
	if !models.Comparable(clf) {
		graphs = nil
	}
	sp, done, err := models.Kept(graphs, samplerKey{clf: clf, scale: scale, sgld: fmt.Sprintf("%+v", opts.SGLD)},
		func() (*Sampler, error) { return opts.SGLD.NewSampler(backend, en, d) }, (*Sampler).Finalize)
	if err != nil {
		return nil, fmt.Errorf("sampling classes %v: %w", classes, err)
	}
	defer done()
	samples, energies, err := sp.RunGroups(ctx, x0, y, runSeeds)
	if err != nil {
		return nil, fmt.Errorf("sampling classes %v: %w", classes, err)
	}
	if opts.SGLD.BatchMeanGrad && len(classes) > 1 {
		for i := range energies {
			energies[i] /= float32(len(classes))
		}
	}
	if opts.RankByLogSoftmax {
		if energies, err = negLogSoftmax(graphs, backend, clf, samples, y); err != nil {
			return nil, fmt.Errorf("sampling classes %v: %w", classes, err)
		}
	}
	out := make([]*ClassSamples, len(classes))
	for i, c := range classes {
		x, e, _, err := LowestEnergy(samples[i*n*d:(i+1)*n*d], energies[i*n:(i+1)*n], opts.Keep)
		if err != nil {
			return nil, err
		}
		out[i] = &ClassSamples{Class: c, X: x, Energies: e}
	}
	return out, nil
}

// negLogSoftmax returns −log softmax_{y_i}(x_i) for the rows of x, computed in Go in float64 from the
// logits. Not GoMLX's LogSoftmax in float32: that rounds to exactly 0 for every sample the model is sure
// of (p > 1 − 6e-8), tying them and leaving the ranking to the chains' order; float64 separates them down
// to p ≈ 1 − 1e-16. (LogSoftmax in float64 would do, but its last bits differ from this, which reorders
// near-ties and so changes the benchmark's results; see TestRankByLogSoftmaxSeparatesConfidentSamples.)
func negLogSoftmax(g *models.Graphs, backend compute.Backend, clf models.Classifier, x []float32, y []int32) ([]float32, error) {
	logits, err := models.KeptLogits(g, backend, clf, x)
	if err != nil {
		return nil, err
	}
	k := clf.NumClasses()
	out := make([]float32, len(y))
	for i, c := range y {
		row := logits[i*k : (i+1)*k]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		var sum float64
		for _, v := range row {
			sum += math.Exp(float64(v) - m)
		}
		out[i] = float32(m + math.Log(sum) - float64(row[c]))
	}
	return out, nil
}

// NearestDistances measures how close samples (row-major, rows of ds.D() features) sit to the data of a
// class: it returns the mean over the rows of the Euclidean distance to the nearest row of ds labelled
// class, and the same mean for the nearest row of any other class. Samples that the model has learned
// well sit much closer to their own class than to the others.
func NearestDistances(samples []float32, ds *data.Dataset, class int) (own, other float64, err error) {
	switch {
	case ds == nil || ds.N() == 0:
		return 0, 0, fmt.Errorf("nearest distances: empty data set")
	case len(samples) == 0 || len(samples)%ds.D() != 0:
		return 0, 0, fmt.Errorf("nearest distances: %d values are not whole rows of %d features", len(samples), ds.D())
	case class < 0 || class >= ds.K():
		return 0, 0, fmt.Errorf("nearest distances: class %d out of range [0, %d)", class, ds.K())
	}
	d := ds.D()
	n := len(samples) / d
	for i := range n {
		bestOwn, bestOther := math.Inf(1), math.Inf(1)
		x := samples[i*d : (i+1)*d]
		for j := range ds.N() {
			var sq float64
			for f, v := range ds.Row(j) {
				diff := float64(x[f] - v)
				sq += diff * diff
			}
			if ds.Y[j] == class {
				bestOwn = min(bestOwn, sq)
			} else {
				bestOther = min(bestOther, sq)
			}
		}
		own += math.Sqrt(bestOwn) / float64(n)
		other += math.Sqrt(bestOther) / float64(n)
	}
	return own, other, nil
}
