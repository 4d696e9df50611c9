package experiment

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Mode decides every switch that makes the difference between the paper's equations and what the
// authors' code did when it computed the published numbers. It is the one place where that choice is
// made: each package keeps its own documented switches (with the authors' file and line), and Mode maps
// itself onto them.
type Mode string

const (
	// Paper follows the paper's text and equations (the default).
	Paper Mode = "paper"
	// AuthorsCode reproduces what the authors' code did where it changes a reported number. Each cause is
	// a switch of its own package, documented there with the authors' file and line; this mode sets them
	// all, here and nowhere else:
	//   - JEM training (JEMOptions → energy.JEMOptions.WithAuthorsCode): −logit energies conditioned on the
	//     minibatch's first label (softmax energies, energy.JEMOptions.SoftmaxEnergy, are an option);
	//   - model fitting and calibration (FitCalibration → conformal.InductiveSplit): models fitted on the
	//     first half of the training split in file order, calibrated on the second half; ensemble members
	//     on 80 % bags (BaggingFraction → models.TrainOptions/energy.JEMOptions.BaggingFraction);
	//   - the generators (Ingredients → counterfactual.Ingredients.WithAuthorsCode): Ω gated below p = 0.5
	//     with ConformalPrediction.jl's empty-set rule, an ensemble's Ω from the mean of its members'
	//     probabilities (MLJ's ensemble prediction; conformal.Options.MeanMemberProbabilities); the ECCCo-L1 family as ECCCo.jl built it (below);
	//     REVISE's latent search from a posterior sample of the factual's code, re-encoding the clamped
	//     counterfactual through a fresh sample after every step (counterfactual.Resampled; CE.jl
	//     src/counterfactuals/latent_space_mappings.jl:55 and search.jl:66, noise seeded per run); Schut's
	//     greedy step choosing its feature blind to the bounds, so that a move the clamp undoes still
	//     counts (counterfactual.JSMA.BoundsBlind; CE.jl src/generators/optimizers/JSMADescent.jl); ECCCo's
	//     energy penalty decaying as exp(−0.01·t) over the steps (GeneratorParams, AuthorsDecayRate);
	//     ECCCo+ re-encoding its clamped counterfactual into the PCA space after every step
	//     (counterfactual.Reencoded; CE.jl search.jl:66, encode_state's compression branch);
	//     Wachter's cost stays the plain L1 distance: the authors' runs never applied the MAD weights;
	//   - Schut's stopping rule (SearchRule → counterfactual.GeneratorConditionsAll): p ≥ 0.5 and every
	//     |∂CE/∂x| < 0.01, or 100 steps;
	//   - the SGLD samples behind unfaithfulness (SampleOptions → energy.AuthorsClassOptions: a shared
	//     start, steps of at most 0.01, ranked by −log softmax, 50 chains keeping 25);
	//   - the ECCCo-L1 family's own sampler (L1SampleOptions → energy.AuthorsL1ClassOptions: 10 chains
	//     of 100 steps; per class and run, or per factual with Sampling PerCounterfactual, as the
	//     authors' cached sampler of each explanation): its penalty pulls towards the lowest-energy sample
	//     divided by 10, and its unfaithfulness is summed over those 10 samples and divided by 50 (OwnSamplesMetrics →
	//     metrics.Options.UnfaithfulnessDivisor), for ECCCo-L1 (no EBM) too (UnfaithfulnessAgainstOwnSamples);
	//   - the factuals (FactualsFromTraining → Experiment.Factuals): training rows predicted as labels
	//     drawn once for all runs, as CE.jl's benchmark drew them; on German Credit, circles and the linearly
	//     separable set with the authors' mix of targets, which their published validity pins down
	//     (AuthorsTargetMix);
	//   - the metrics (MetricsOptions → metrics.AuthorsOptions: 100 nearest neighbours for
	//     implausibility, halved unfaithfulness, gated uncertainty, uncropped SSIM);
	//   - the models (AuthorsModels → models.LoadAuthors): on the data sets whose trained models the authors
	//     committed (ECCCo.jl models/*.jls at models.AuthorsCommit, which their runs loaded instead of
	//     retraining: experiments/models/models.jl:76-81), eccco explains those very models, and q̂ comes from
	//     the calibration scores stored with them; Options.OwnModels trains eccco's own instead;
	//   - the linearly separable data (AuthorsData → data.Options.AuthorsDraw): the authors' own blobs and
	//     split, replayed from Julia's generator seeded with CE.jl's data_seed 42;
	//   - on images (experiments/mnist.jl, fmnist.jl): the MLP family with 128 swish units in one layer and
	//     LeNet-5 with a same-padded second convolution (Spec), the search box of the noisy training
	//     images' global range (SearchBounds), Schut with η = 0.1 (GeneratorParams), and REVISE's VAE
	//     trained on all official training images, as CE.jl's pretrained VAEs were (VAEOnOfficialTraining).
	AuthorsCode Mode = "authors-code"
)

