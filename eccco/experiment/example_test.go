package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// The shortest path through an experiment of the paper: open a data set (seed 42, the paper's equations),
// pick generators by name (or as values, here ECCCo with a larger energy weight) and explain n factuals of
// a model: those of run 1 of the benchmark, prepared once and searched as one batch per generator. The
// model is trained on first use and saved under ModelsDir (here a temporary directory, and 3 epochs
// instead of the paper's 500). Each Explanation holds the counterfactuals and their six metrics;
// SummaryTable averages them per generator (see its example: the numbers are not checked here because
// they depend on the backend's floating-point arithmetic).
func ExampleExperiment_Explain() {
	tmp, err := os.MkdirTemp("", "eccco-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	e, err := experiment.Open("moons", experiment.Options{ModelsDir: tmp, Training: experiment.Training{Epochs: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	gens, err := experiment.ParseGenerators("eccco", "wachter")
	if err != nil {
		fmt.Println(err)
		return
	}
	gens = append(gens, experiment.Generator{Name: "ECCCo λE=1", Paper: "ECCCo", Set: experiment.Tuning{Energy: new(1.0)}})
	xs, err := e.Explain(context.Background(), models.KindMLP, 10, gens...)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range xs {
		s := x.Summary()
		fmt.Printf("%s: %d counterfactuals of model %s, run %d (%d scored)\n", s.Generator, s.N, x.Kind, x.Run, len(x.Scores))
	}
	// Output:
	// ECCCo: 10 counterfactuals of model mlp, run 1 (10 scored)
	// Wachter: 10 counterfactuals of model mlp, run 1 (10 scored)
	// ECCCo λE=1: 10 counterfactuals of model mlp, run 1 (10 scored)
}

// Explain is Run plus Run.Explain. A Run is one run of one model prepared for its generators: the run's
// factuals, each with a target other than its predicted class, the generators' ingredients (here the
// conformal calibration that ECCCo needs) and the metrics' evaluator with its SGLD samples. The benchmark
// prepares one per (model, run) and lets every generator explain its factuals.
func ExampleExperiment_Run() {
	tmp, err := os.MkdirTemp("", "eccco-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()

	e, err := experiment.Open("moons", experiment.Options{ModelsDir: tmp, Training: experiment.Training{Epochs: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	eccco := experiment.Generator{Name: "ECCCo"}
	r, err := e.Run(ctx, experiment.RunRequest{Kind: models.KindMLP, Run: 2, N: 5, Generators: []experiment.Generator{eccco}})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := r.Factuals
	differ := true
	for i := range f.N() {
		differ = differ && f.Targets[i] != f.Predicted[i]
	}
	fmt.Println("run", r.Index, "factuals:", f.N(), "targets differ from predictions:", differ)
	samples, err := r.Samples(ctx) // drawn on first use
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("calibrated:", r.Ingredients.Calibrated != nil, "SGLD samples for unfaithfulness:", samples != nil)

	g, err := r.Generator(eccco)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range g.Penalties {
		fmt.Printf("%s λ=%.2f\n", p.Name, p.Weight)
	}
	x, err := r.Explain(ctx, eccco)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(x.Result.X)/e.Split().Train.D(), "counterfactuals")
	// Output:
	// run 2 factuals: 5 targets differ from predictions: true
	// calibrated: true SGLD samples for unfaithfulness: true
	// cost λ=0.10
	// energy λ=0.20
	// setsize λ=0.10
	// 5 counterfactuals
}

// With the zero Options an experiment is the paper's: seed 42, the paper's equations and training
// settings, models saved under runs/models of the checkout (trained on first use: seconds for the moons
// MLP, longer for JEMs and the larger data sets; reused afterwards). Not run as a test: it writes to
// runs/models, and the numbers depend on the backend's floating-point arithmetic.
func ExampleSummaryTable() {
	e, err := experiment.Open("moons", experiment.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	gens, _ := experiment.ParseGenerators("ECCCo", "Wachter", "Schut")
	xs, err := e.Explain(context.Background(), models.KindMLP, 20, gens...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(experiment.SummaryTable(xs))
}

// Generators are values. Set overrides the data set's hyper-parameters (table_gen_params.tex) by key, for
// an ablation or a λ sweep; Describe is the stable definition that the benchmark records with its
// results; Build makes a generator of one's own from the run's ingredients.
func ExampleGenerator() {
	moons, err := catalogue.LookupDataset("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	base := moons.GeneratorParams()
	strong := experiment.Generator{Name: "ECCCo λE=1", Paper: "ECCCo", Set: experiment.Tuning{Energy: new(1.0), Step: new(0.1)}}
	p, err := strong.Params(base)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("λ_energy %.1f → %.1f, η %.2f → %.2f\n", base.Energy, p.Energy, base.StepSize, p.StepSize)
	fmt.Println(strong.Describe())
	fmt.Println("keys:", experiment.ParamKeys())

	mine := experiment.Generator{
		Name:  "Wachter, energy only",
		Paper: "ECCCo", // prepare ECCCo's ingredients (the calibration)
		Build: func(in counterfactual.Ingredients, p counterfactual.Params) (*counterfactual.Generator, error) {
			g, err := catalogue.ByName("Wachter", p, in)
			if err != nil {
				return nil, err
			}
			g.Penalties = append(g.Penalties, counterfactual.Penalty{Name: "energy", Weight: p.Energy, Term: counterfactual.EnergyPenalty(p.Ridge)})
			return g, nil
		},
	}
	fmt.Println(experiment.CheckGenerators([]experiment.Generator{{Name: "ECCCo"}, strong, mine}))

	_, err = experiment.Generator{Name: "bad", Paper: "ECCCo", Set: experiment.Tuning{Energy: new(-1.0)}}.Params(base)
	fmt.Println(errors.Is(err, experiment.ErrInvalid))
	// Output:
	// λ_energy 0.2 → 1.0, η 0.05 → 0.10
	// ECCCo energy=1 step=0.1
	// keys: [step cost setsize energy ridge decay-rate decay-every]
	// <nil>
	// true
}

// ParseGenerators matches the paper's names in any accepted spelling; unknown or repeated names are
// ErrInvalid.
func ExampleParseGenerators() {
	gens, err := experiment.ParseGenerators("eccco", "ECCCo+", "no-ebm", "revise")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range gens {
		fmt.Printf("%q\n", g.Name)
	}
	_, err = experiment.ParseGenerators("wachter", "Wachter")
	fmt.Println(errors.Is(err, experiment.ErrInvalid))
	fmt.Println(len(experiment.PaperGenerators()), "generators in the paper")
	// Output:
	// "ECCCo"
	// "ECCCo+"
	// "ECCCo (no EBM)"
	// "REVISE"
	// true
	// 10 generators in the paper
}

// A Mode names the paper's equations or the authors' code; Mode.Settings resolves it for a data set into
// the switches an experiment reads, and Settings.Set overrides one of them. Models and results of the two
// modes are kept apart.
func ExampleMode() {
	for _, s := range []string{"", "paper", "authors-code"} {
		m, err := experiment.ParseMode(s)
		fmt.Printf("%q → %s %v\n", s, m, err)
	}
	for _, m := range experiment.Modes() {
		s, _ := m.Settings("moons")
		fmt.Printf("%-12s JEM: %-70s decay %g\n", m, s.Objective(models.KindJEM), s.EnergyDecayRate)
	}
	s, _ := experiment.AuthorsCode.Settings("circles")
	fmt.Println(s.TargetMix, s.Set("energy-decay-rate", "0"), s.EnergyDecayRate)
	_, err := experiment.ParseMode("julia")
	fmt.Println(errors.Is(err, experiment.ErrInvalid), errors.Is(s.Set("decay", "1"), experiment.ErrInvalid))
	// Output:
	// "" → paper <nil>
	// "paper" → paper <nil>
	// "authors-code" → authors-code <nil>
	// paper        JEM: jem                                                                    decay 0
	// authors-code JEM: jem (authors' code: −logit energies, first-label conditioning)         decay 0.01
	// 0:47/100 <nil> 0
	// true true
}

// Experiment.Model trains a model on first use and saves it with its provenance under
// ModelsDir/MODE/seed-SEED/DATA/KIND; a later experiment with the same settings loads it, and one with
// other settings pointed at the same directory refuses it (ErrMismatch) instead of training over it.
func ExampleExperiment_Model() {
	tmp, err := os.MkdirTemp("", "eccco-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()

	e, err := experiment.Open("linearly-separable", experiment.Options{ModelsDir: tmp, Training: experiment.Training{Epochs: 3}})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := e.Model(ctx, models.KindMLP)
	if err != nil {
		fmt.Println(err)
		return
	}
	rel, _ := filepath.Rel(tmp, e.ModelDir(models.KindMLP))
	p := m.Provenance()
	fmt.Println("saved in", filepath.ToSlash(rel))
	fmt.Println("provenance:", p.Dataset, p.Seed, p.Mode, p.Kind, p.Training.Epochs, "epochs,", p.Training.Objective)

	again, _ := experiment.Open("linearly-separable", experiment.Options{ModelsDir: tmp, Training: experiment.Training{Epochs: 3}})
	m2, err := again.Model(ctx, models.KindMLP)
	if err != nil {
		fmt.Println(err)
		return
	}
	f1, _ := experiment.Fingerprint(m)
	f2, _ := experiment.Fingerprint(m2)
	fmt.Println("loaded, not retrained:", f1 == f2)

	longer, _ := experiment.Open("linearly-separable", experiment.Options{ModelsDir: tmp, Training: experiment.Training{Epochs: 5}})
	_, err = longer.Model(ctx, models.KindMLP)
	fmt.Println("5-epoch experiment:", errors.Is(err, experiment.ErrMismatch))
	// Output:
	// saved in paper/seed-42/linearly-separable/mlp
	// provenance: linearly-separable 42 paper mlp 3 epochs, cross-entropy
	// loaded, not retrained: true
	// 5-epoch experiment: true
}
