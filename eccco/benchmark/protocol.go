package benchmark

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Protocol defines the benchmark of one data set: which models are explained by which generators, how
// many runs of how many factuals, with which seed and in which mode.
type Protocol struct {
	Dataset string
	Models  []models.Kind
	// Generators are values (experiment.Generator): the paper's, the paper's with overridden
	// hyper-parameters (an ablation, a λ sweep), or a user's own. Their names must differ.
	Generators []experiment.Generator
	// Runs is the number of independent runs (the paper: 50 for synthetic and tabular data, 10 for vision).
	Runs int
	// Factuals per run (the paper: 100), drawn from the test split, each with a random target other than
	// the class the model predicts for it (experiment.Experiment.Factuals).
	Factuals int
	// Seed fixes everything random: models, factuals, targets, SGLD samples.
	Seed uint64
	// Mode is the paper's equations or the authors' code (experiment.Mode; the published numbers were
	// computed by the authors' code). Models trained in one mode are never used by the other.
	Mode experiment.Mode
	// Sampling is how the unfaithfulness samples are drawn (experiment.Sampling): once per run ("", the
	// default) or for every counterfactual, as the authors' code did.
	Sampling experiment.Sampling
}

// PaperProtocol returns the paper's protocol for a data set: MLP, MLP ensemble, JEM and JEM ensemble
// (plus LeNet-5 for images), every generator of the paper (the six of VisionGenerators for images), the
// runs and factuals of the data set's row of catalogue.Datasets (100 factuals per run, 50 runs, 10 for
// images), seed 42, the paper's equations.
func PaperProtocol(dataset string) (Protocol, error) {
	row, err := catalogue.LookupDataset(dataset)
	if err != nil {
		return Protocol{}, err
	}
	p := Protocol{Dataset: dataset, Runs: row.Runs, Factuals: row.Factuals, Seed: experiment.DefaultSeed, Mode: experiment.Paper,
		Models:     []models.Kind{models.KindMLP, models.KindMLPEnsemble, models.KindJEM, models.KindJEMEnsemble},
		Generators: experiment.PaperGenerators()}
	if dataset == "mnist" || dataset == "fashion-mnist" {
		p.Models = append(p.Models, models.KindLeNet)
		p.Generators = VisionGenerators()
	}
	return p, nil
}

// VisionGenerators are the six generators of the paper's image tables (no ablations): ECCCo, ECCCo+,
// ECCCo-L1, REVISE, Schut and Wachter, in the tables' order (the authors' vision scripts ran with
// use_variants = false, ECCCo.jl experiments/mnist.jl:51 and fmnist.jl:51).
func VisionGenerators() []experiment.Generator {
	var out []experiment.Generator
	for _, g := range experiment.PaperGenerators() {
		switch g.Name {
		case string(catalogue.ECCCo), string(catalogue.ECCCoPlus), string(catalogue.ECCCoL1), string(catalogue.REVISE), string(catalogue.Schut), string(catalogue.Wachter):
			out = append(out, g)
		}
	}
	return out
}

// Validate checks the protocol: a known data set, at least one model, valid generators with distinct
// names, no repeated model, positive runs and factuals, a known mode.
func (p Protocol) Validate() error {
	switch {
	case p.Dataset == "":
		return fmt.Errorf("%w: protocol without a data set", experiment.ErrInvalid)
	case len(p.Models) == 0:
		return fmt.Errorf("%w: protocol %s has no models", experiment.ErrInvalid, p.Dataset)
	case p.Runs <= 0 || p.Factuals <= 0:
		return fmt.Errorf("%w: protocol %s: %d runs of %d factuals; both must be positive", experiment.ErrInvalid, p.Dataset, p.Runs, p.Factuals)
	case p.Runs > MaxRuns || p.Factuals > MaxFactuals:
		return fmt.Errorf("%w: protocol %s: %d runs of %d factuals; at most %d runs of %d factuals (the paper: 50 of 100)", experiment.ErrInvalid, p.Dataset, p.Runs, p.Factuals, MaxRuns, MaxFactuals)
	}
	if err := p.Mode.Validate(); err != nil {
		return err
	}
	if err := p.Sampling.Validate(); err != nil {
		return err
	}
	if _, err := catalogue.LookupDataset(p.Dataset); err != nil {
		return err
	}
	seen := map[models.Kind]bool{}
	for _, k := range p.Models {
		if _, err := models.ParseKind(string(k)); err != nil {
			return fmt.Errorf("%w: %v", experiment.ErrInvalid, err)
		}
		if seen[k] {
			return fmt.Errorf("%w: protocol %s lists model %s twice", experiment.ErrInvalid, p.Dataset, k)
		}
		seen[k] = true
	}
	if err := experiment.CheckGenerators(p.Generators); err != nil {
		return fmt.Errorf("protocol %s: %w", p.Dataset, err)
	}
	return nil
}

// generator returns the protocol's generator of a name.
func (p Protocol) generator(name string) (experiment.Generator, bool) {
	for _, g := range p.Generators {
		if g.Name == name {
			return g, true
		}
	}
	return experiment.Generator{}, false
}

// Unit is the smallest piece of work the benchmark writes: one generator explaining one model's factuals
// of one run.
type Unit struct {
	Dataset   string
	Model     models.Kind
	Generator string
	Run       int // 1-based
}

// String names the unit, e.g. "moons/mlp/ECCCo/run-003".
func (u Unit) String() string {
	return fmt.Sprintf("%s/%s/%s/run-%03d", u.Dataset, u.Model, u.Generator, u.Run)
}

// Units lists the experiment's units in their canonical order: by run, then model, then generator, so
// that the work of one (model, run) pair is adjacent and shares its preparation.
func (e Protocol) Units() []Unit {
	var out []Unit
	for r := 1; r <= e.Runs; r++ {
		for _, m := range e.Models {
			for _, g := range e.Generators {
				out = append(out, Unit{Dataset: e.Dataset, Model: m, Generator: g.Name, Run: r})
			}
		}
	}
	return out
}

// Shard is the i-th (1-based) of N disjoint parts of a list of units, for a cluster's job array.
type Shard struct{ I, N int }

// ParseShard parses "i/N".
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/N with 1 ≤ i ≤ N", s)
	}
	return Shard{i, n}, nil
}

// Select returns the units of this shard: whole (model, run) groups are dealt round-robin, so that a
// group's preparation (calibration, SGLD samples) happens on one machine only.
func (s Shard) Select(units []Unit) []Unit {
	if s.N <= 1 {
		return units
	}
	var out []Unit
	group := -1
	var last string
	for _, u := range units {
		key := fmt.Sprintf("%s/%s/%d", u.Dataset, u.Model, u.Run)
		if key != last {
			group++
			last = key
		}
		if group%s.N == s.I-1 {
			out = append(out, u)
		}
	}
	return out
}