// Modes lists the modes, the default first.
func Modes() []Mode { return []Mode{Paper, AuthorsCode} }

// ParseMode reads a mode name: "paper" or "authors-code" (also "" for the default, and the older
// spellings "compat", "authors'-code" and "code" for the authors' code).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "paper", "equations":
		return Paper, nil
	case "authors-code", "authors", "code", "compat", "paper-code":
		return AuthorsCode, nil
	}
	return "", fmt.Errorf("%w: unknown mode %q (want paper or authors-code)", ErrInvalid, s)
}

// String returns the mode's name.
func (m Mode) String() string { return string(m.orDefault()) }

func (m Mode) orDefault() Mode {
	if m == "" {
		return Paper
	}
	return m
}

// IsAuthorsCode reports whether m is AuthorsCode.
func (m Mode) IsAuthorsCode() bool { return m.orDefault() == AuthorsCode }

// Validate reports an unknown mode.
func (m Mode) Validate() error {
	_, err := ParseMode(string(m))
	if err == nil && m != "" && m != Paper && m != AuthorsCode {
		return fmt.Errorf("%w: mode %q is an alias; use %q or %q", ErrInvalid, string(m), Paper, AuthorsCode)
	}
	return err
}

// JEMOptions returns o switched to the mode (the authors' code: energy.JEMOptions.WithAuthorsCode).
func (m Mode) JEMOptions(o energy.JEMOptions) energy.JEMOptions {
	if m.IsAuthorsCode() {
		return o.WithAuthorsCode()
	}
	return o
}

// Objective names how a model of this kind is trained in the mode; it is recorded in the model's
// provenance (with FitDescription in its split).
func (m Mode) Objective(kind models.Kind) string {
	bags := ""
	if m.BaggingFraction(kind) > 0 {
		bags = fmt.Sprintf(", members on %g %% bags", 100*m.BaggingFraction(kind))
	}
	switch {
	case kind != models.KindJEM && kind != models.KindJEMEnsemble:
		if bags != "" {
			return "cross-entropy (authors' code" + bags + ")"
		}
		return "cross-entropy"
	case m.IsAuthorsCode():
		return "jem (authors' code: −logit energies, first-label conditioning" + bags + ")"
	}
	return "jem"
}

// AuthorsModels reports whether the mode explains the authors' own trained models of a data set
// (models.LoadAuthors, with the calibration scores stored beside them) rather than models eccco trains:
// in the authors'-code mode, for every data set whose models the authors committed
// (models.AuthorsModelFile). The linearly separable set's models fit the authors' own blobs, whose
// centres are random; the mode explains them on those very blobs (AuthorsData).
func (m Mode) AuthorsModels(dataset string) bool {
	_, ok := models.AuthorsModelFile(dataset)
	return m.IsAuthorsCode() && ok
}

