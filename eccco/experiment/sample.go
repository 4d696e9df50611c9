package experiment

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Sampler overrides the SGLD sampler of one class (`eccco sample`); zero fields and nil pointers keep the
// settings' sampler (Settings.ClassOptions).
type Sampler struct {
	// Chains and Keep: SGLD chains, and how many of the lowest-energy ones are kept.
	Chains, Keep int
	// Steps: SGLD steps.
	Steps int
	// StepSize is φ (ε when Unbiased); NoiseSD σ; ClipGrad clips every gradient element to ±ClipGrad
	// (0: no clipping).
	StepSize, NoiseSD, ClipGrad *float64
	// Unbiased runs textbook SGLD: noise sd √ε.
	Unbiased bool
}

// Validate rejects negative counts and non-positive or non-finite step sizes.
func (s Sampler) Validate() error {
	if s.Chains < 0 || s.Keep < 0 || s.Steps < 0 {
		return fmt.Errorf("%w: sampler chains %d, keep %d, steps %d must not be negative (0: the settings')", ErrInvalid, s.Chains, s.Keep, s.Steps)
	}
	for name, v := range map[string]*float64{"sgld-step": s.StepSize, "noise": s.NoiseSD, "clip": s.ClipGrad} {
		if v != nil && (!(*v >= 0) || math.IsInf(*v, 1)) {
			return fmt.Errorf("%w: sampler %s=%v must be a non-negative number", ErrInvalid, name, *v)
		}
	}
	if s.StepSize != nil && *s.StepSize == 0 {
		return fmt.Errorf("%w: sampler sgld-step must be positive", ErrInvalid)
	}
	return nil
}

// ClassOptions returns the sampler of one class of the experiment's models: the settings' sampler
// (Settings.ClassOptions) started from the training data's prior (energy.PriorFromData).
func (e *Experiment) ClassOptions() (energy.ClassOptions, error) {
	prior, err := energy.PriorFromData(e.split.Train)
	if err != nil {
		return energy.ClassOptions{}, err
	}
	return e.settings.classOptions(prior), nil
}

// Samples are conditional SGLD samples of one class of a model, with what they say about it.
type Samples struct {
	Class int
	// Options is the sampler that drew them.
	Options energy.ClassOptions
	// X holds the samples row-major, Energies their energies, Predicted the model's class of each.
	X         []float32
	Energies  []float32
	Predicted []int
	// Agree counts the samples the model predicts as Class.
	Agree int
	// NearestOwn and NearestOther are the mean Euclidean distances to the nearest training row of Class
	// and of any other class (energy.NearestDistances); Spread the mean distance to their centroid.
	NearestOwn, NearestOther, Spread float64
}

// N is the number of samples.
func (s *Samples) N() int { return len(s.Predicted) }

// Sample draws SGLD samples of one class from a model of the experiment (Model or UseModel), with the
// settings' sampler and o's overrides, seeded by (seed, data set, kind, "sample", class).
func (e *Experiment) Sample(ctx context.Context, m *models.Model, class int, o Sampler) (*Samples, error) {
	train := e.split.Train
	if class < 0 || class >= train.K() {
		return nil, fmt.Errorf("%w: class %d is not a class of %s (0 … %d)", ErrInvalid, class, e.dataset, train.K()-1)
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	opts, err := e.ClassOptions()
	if err != nil {
		return nil, err
	}
	if o.Chains > 0 {
		opts.Chains = o.Chains
	}
	if o.Keep > 0 {
		opts.Keep = o.Keep
	}
	if opts.Keep > opts.Chains {
		return nil, fmt.Errorf("%w: sampler keep %d exceeds the %d chains", ErrInvalid, opts.Keep, opts.Chains)
	}
	if o.ClipGrad != nil {
		opts.SGLD.ClipGrad = *o.ClipGrad
	}
	if o.StepSize != nil {
		opts.SGLD.StepSize = *o.StepSize
	}
	if o.NoiseSD != nil {
		opts.SGLD.NoiseSD = *o.NoiseSD
	}
	opts.SGLD.Unbiased = o.Unbiased
	if o.Steps > 0 {
		opts.SGLD.Steps = o.Steps
	}
	kind := m.Spec().Kind
	cs, err := energy.SampleClass(ctx, e.backend, m, class, opts, SeedFor(e.opts.Seed, e.dataset, string(kind), "sample", fmt.Sprint(class)))
	if err != nil {
		return nil, fmt.Errorf("sampling class %d of the %s %s: %w", class, e.dataset, kind, err)
	}
	pred, err := models.Predict(e.backend, m, cs.X)
	if err != nil {
		return nil, err
	}
	s := &Samples{Class: class, Options: opts, X: cs.X, Energies: cs.Energies, Predicted: pred, Spread: spread(cs.X, train.D())}
	for _, p := range pred {
		if p == class {
			s.Agree++
		}
	}
	if s.NearestOwn, s.NearestOther, err = energy.NearestDistances(cs.X, train, class); err != nil {
		return nil, err
	}
	return s, nil
}

// WriteCSV writes the samples, one per row: the features (named by the data set's feature names), the
// energy and the predicted class.
func (s *Samples) WriteCSV(w io.Writer, features []string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(append(append([]string{}, features...), "energy", "predicted"))
	d := len(features)
	for i := range s.Predicted {
		rec := make([]string, 0, d+2)
		for _, v := range s.X[i*d : (i+1)*d] {
			rec = append(rec, strconv.FormatFloat(float64(v), 'g', 7, 32))
		}
		rec = append(rec, strconv.FormatFloat(float64(s.Energies[i]), 'g', 7, 32), strconv.Itoa(s.Predicted[i]))
		_ = cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// spread returns the mean Euclidean distance of the rows of x (d features each) to their centroid.
func spread(x []float32, d int) float64 {
	n := len(x) / d
	if n == 0 {
		return 0
	}
	c := make([]float64, d)
	for i, v := range x {
		c[i%d] += float64(v) / float64(n)
	}
	var sum float64
	for i := range n {
		var s2 float64
		for j := range d {
			dv := float64(x[i*d+j]) - c[j]
			s2 += dv * dv
		}
		sum += math.Sqrt(s2)
	}
	return sum / float64(n)
}
