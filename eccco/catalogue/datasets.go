package catalogue

import (
	"fmt"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// Dataset is one data set's row of the paper's settings: every per-data-set choice that eccco-go's
// models, JEMs, VAEs and generators take. The lower packages keep only their engines and option types;
// the methods of a row translate it, once, into each package's own options (ModelSpec, JEMOptions,
// VAESpec, VAETrainOptions, GeneratorParams, LatentDim, SampleOptions).
//
// Where each column comes from (the LaTeX of the paper's appendix, paper/contents/ and paper/partials/):
//
//   - SampleSize and Model: Table "Parameter choices for our experiments" (tab:params, table_params.tex):
//     Sample Size, Hidden Units, Hidden Layers, Activation, Ensemble Size, Epochs, Batch Size.
//     Model.LearningRate is Adam's step, which the appendix names (appendix.tex, Experimental Setup) without
//     a value: the authors used Flux's default, 1e-3.
//   - JEM: Table "EBM hyperparameter choices" (tab:ebmparams, table_ebm_params.tex): SGLD Steps, Batch
//     Size (the SGLD samples per minibatch) and λ.
//   - Generators: Table "Generator hyperparameters" (tab:genparams, table_gen_params.tex): η, λ1 (cost),
//     λ2 (set size), λ3 (energy) and the Ridge penalty, in the table's order (the code's order, see
//     counterfactual.Params).
//   - Inference: the appendix's inference sampler (appendix.tex, the paragraph "At inference time"): 50
//     conditional samples of which the n_E = 25 lowest-energy ones are kept for the synthetic sets, 10
//     samples all kept for the real-world ones.
//   - Runs and Factuals: the appendix's Experimental Setup (appendix.tex, app:setup): n_f = 100 factuals
//     per run, 50 runs for the synthetic and tabular sets, 10 for the vision sets.
//   - VAE: not in the paper's tables; REVISE's VAE as the authors' code built it (see VAE). Its Latent is
//     also the number of ECCCo+'s PCA components (LatentDim).
//
// The recipe that makes a data set (its points, noise, columns, files, download sources and checksums)
// stays in package data, which Load follows; data.Lookup describes it.
type Dataset struct {
	// Name is the data set's name in package data (data.Names), e.g. "moons".
	Name string
	// SampleSize is the number of training rows the paper reports (tab:params).
	SampleSize int
	// Model is the MLPs' and ensembles' architecture and training (tab:params).
	Model models.Settings
	// JEM is the Joint Energy Models' SGLD steps, samples and λ (tab:ebmparams).
	JEM energy.JEMSettings
	// Generators are η and the λs of the generators (tab:genparams).
	Generators counterfactual.Params
	// VAE is REVISE's VAE.
	VAE VAE
	// Inference is the SGLD sampler of ECCCo-L1's samples and of the unfaithfulness metric.
	Inference Inference
	// Runs and Factuals are the benchmark's protocol (app:setup).
	Runs, Factuals int
}

// VAE is the architecture and L2 penalty of REVISE's VAE for a data set; the other training settings
// are the defaults of the authors' library (vae.DefaultEpochs, vae.DefaultBatchSize,
// vae.DefaultLearningRate). The synthetic sets use the defaults of CounterfactualExplanations.jl's
// VAEParams (latent 2, hidden 32, λ = 0.01); the tabular sets latent 5, hidden 32 (the project's notes on
// the authors' code); MNIST and Fashion-MNIST the pretrained "strong" VAEs of CounterfactualExplanations.jl
// (dev/artifacts/vision.qmd:49,164: latent 28, hidden 50; latent 32, hidden 64; λ = 1e-4, vae.VisionL2),
// which ECCCo.jl loads with load_mnist_vae / load_fashion_mnist_vae.
type VAE struct {
	Latent, Hidden int
	L2             float64
}

// Inference is how many conditional SGLD samples of a class are drawn at inference time (Chains) and how
// many of the lowest-energy ones are kept (Keep).
type Inference struct{ Chains, Keep int }

// Datasets are the paper's eight data sets in the paper's order (that of data.Names).
var Datasets = []Dataset{
	{Name: "linearly-separable", SampleSize: 1000,
		Model:      models.Settings{Hidden: 16, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 50, Samples: 50, Lambda: 0.10},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5, Ridge: 0.0},
		VAE:        VAE{Latent: 2, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 50, Keep: 25}, Runs: 50, Factuals: 100},
	{Name: "moons", SampleSize: 2500,
		Model:      models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 500, BatchSize: 128, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.10},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.2, Ridge: 0.0},
		VAE:        VAE{Latent: 2, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 50, Keep: 25}, Runs: 50, Factuals: 100},
	{Name: "circles", SampleSize: 1000,
		Model:      models.Settings{Hidden: 32, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 30, Samples: 50, Lambda: 0.01},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.2, Ridge: 0.0},
		VAE:        VAE{Latent: 2, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 50, Keep: 25}, Runs: 50, Factuals: 100},
	{Name: "california-housing", SampleSize: 16500,
		Model:      models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.10},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5, Ridge: 0.0},
		VAE:        VAE{Latent: 5, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 10, Keep: 10}, Runs: 50, Factuals: 100},
	{Name: "gmsc", SampleSize: 13370,
		Model:      models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.10},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5, Ridge: 0.0},
		VAE:        VAE{Latent: 5, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 10, Keep: 10}, Runs: 50, Factuals: 100},
	{Name: "german-credit", SampleSize: 800,
		Model:      models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 80, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.10},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.1, Ridge: 0.5},
		VAE:        VAE{Latent: 5, Hidden: 32, L2: vae.DefaultL2},
		Inference:  Inference{Chains: 10, Keep: 10}, Runs: 50, Factuals: 100},
	{Name: "mnist", SampleSize: 10000,
		Model:      models.Settings{Hidden: 32, Layers: 1, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 25, Samples: 10, Lambda: 0.01},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3, Ridge: 0.0},
		VAE:        VAE{Latent: 28, Hidden: 50, L2: vae.VisionL2},
		Inference:  Inference{Chains: 10, Keep: 10}, Runs: 10, Factuals: 100},
	{Name: "fashion-mnist", SampleSize: 10000,
		Model:      models.Settings{Hidden: 32, Layers: 2, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		JEM:        energy.JEMSettings{SGLDSteps: 25, Samples: 10, Lambda: 0.01},
		Generators: counterfactual.Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3, Ridge: 0.0},
		VAE:        VAE{Latent: 32, Hidden: 64, L2: vae.VisionL2},
		Inference:  Inference{Chains: 10, Keep: 10}, Runs: 10, Factuals: 100},
}