// AuthorsData reports whether the mode loads a data set as the authors drew it rather than from eccco's
// seed (data.Options.AuthorsDraw): in the authors'-code mode, the linearly separable set. Its two blobs'
// centres are random (MLJBase's make_blobs, center_box (−1, 1)), so a draw of eccco's own is another data
// set: seed 42 put them at (0.26, −0.05) and (−0.10, 0.41) for the authors (data.AuthorsLinearlySeparable
// replays Julia's generator), 0.57 apart. Before this switch the mode explained eccco's own models of its
// own blobs and put 211 of the set's 432 cells within the published tolerance.
func (m Mode) AuthorsData(dataset string) bool {
	return m.IsAuthorsCode() && dataset == "linearly-separable"
}

// BaggingFraction is the share of the fitting rows each member of an ensemble of the kind trains on: 0
// (all of them) in the paper mode; models.AuthorsBaggingFraction (0.8, MLJEnsembles' default) for the
// authors' ensembles.
func (m Mode) BaggingFraction(kind models.Kind) float64 {
	if m.IsAuthorsCode() && (kind == models.KindMLPEnsemble || kind == models.KindJEMEnsemble) {
		return models.AuthorsBaggingFraction
	}
	return 0
}

// FitCalibration returns the rows a model is fitted on and the rows it is calibrated on. The paper:
// the whole training split, and cal nil (counterfactual.PaperIngredients calibrates on a seeded random
// half of it). The authors' code: conformal.InductiveSplit(train, 0.5), the first half of the training
// split in file order and the second half.
//
// Images are the exception: our vision training split is drawn class by class (data.Load: 1,000 images
// per class, grouped by class), which is not the order of the authors' file, so its first half would hold
// five of the ten digits. The authors' MNIST models reach the published 0.95 accuracy, so their half held
// every digit: for images the authors'-code mode splits a fixed permutation of the rows (visionOrder) into
// halves instead.
func (m Mode) FitCalibration(train *data.Dataset) (fit, cal *data.Dataset, err error) {
	if !m.IsAuthorsCode() {
		return train, nil, nil
	}
	if train.Image != nil {
		train = train.Shuffled(data.NewRand(visionOrder))
	}
	return conformal.InductiveSplit(train, conformal.AuthorsTrainRatio)
}

// visionOrder seeds the fixed permutation of image training rows before the authors'-code inductive split.
const visionOrder = 0x1d5e_a1f0_2c3b_4d5e

// FitDescription is what the model's provenance adds to the split's description in the mode: "" for the
// paper; for the authors' code the fitting and calibration rows of FitCalibration.
func (m Mode) FitDescription(train *data.Dataset) (string, error) {
	fit, cal, err := m.FitCalibration(train)
	if err != nil || cal == nil {
		return "", err
	}
	order := "in file order"
	if train.Image != nil {
		order = "of a fixed permutation"
	}
	return fmt.Sprintf("; fitted on the first %d training rows %s, calibrated on the last %d (authors' code: inductive split)", fit.N(), order, cal.N()), nil
}

// Ingredients returns the generators' ingredients switched to the mode (the authors' code:
// counterfactual.Ingredients.WithAuthorsCode).
func (m Mode) Ingredients(in counterfactual.Ingredients) counterfactual.Ingredients {
	if !m.IsAuthorsCode() {
		return in
	}
	return in.WithAuthorsCode()
}

// SearchRule is the stopping rule of the counterfactual search in the mode: the paper's
// counterfactual.GeneratorConditions (Schut stops at the decision threshold), or
// counterfactual.GeneratorConditionsAll (the authors' code: Schut too waits for small gradients).
func (m Mode) SearchRule() counterfactual.Rule {
	if m.IsAuthorsCode() {
		return counterfactual.GeneratorConditionsAll
	}
	return counterfactual.GeneratorConditions
}

// FactualsFromTraining reports whether the benchmark's factuals are drawn as the authors' benchmark drew
// them (Experiment.Factuals): training rows predicted as labels drawn once for all runs. The paper mode
// draws test rows.
func (m Mode) FactualsFromTraining() bool { return m.IsAuthorsCode() }

// TargetMix is how many of a binary data set's factuals have one target class: Count of every Of.
type TargetMix struct {
	Class, Count, Of int
}

