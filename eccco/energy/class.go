package energy

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
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
}

// DefaultClassOptions returns the paper's inference setting: DefaultSGLD (φ = 2, σ = 0.01, 500 steps),
// chains started uniformly from prior and clamped to its box, 50 chains, 25 kept.
func DefaultClassOptions(prior Prior) ClassOptions {
	s := DefaultSGLD()
	s.Lower, s.Upper = prior.Lower, prior.Upper
	return ClassOptions{SGLD: s, Prior: prior, Chains: DefaultChains, Keep: DefaultKeep}
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
	all, err := sampleClasses(ctx, backend, clf, []int{class}, opts, seed)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// SamplePerClass draws conditional samples for every class of clf in one batch of K·Chains chains (the
// data behind the appendix figures of SGLD samples); element k of the result is class k.
func SamplePerClass(ctx context.Context, backend compute.Backend, clf models.Classifier, opts ClassOptions, seed uint64) ([]*ClassSamples, error) {
	if clf == nil {
		return nil, fmt.Errorf("class sampling: nil classifier")
	}
	classes := make([]int, clf.NumClasses())
	for k := range classes {
		classes[k] = k
	}
	return sampleClasses(ctx, backend, clf, classes, opts, seed)
}

func sampleClasses(ctx context.Context, backend compute.Backend, clf models.Classifier, classes []int, opts ClassOptions, seed uint64) ([]*ClassSamples, error) {
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
	rng := data.NewRand(seed)
	x0 := opts.Prior.Draw(n*len(classes), rng)
	y := make([]int32, 0, n*len(classes))
	for _, c := range classes {
		for range n {
			y = append(y, int32(c))
		}
	}
	samples, energies, err := opts.SGLD.Sample(ctx, backend, ClassifierEnergy(clf), x0, y, d, rng.Uint64())
	if err != nil {
		return nil, fmt.Errorf("sampling classes %v: %w", classes, err)
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
