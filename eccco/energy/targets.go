package energy

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// TargetSamples are conditional SGLD samples of a model for each class: Samples[k] holds n rows of D
// features for class k (SamplePerClass gives them; NewTargetSamples collects them). Every class must have
// the same n. They are what ECCCo-L1's penalty (counterfactual.DistanceToSamples) pulls counterfactuals
// towards and what the unfaithfulness metric (package metrics) measures distances to.
type TargetSamples struct {
	Samples [][]float32
	D       int
	// Chains is the number of chains drawn per class, of which the n lowest-energy ones were kept; 0 means
	// n. Only the authors'-code ECCCo-L1 penalty reads it (counterfactual.DistanceToSamplesAuthors).
	Chains int
	// PerRow marks samples drawn for every counterfactual (SampleEach): Samples[i] then belongs to row i
	// of the batch searched, towards that row's target, not to class i, and the ECCCo-L1 penalty
	// (counterfactual.DistanceToSamples) reads row i's set for row i.
	PerRow bool
}

// Kept returns the number of samples per class, n.
func (ts *TargetSamples) Kept() int { return len(ts.Samples[0]) / ts.D }

// Lowest returns the first n samples of every class (the n lowest-energy ones when the samples came from
// SampleTargets, which keeps them in ascending order of energy), with Chains unchanged: the samples the
// authors' ECCCo-L1 penalty pulled towards (n = 1 of 10 chains). n outside [1, Kept()] is an error.
func (ts *TargetSamples) Lowest(n int) (*TargetSamples, error) {
	if n < 1 || n > ts.Kept() {
		return nil, fmt.Errorf("target samples: the lowest %d of %d samples", n, ts.Kept())
	}
	out := &TargetSamples{D: ts.D, Chains: ts.Chains, PerRow: ts.PerRow}
	if out.Chains == 0 {
		out.Chains = ts.Kept()
	}
	for _, s := range ts.Samples {
		out.Samples = append(out.Samples, append([]float32(nil), s[:n*ts.D]...))
	}
	return out, nil
}

// NewTargetSamples collects SamplePerClass output for a model of d features: element k of per must be
// class k, and every class must hold the same positive number of d-feature rows.
func NewTargetSamples(per []*ClassSamples, d int) (*TargetSamples, error) {
	if d <= 0 {
		return nil, fmt.Errorf("target samples: %d features", d)
	}
	ts := &TargetSamples{D: d}
	n := -1
	for k, cs := range per {
		if cs == nil || cs.Class != k || len(cs.X) == 0 || len(cs.X)%d != 0 {
			return nil, fmt.Errorf("target samples: class %d is missing or malformed", k)
		}
		if n >= 0 && len(cs.X) != n {
			return nil, fmt.Errorf("target samples: class %d has %d values, class 0 %d", k, len(cs.X), n)
		}
		n = len(cs.X)
		ts.Samples = append(ts.Samples, cs.X)
	}
	if len(ts.Samples) == 0 {
		return nil, fmt.Errorf("target samples: no classes")
	}
	return ts, nil
}

// TargetSampleOptions returns the conditional sampler behind ECCCo-L1's samples and the unfaithfulness
// metric for a model trained on train. The paper's setting (authorsCode false): DefaultClassOptions with
// the prior of the training data, 50 chains keeping the 25 lowest-energy ones, the paper's for the
// synthetic data sets (its real-world sets draw 10 chains and keep all: catalogue.Dataset.SampleOptions
// sets a data set's numbers). The authors' code (authorsCode true): AuthorsClassOptions with the one-range
// prior of ScalarPrior(train), 50 chains keeping 25 on every data set.
func TargetSampleOptions(train *data.Dataset, authorsCode bool) (ClassOptions, error) {
	if authorsCode {
		prior, err := ScalarPrior(train)
		if err != nil {
			return ClassOptions{}, err
		}
		return AuthorsClassOptions(prior), nil
	}
	prior, err := PriorFromData(train)
	if err != nil {
		return ClassOptions{}, err
	}
	return DefaultClassOptions(prior), nil
}

// SampleTargets draws opts' conditional samples of every class of clf in one batch (SamplePerClass) and
// returns them as TargetSamples, with Chains set from opts (for the authors'-code normalisation of
// counterfactual.DistanceToSamplesAuthors).
func SampleTargets(ctx context.Context, backend compute.Backend, clf models.Classifier, opts ClassOptions, seed uint64) (*TargetSamples, error) {
	per, err := SamplePerClass(ctx, backend, clf, opts, seed)
	if err != nil {
		return nil, err
	}
	ts, err := NewTargetSamples(per, clf.NumFeatures())
	if err != nil {
		return nil, err
	}
	ts.Chains = opts.Chains
	return ts, nil
}

// SampleEach draws opts' conditional samples once for every entry of targets, independently, in one
// batched SGLD run of len(targets)·Chains chains: entry i gets its own Keep lowest-energy samples of class
// targets[i] (row-major, Keep·D values). It is how the authors scored unfaithfulness: ECCCo.jl built an
// EnergySampler for every counterfactual (src/penalties.jl:93-134, distance_from_energy), where
// SampleTargets draws one set per class that a run's counterfactuals share.
func SampleEach(ctx context.Context, backend compute.Backend, clf models.Classifier, targets []int, opts ClassOptions, seed uint64) ([][]float32, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("class sampling: no targets")
	}
	per, err := sampleClasses(ctx, backend, clf, targets, opts, seed, nil)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(per))
	for i, s := range per {
		out[i] = s.X
	}
	return out, nil
}