// Targets returns the number of n factuals whose target is Class: Count·n/Of, rounded to the nearest
// (half away from zero).
func (t TargetMix) Targets(n int) int {
	return int(math.Round(float64(t.Count) * float64(n) / float64(t.Of)))
}

// AuthorsTargetMix returns, in the authors'-code mode, the mix of targets among the factuals of the
// authors' runs of a binary data set, where their published tables pin it down. CE.jl's benchmark drew
// the factual labels once for all runs and models, rand(data.y_levels, n_individuals) on the global RNG
// (src/evaluation/benchmark.jl:225-226, before the loop over runs at l.258), whose state at that point
// depends on everything the session ran before; the draw cannot be replayed, but where a generator's
// counterfactuals all land in one class its validity counts the targets of that class, and it is the
// same in every run (± 0.00) and for every model:
//
//   - German Credit: REVISE's and ECCCo+'s validity is 0.39 for all four models (sd 0.00, JEM's ECCCo+
//     0.01); their counterfactuals all land in class 1 (with the authors' models in this mode, every
//     class-1 target is valid and no class-0 one, in every run), so 39 of the 100 targets were class 1.
//     Seed 42's own draw had 54, which moved every German cell that averages over both directions; with
//     the mix, on the whole protocol, the MLP's Wachter cost went from 3.92 to 4.72 (published 4.90 ±
//     0.21) and German Credit's cells within the tolerance from 324 to 442 of 480.
//
//   - Circles: REVISE's validity is 0.47 for all four models (sd 0.00) and its counterfactuals land in
//     class 0, so 47 of the 100 targets were class 0 (seed 42: 46; cells within 423 → 428 of 432).
//
//   - Linearly separable (the authors' own blobs and models, AuthorsData): REVISE's validity is 0.53 ±
//     0.01 for the MLP and its ensemble, whose REVISE counterfactuals land in class 1, and 0.47 ± 0.00 for
//     the JEM, whose land in class 0: both say 53 of the 100 targets were class 1 (seed 42: 46).
//
// The other sets' REVISE validity varies from run to run, so they keep the seed's draw. ok is false where
// the mix is not pinned down, and in the paper mode.
func (m Mode) AuthorsTargetMix(dataset string) (mix TargetMix, ok bool) {
	if !m.IsAuthorsCode() {
		return TargetMix{}, false
	}
	switch dataset {
	case "german-credit":
		return TargetMix{Class: 1, Count: 39, Of: 100}, true
	case "circles":
		return TargetMix{Class: 0, Count: 47, Of: 100}, true
	case "linearly-separable":
		return TargetMix{Class: 1, Count: 53, Of: 100}, true
	}
	return TargetMix{}, false
}

// L1SampleOptions returns the sampler of the ECCCo-L1 family's own samples in the authors'-code mode
// (energy.AuthorsL1ClassOptions with energy.ScalarPrior of the training data); ok is false in the paper mode,
// where ECCCo-L1's samples are those of counterfactual.PaperIngredients.
func (m Mode) L1SampleOptions(train *data.Dataset) (opts energy.ClassOptions, ok bool, err error) {
	if !m.IsAuthorsCode() {
		return energy.ClassOptions{}, false, nil
	}
	prior, err := energy.ScalarPrior(train)
	if err != nil {
		return energy.ClassOptions{}, false, err
	}
	return energy.AuthorsL1ClassOptions(prior), true, nil
}

// SampleOptions returns the conditional SGLD sampler behind the unfaithfulness metric and ECCCo-L1's
// samples for a model trained on train (energy.TargetSampleOptions in the mode).
func (m Mode) SampleOptions(dataset string, train *data.Dataset) (energy.ClassOptions, error) {
	return energy.TargetSampleOptions(dataset, train, m.IsAuthorsCode())
}

// ClassOptions returns the sampler of `eccco sample` in the mode: energy.DefaultClassOptions (the paper)
// or energy.AuthorsClassOptions (the authors' code), started from prior.
func (m Mode) ClassOptions(prior energy.Prior) energy.ClassOptions {
	if m.IsAuthorsCode() {
		return energy.AuthorsClassOptions(prior)
	}
	return energy.DefaultClassOptions(prior)
}

