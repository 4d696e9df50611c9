package benchmark

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Experiment defines the benchmark of one data set: which models are explained by which generators, how
// many runs of how many factuals.
type Experiment struct {
	Dataset    string
	Models     []models.Kind
	Generators []string
	// Runs is the number of independent runs (the paper: 50 for synthetic and tabular data, 10 for vision).
	Runs int
	// Factuals per run (the paper: 100), drawn from the test split, each with a random target other than
	// the class the model predicts for it.
	Factuals int
	// Seed fixes everything random: models, factuals, targets, SGLD samples.
	Seed uint64
	// Compat selects the paper-code compatibility mode: of the metrics (metrics.PaperCodeOptions, and
	// Ω with ConformalPrediction.jl's empty-set rule), of the generators (counterfactual.Ingredients
	// WithPaperCode: MAD-weighted Wachter cost, gated Ω with the empty-set rule), of JEM training
	// (energy.JEMOptions.WithPaperCode; such models live under ModelDirName(kind, true)), and of the
	// protocol: the unfaithfulness of ECCCo-L1 and ECCCo-L1 (no CP) is measured against the very SGLD
	// samples their penalty pulled towards, as the authors' code did (its distance_from_energy kept the
	// sampler in the explanation and reused it for the metric); other generators' against an
	// independent draw.
	Compat bool
}

// PaperExperiment returns the paper's protocol for a data set: MLP, MLP ensemble, JEM and JEM ensemble
// (plus LeNet-5 for images), every generator of the paper, 100 factuals per run, 50 runs (10 for images).
func PaperExperiment(dataset string) (Experiment, error) {
	if _, err := counterfactual.PaperParams(dataset); err != nil {
		return Experiment{}, err
	}
	e := Experiment{Dataset: dataset, Runs: 50, Factuals: 100, Seed: 42,
		Models:     []models.Kind{models.KindMLP, models.KindMLPEnsemble, models.KindJEM, models.KindJEMEnsemble},
		Generators: counterfactual.GeneratorNames()}
	if dataset == "mnist" || dataset == "fashion-mnist" {
		e.Runs = 10
		e.Models = append(e.Models, models.KindLeNet)
	}
	return e, nil
}

// Validate checks the experiment.
func (e Experiment) Validate() error {
	switch {
	case e.Dataset == "":
		return fmt.Errorf("experiment: no data set")
	case len(e.Models) == 0 || len(e.Generators) == 0:
		return fmt.Errorf("experiment %s: no models or no generators", e.Dataset)
	case e.Runs <= 0 || e.Factuals <= 0:
		return fmt.Errorf("experiment %s: %d runs of %d factuals; both must be positive", e.Dataset, e.Runs, e.Factuals)
	}
	if _, err := counterfactual.PaperParams(e.Dataset); err != nil {
		return err
	}
	for _, g := range e.Generators {
		if _, err := counterfactual.ByName(g, counterfactual.Params{StepSize: 1}, counterfactual.Ingredients{}); err != nil && strings.Contains(err.Error(), "unknown generator") {
			return err
		}
	}
	return nil
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
func (e Experiment) Units() []Unit {
	var out []Unit
	for r := 1; r <= e.Runs; r++ {
		for _, m := range e.Models {
			for _, g := range e.Generators {
				out = append(out, Unit{Dataset: e.Dataset, Model: m, Generator: g, Run: r})
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

// seedFor derives a seed from the experiment's seed and names, so that every piece of randomness is
// fixed by (seed, what it is for) and independent of the order in which units run.
func seedFor(seed uint64, parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d", seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}