// LookupDataset returns the row of the named data set, or an error that wraps data.ErrUnknownDataset and
// lists the paper's data sets.
func LookupDataset(name string) (Dataset, error) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, nil
		}
	}
	names := make([]string, len(Datasets))
	for i, d := range Datasets {
		names[i] = d.Name
	}
	return Dataset{}, fmt.Errorf("%w %q: the paper's data sets are %s", data.ErrUnknownDataset, name, strings.Join(names, ", "))
}

// Info describes the row's data set as package data makes it (data.Lookup: its kind, title, features
// and classes).
func (d Dataset) Info() (data.Info, error) { return data.Lookup(d.Name) }

// ModelSpec is the architecture of a model of the given kind for data with the given numbers of
// features and classes: the row's hidden units, layers and activation, and for an ensemble its size.
func (d Dataset) ModelSpec(kind models.Kind, features, classes int) (models.Spec, error) {
	s := d.Model
	spec := models.Spec{Kind: kind, NumFeatures: features, NumClasses: classes, Hidden: s.Hidden, Layers: s.Layers,
		Activation: s.Activation, Members: 1, Dataset: d.Name}
	if kind.IsEnsemble() {
		spec.Members = s.EnsembleSize
	}
	return spec, spec.Validate()
}

// JEMOptions are the options of energy.TrainJEM for a model trained on train: the epochs, batch size and
// learning rate of Model, the SGLD steps, samples and λ of JEM, the authors' SGLD (energy.AuthorsSGLD:
// φ = 2, σ = 0.01, gradients clipped to ±0.01) and the prior of energy.PriorFromData(train).
func (d Dataset) JEMOptions(train *data.Dataset, seed uint64) (energy.JEMOptions, error) {
	prior, err := energy.PriorFromData(train)
	if err != nil {
		return energy.JEMOptions{}, err
	}
	s := energy.AuthorsSGLD()
	s.Steps = d.JEM.SGLDSteps
	return energy.JEMOptions{Epochs: d.Model.Epochs, BatchSize: d.Model.BatchSize, LearningRate: d.Model.LearningRate,
		SGLD: s, Samples: d.JEM.Samples, Lambda: d.JEM.Lambda, Prior: prior, Seed: seed}, nil
}

// VAESpec is REVISE's VAE for data with the given number of features: the row's latent and hidden sizes
// and the authors' sigmoid encoder activation (vae.DefaultActivation).
func (d Dataset) VAESpec(features int) (vae.Spec, error) {
	s := vae.Spec{NumFeatures: features, Latent: d.VAE.Latent, Hidden: d.VAE.Hidden, Activation: vae.DefaultActivation, Dataset: d.Name}
	return s, s.Validate()
}

// VAETrainOptions are the authors' training settings of REVISE's VAE: 100 epochs, batch 50, Adam 1e-3
// (the library's defaults) and the row's L2 penalty. The seed is 0; set it as needed.
func (d Dataset) VAETrainOptions() vae.TrainOptions {
	return vae.TrainOptions{Epochs: vae.DefaultEpochs, BatchSize: vae.DefaultBatchSize, LearningRate: vae.DefaultLearningRate, L2: d.VAE.L2}
}

// GeneratorParams are the generators' hyper-parameters (tab:genparams).
func (d Dataset) GeneratorParams() counterfactual.Params { return d.Generators }

// SampleOptions are the SGLD sampler of ECCCo-L1's samples and of the unfaithfulness metric for a model
// trained on train (energy.TargetSampleOptions): in the paper's setting the prior of the training data
// and the row's Inference chains and kept samples; in the authors' code (authorsCode) their sampler, 50
// chains keeping 25 on every data set.
func (d Dataset) SampleOptions(train *data.Dataset, authorsCode bool) (energy.ClassOptions, error) {
	o, err := energy.TargetSampleOptions(train, authorsCode)
	if err != nil || authorsCode {
		return o, err
	}
	o.Chains, o.Keep = d.Inference.Chains, d.Inference.Keep
	return o, nil
}

// LatentDim is the latent size of REVISE's VAE, which ECCCo+'s PCA matches: 2 for the synthetic sets, 5
// for the tabular ones, 28 for MNIST and 32 for Fashion-MNIST.
func (d Dataset) LatentDim() int { return d.VAE.Latent }