// MetricsOptions returns the metrics' options in the mode for data shaped like train: the authors' code
// switches (metrics.AuthorsOptions) or none, and for images the structural dissimilarity (cropped as
// scikit-image does, or uncropped as the authors' Julia code did), with its set form for the
// implausibility (the same values, faster).
func (m Mode) MetricsOptions(train *data.Dataset) metrics.Options {
	o := metrics.Options{}
	if m.IsAuthorsCode() {
		o = metrics.AuthorsOptions()
	}
	if img := train.Image; img != nil {
		o.Distance, o.SetDistance = metrics.ImageDissimilarity(img.Height, img.Width), metrics.ImageSetDissimilarity(img.Height, img.Width)
		if m.IsAuthorsCode() {
			o.Distance, o.SetDistance = metrics.ImageDissimilarityUncropped(img.Height, img.Width), metrics.ImageSetDissimilarityUncropped(img.Height, img.Width)
		}
	}
	return o
}

// UnfaithfulnessAgainstOwnSamples reports whether a generator's unfaithfulness is measured against the
// samples of its own penalty's sampler (all of them, not only the one it pulled towards) rather than
// against an independent draw: in the authors'-code mode, every generator with a "samples" penalty, of
// any weight — ECCCo-L1, its no-CP ablation and ECCCo-L1 (no EBM), whose penalty ran with λ = 0. ECCCo.jl's
// distance_from_energy cached its sampler in the explanation (src/penalties.jl:116) and the metric reused
// it (l.121); CE.jl evaluated every penalty whatever its λ (src/generators/complexity.jl:55).
func (m Mode) UnfaithfulnessAgainstOwnSamples(g *counterfactual.Generator) bool {
	if !m.IsAuthorsCode() {
		return false
	}
	for _, p := range g.Penalties {
		if p.Name == "samples" {
			return true
		}
	}
	return false
}

// AuthorsUnfaithfulnessDivisor is the n = 50 by which the authors' unfaithfulness metric divided its
// summed distances (ECCCo.jl src/penalties.jl:93,134).
const AuthorsUnfaithfulnessDivisor = 50

// OwnSamplesMetrics returns the metrics' options o for a generator scored against its own samples
// (UnfaithfulnessAgainstOwnSamples): in the authors'-code mode the summed distance is divided by 50
// (metrics.Options.UnfaithfulnessDivisor), whatever the number of samples.
func (m Mode) OwnSamplesMetrics(o metrics.Options) metrics.Options {
	if m.IsAuthorsCode() {
		o.UnfaithfulnessDivisor = AuthorsUnfaithfulnessDivisor
	}
	return o
}

// The authors' vision settings (ECCCo.jl experiments/mnist.jl and fmnist.jl at the final commit).
const (
	// AuthorsVisionHidden, AuthorsVisionLayers and AuthorsVisionActivation are the builder of every
	// MLP-based vision model (MLP, MLP ensemble, JEM, JEM ensemble): default_builder(n_hidden = 128,
	// n_layers = 1, activation = Flux.swish). The paper's table of model parameters prints the Experiment
	// defaults (32 units, relu) instead.
	AuthorsVisionHidden     = 128
	AuthorsVisionLayers     = 1
	AuthorsVisionActivation = "swish"
	// AuthorsVisionSchutStep is Schut's η on images: the vision scripts run with use_variants = false,
	// whose branch builds GreedyGenerator() with its defaults, η = 0.1 and n = 10 changes per feature
	// (experiments/benchmarking/benchmarking.jl).
	AuthorsVisionSchutStep = 0.1
)

