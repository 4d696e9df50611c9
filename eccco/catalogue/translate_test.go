package catalogue_test

import (
	"reflect"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// oldSettings are, as literals, the structs that the per-data-set lookups of the lower packages returned
// before the catalogue held them (models.PaperSettings, energy.PaperJEMSettings, counterfactual.PaperParams,
// counterfactual.LatentDim, vae.PaperTrainOptions, vae.PaperSpec with 7 features, models.SpecFor with 7
// features and 3 classes): the catalogue's translations must give exactly these.
type oldSettings struct {
	models   models.Settings
	jem      energy.JEMSettings
	params   counterfactual.Params
	latent   int
	vaeTrain vae.TrainOptions
	vaeSpec  vae.Spec
	mlp, ens models.Spec
}

func oldSpec(kind models.Kind, name string, hidden, layers int, act string, members int) models.Spec {
	return models.Spec{Kind: kind, NumFeatures: 7, NumClasses: 3, Hidden: hidden, Layers: layers, Activation: act, Members: members, Dataset: name}
}

var vaeTrain = vae.TrainOptions{Epochs: 100, BatchSize: 50, LearningRate: 1e-3, L2: 0.01}

var visionVAETrain = vae.TrainOptions{Epochs: 100, BatchSize: 50, LearningRate: 1e-3, L2: 1e-4}

var oldTable = map[string]oldSettings{
	"linearly-separable": {
		models.Settings{Hidden: 16, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 50, Samples: 50, Lambda: 0.1},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5},
		2, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 2, Hidden: 32, Activation: "sigmoid", Dataset: "linearly-separable"},
		oldSpec(models.KindMLP, "linearly-separable", 16, 3, "swish", 1), oldSpec(models.KindJEMEnsemble, "linearly-separable", 16, 3, "swish", 5)},
	"moons": {
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 500, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.2},
		2, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 2, Hidden: 32, Activation: "sigmoid", Dataset: "moons"},
		oldSpec(models.KindMLP, "moons", 32, 3, "relu", 1), oldSpec(models.KindJEMEnsemble, "moons", 32, 3, "relu", 5)},
	"circles": {
		models.Settings{Hidden: 32, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 50, Lambda: 0.01},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.2},
		2, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 2, Hidden: 32, Activation: "sigmoid", Dataset: "circles"},
		oldSpec(models.KindMLP, "circles", 32, 3, "swish", 1), oldSpec(models.KindJEMEnsemble, "circles", 32, 3, "swish", 5)},
	"california-housing": {
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5},
		5, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 5, Hidden: 32, Activation: "sigmoid", Dataset: "california-housing"},
		oldSpec(models.KindMLP, "california-housing", 32, 3, "relu", 1), oldSpec(models.KindJEMEnsemble, "california-housing", 32, 3, "relu", 5)},
	"gmsc": {
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5},
		5, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 5, Hidden: 32, Activation: "sigmoid", Dataset: "gmsc"},
		oldSpec(models.KindMLP, "gmsc", 32, 3, "relu", 1), oldSpec(models.KindJEMEnsemble, "gmsc", 32, 3, "relu", 5)},
	"german-credit": {
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 80, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1},
		counterfactual.Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.1, Ridge: 0.5},
		5, vaeTrain, vae.Spec{NumFeatures: 7, Latent: 5, Hidden: 32, Activation: "sigmoid", Dataset: "german-credit"},
		oldSpec(models.KindMLP, "german-credit", 32, 3, "relu", 1), oldSpec(models.KindJEMEnsemble, "german-credit", 32, 3, "relu", 5)},
	"mnist": {
		models.Settings{Hidden: 32, Layers: 1, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 25, Samples: 10, Lambda: 0.01},
		counterfactual.Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3},
		28, visionVAETrain, vae.Spec{NumFeatures: 7, Latent: 28, Hidden: 50, Activation: "sigmoid", Dataset: "mnist"},
		oldSpec(models.KindMLP, "mnist", 32, 1, "relu", 1), oldSpec(models.KindJEMEnsemble, "mnist", 32, 1, "relu", 5)},
	"fashion-mnist": {
		models.Settings{Hidden: 32, Layers: 2, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 25, Samples: 10, Lambda: 0.01},
		counterfactual.Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3},
		32, visionVAETrain, vae.Spec{NumFeatures: 7, Latent: 32, Hidden: 64, Activation: "sigmoid", Dataset: "fashion-mnist"},
		oldSpec(models.KindMLP, "fashion-mnist", 32, 2, "relu", 1), oldSpec(models.KindJEMEnsemble, "fashion-mnist", 32, 2, "relu", 5)},
}

// TestTranslationsAsBefore checks every data set's translations against the structs the old lookups
// returned.
func TestTranslationsAsBefore(t *testing.T) {
	if len(oldTable) != 8 {
		t.Fatalf("%d data sets in the expected table", len(oldTable))
	}
	for name, want := range oldTable {
		got, err := translate(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if _, err := translate("imagenet"); err == nil {
		t.Error("an unknown data set gave settings")
	}
}

// TestJEMOptionsAsBefore checks the JEM training options (energy.PaperJEMOptions before the move): the
// epochs, batch size and learning rate of table_params.tex, the SGLD steps, samples and λ of
// table_ebm_params.tex, the authors' SGLD and the prior of the training data.
func TestJEMOptionsAsBefore(t *testing.T) {
	train, err := data.Moons(40, 0.1, data.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	prior, err := energy.PriorFromData(train)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range oldTable {
		got, err := jemOptions(name, train, 9)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sgld := energy.AuthorsSGLD()
		sgld.Steps = want.jem.SGLDSteps
		w := energy.JEMOptions{Epochs: want.models.Epochs, BatchSize: want.models.BatchSize, LearningRate: 1e-3,
			SGLD: sgld, Samples: want.jem.Samples, Lambda: want.jem.Lambda, Prior: prior, Seed: 9}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, w)
		}
	}
}

// TestSampleOptionsAsBefore checks the inference sampler against what energy.TargetSampleOptions gave
// before the move: in the paper's setting energy.DefaultClassOptions with the prior of the training data,
// 50 chains keeping 25 for the synthetic sets and 10 keeping 10 otherwise; in the authors' code
// energy.AuthorsClassOptions with the one-range prior of energy.ScalarPrior, on every data set.
func TestSampleOptionsAsBefore(t *testing.T) {
	train, err := data.Moons(40, 0.1, data.NewRand(3))
	if err != nil {
		t.Fatal(err)
	}
	prior, err := energy.PriorFromData(train)
	if err != nil {
		t.Fatal(err)
	}
	scalar, err := energy.ScalarPrior(train)
	if err != nil {
		t.Fatal(err)
	}
	chains := map[string][2]int{"linearly-separable": {50, 25}, "moons": {50, 25}, "circles": {50, 25},
		"california-housing": {10, 10}, "gmsc": {10, 10}, "german-credit": {10, 10}, "mnist": {10, 10}, "fashion-mnist": {10, 10}}
	for name := range oldTable {
		d, err := catalogue.LookupDataset(name)
		if err != nil {
			t.Fatal(err)
		}
		want := energy.DefaultClassOptions(prior)
		want.Chains, want.Keep = chains[name][0], chains[name][1]
		if got, err := d.SampleOptions(train, false); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s, paper: %+v (%v), want %+v", name, got, err, want)
		}
		if got, err := d.SampleOptions(train, true); err != nil || !reflect.DeepEqual(got, energy.AuthorsClassOptions(scalar)) {
			t.Errorf("%s, authors' code: %+v (%v)", name, got, err)
		}
	}
}
