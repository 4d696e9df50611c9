package counterfactual

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// testRow is the part of a data set's paper settings that this package's tests train and search with,
// written out from catalogue.Datasets (this package cannot import the catalogue, which imports it).
type testRow struct {
	params Params
	model  models.Settings
	jem    energy.JEMSettings
	latent int
	// chains and keep are the inference sampler's (catalogue.Dataset.Inference).
	chains, keep int
}

var testRows = map[string]testRow{
	"linearly-separable": {Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5},
		models.Settings{Hidden: 16, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 50, Samples: 50, Lambda: 0.1}, 2, 50, 25},
	"moons": {Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.2},
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 500, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1}, 2, 50, 25},
	"california-housing": {Params{StepSize: 0.05, Cost: 0.10, SetSize: 0.1, Energy: 0.5},
		models.Settings{Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 30, Samples: 10, Lambda: 0.1}, 5, 10, 10},
	"mnist": {Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3},
		models.Settings{Hidden: 32, Layers: 1, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
		energy.JEMSettings{SGLDSteps: 25, Samples: 10, Lambda: 0.01}, 28, 10, 10},
}

// testPaper returns the row of a data set the tests use.
func testPaper(name string) (testRow, error) {
	r, ok := testRows[name]
	if !ok {
		return testRow{}, fmt.Errorf("no test settings for data set %q", name)
	}
	return r, nil
}

// spec is catalogue.Dataset.ModelSpec.
func (r testRow) spec(kind models.Kind, name string, d, k int) (models.Spec, error) {
	s := models.Spec{Kind: kind, NumFeatures: d, NumClasses: k, Hidden: r.model.Hidden, Layers: r.model.Layers,
		Activation: r.model.Activation, Members: 1, Dataset: name}
	if kind.IsEnsemble() {
		s.Members = r.model.EnsembleSize
	}
	return s, s.Validate()
}

// jemOptions is catalogue.Dataset.JEMOptions.
func (r testRow) jemOptions(train *data.Dataset, seed uint64) (energy.JEMOptions, error) {
	prior, err := energy.PriorFromData(train)
	if err != nil {
		return energy.JEMOptions{}, err
	}
	s := energy.AuthorsSGLD()
	s.Steps = r.jem.SGLDSteps
	return energy.JEMOptions{Epochs: r.model.Epochs, BatchSize: r.model.BatchSize, LearningRate: r.model.LearningRate,
		SGLD: s, Samples: r.jem.Samples, Lambda: r.jem.Lambda, Prior: prior, Seed: seed}, nil
}

// sampler is catalogue.Dataset.SampleOptions in the paper's setting.
func (r testRow) sampler(train *data.Dataset) (*energy.ClassOptions, error) {
	o, err := energy.TargetSampleOptions(train, false)
	if err != nil {
		return nil, err
	}
	o.Chains, o.Keep = r.chains, r.keep
	return &o, nil
}