// Spec returns a model architecture switched to the mode for data shaped like train. The paper: spec as
// it is (models.SpecFor). The authors' code, on images only: the MLP family with 128 swish units in one
// hidden layer, and LeNet-5 with a same-padded second convolution (models.LeNet5Same; ECCCo.jl
// experiments/models/additional_models.jl).
func (m Mode) Spec(spec models.Spec, train *data.Dataset) models.Spec {
	if !m.IsAuthorsCode() || train.Image == nil {
		return spec
	}
	if spec.Kind == models.KindLeNet {
		spec.Conv2Padding = models.PaddingSame
		return spec
	}
	spec.Hidden, spec.Layers, spec.Activation = AuthorsVisionHidden, AuthorsVisionLayers, AuthorsVisionActivation
	return spec
}

// SearchBounds returns the box every counterfactual is clamped to. The paper: the split's domain
// (data.Split.Lower/Upper: the training data's per-feature range; [−1, 1] for every pixel of an image).
// The authors' code on images: one range for every pixel, the smallest and largest value of the noisy
// training images (experiments/mnist.jl and fmnist.jl: counterfactual_data.domain =
// fill((minimum(X), maximum(X)), D), "to account for noise added during pre-processing").
func (m Mode) SearchBounds(split *data.Split) (lo, hi []float32) {
	lo, hi = slices.Clone(split.Lower), slices.Clone(split.Upper)
	train := split.Train
	if !m.IsAuthorsCode() || train.Image == nil || len(train.X) == 0 {
		return lo, hi
	}
	mn, mx := train.X[0], train.X[0]
	for _, v := range train.X {
		mn, mx = min(mn, v), max(mx, v)
	}
	for j := range lo {
		lo[j], hi[j] = mn, mx
	}
	return lo, hi
}

// VAEOnOfficialTraining reports whether REVISE's VAE for data shaped like train is trained on the set's
// official training images (data.LoadOfficialTraining: all 60,000, without noise) rather than on the
// benchmark's training split: in the authors'-code mode, for images. The authors' vision scripts loaded
// CounterfactualExplanations.jl's pretrained VAEs (experiments/mnist.jl: load_mnist_vae()), trained with
// the architecture and loss of package vae on the full training file (CE.jl dev/artifacts/vision.qmd).
func (m Mode) VAEOnOfficialTraining(train *data.Dataset) bool {
	return m.IsAuthorsCode() && train.Image != nil
}

// GeneratorParams returns a paper generator's hyper-parameters p switched to the mode for data shaped like
// train, before a user's overrides. The authors' code: ECCCo's energy penalty decays with
// AuthorsDecayRate and AuthorsDecayEvery; on images Schut's η is 0.1 (AuthorsVisionSchutStep), so each
// pixel changes at most 10 times.
func (m Mode) GeneratorParams(base string, p counterfactual.Params, train *data.Dataset) counterfactual.Params {
	if !m.IsAuthorsCode() {
		return p
	}
	p.DecayRate, p.DecayEvery = AuthorsDecayRate, AuthorsDecayEvery
	if train.Image != nil && base == "Schut" {
		p.StepSize = AuthorsVisionSchutStep
	}
	return p
}

// The decay of ECCCo's energy penalty in the authors'-code mode (counterfactual.Params.DecayRate): its
// weight is multiplied by exp(−0.01·t) at step t. ECCCo.jl's energy_delta decayed it (src/penalties.jl:74-81);
// the value of the final runs is not recorded (experiments/experiment.jl:43 defaults to (0.1, 5);
// append_best_params merges the winner of a grid over (0, 1), (0.01, 1) and (0.1, 1), setup_env.jl:195),
// so it was settled by measurement: on California Housing and moons (ECCCo and ECCCo (no CP), four models,
// 10 runs of 100, authors'-code mode, XLA), the cells within the published tolerance were 136 of 192 without
// decay, 138 with (0.1, 5), 146 with (0.01, 1) and 108 with (0.1, 1); (0.01, 1) brings California's MLP
// ECCCo cost from 8.45 to 6.30 (published 6.19 ± 0.14) and its MLP ensemble's from 6.80 to 4.98 (4.77 ±
// 0.12), and leaves moons as it was.
const (
	AuthorsDecayRate  = 0.01
	AuthorsDecayEvery = 1
)
