package models

import (
	"fmt"
	"slices"
)

// Settings are the paper's architecture and training choices for one data set (Table "Parameter choices
// for our experiments", table_params.tex in the paper's appendix).
type Settings struct {
	Hidden       int    // units per hidden layer
	Layers       int    // hidden layers
	Activation   string // relu or swish
	EnsembleSize int    // members of the deep ensembles
	Epochs       int    // training epochs
	BatchSize    int    // minibatch size
	// LearningRate is Adam's step size; the authors used Flux's default, 1e-3.
	LearningRate float64
}

var paperSettings = map[string]Settings{
	"linearly-separable": {Hidden: 16, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
	"moons":              {Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 500, BatchSize: 128, LearningRate: 1e-3},
	"circles":            {Hidden: 32, Layers: 3, Activation: "swish", EnsembleSize: 5, Epochs: 100, BatchSize: 100, LearningRate: 1e-3},
	"california-housing": {Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
	"gmsc":               {Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
	"german-credit":      {Hidden: 32, Layers: 3, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 80, LearningRate: 1e-3},
	"mnist":              {Hidden: 32, Layers: 1, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
	"fashion-mnist":      {Hidden: 32, Layers: 2, Activation: "relu", EnsembleSize: 5, Epochs: 100, BatchSize: 128, LearningRate: 1e-3},
}

// PaperSettings returns the paper's settings for a data set by name.
func PaperSettings(dataset string) (Settings, error) {
	s, ok := paperSettings[dataset]
	if !ok {
		names := make([]string, 0, len(paperSettings))
		for n := range paperSettings {
			names = append(names, n)
		}
		slices.Sort(names)
		return Settings{}, fmt.Errorf("no paper settings for data set %q (known: %v)", dataset, names)
	}
	return s, nil
}

// SpecFor builds the Spec of a model of the given kind for a data set with d features and k classes, using
// the data set's paper settings.
func SpecFor(kind Kind, dataset string, d, k int) (Spec, error) {
	s, err := PaperSettings(dataset)
	if err != nil {
		return Spec{}, err
	}
	spec := Spec{Kind: kind, NumFeatures: d, NumClasses: k, Hidden: s.Hidden, Layers: s.Layers,
		Activation: s.Activation, Members: 1, Dataset: dataset}
	if kind.IsEnsemble() {
		spec.Members = s.EnsembleSize
	}
	return spec, spec.Validate()
}

// PublishedPerformance holds the paper's test-set scores of one model (Table "Various standard performance
// metrics", table_perf.tex).
type PublishedPerformance struct{ Accuracy, Precision, F1 float64 }

// Published returns the paper's reported test scores for a data set and model kind, and whether the
// paper reports that pair.
func Published(dataset string, kind Kind) (PublishedPerformance, bool) {
	p, ok := publishedPerf[dataset][kind]
	return p, ok
}

var publishedPerf = map[string]map[Kind]PublishedPerformance{
	"linearly-separable": {KindJEM: {0.98, 0.98, 0.98}, KindJEMEnsemble: {0.99, 0.99, 0.99}, KindMLP: {0.99, 0.99, 0.99}, KindMLPEnsemble: {0.99, 0.99, 0.99}},
	"moons":              {KindJEM: {1, 1, 1}, KindJEMEnsemble: {1, 1, 1}, KindMLP: {1, 1, 1}, KindMLPEnsemble: {1, 1, 1}},
	"circles":            {KindJEM: {1, 1, 1}, KindJEMEnsemble: {1, 1, 1}, KindMLP: {1, 1, 1}, KindMLPEnsemble: {1, 1, 1}},
	"california-housing": {KindJEM: {0.86, 0.86, 0.86}, KindJEMEnsemble: {0.86, 0.86, 0.86}, KindMLP: {0.88, 0.88, 0.88}, KindMLPEnsemble: {0.88, 0.88, 0.88}},
	"gmsc":               {KindJEM: {0.73, 0.75, 0.73}, KindJEMEnsemble: {0.74, 0.75, 0.74}, KindMLP: {0.75, 0.75, 0.75}, KindMLPEnsemble: {0.75, 0.75, 0.75}},
	"german-credit":      {KindJEM: {0.58, 0.64, 0.52}, KindJEMEnsemble: {0.54, 0.72, 0.43}, KindMLP: {0.52, 0.75, 0.37}, KindMLPEnsemble: {0.51, 0.75, 0.36}},
	"mnist":              {KindJEM: {0.84, 0.85, 0.84}, KindJEMEnsemble: {0.90, 0.90, 0.90}, KindLeNet: {0.98, 0.98, 0.98}, KindMLP: {0.95, 0.95, 0.95}, KindMLPEnsemble: {0.95, 0.95, 0.95}},
	"fashion-mnist":      {KindJEM: {0.62, 0.70, 0.62}, KindJEMEnsemble: {0.78, 0.78, 0.78}, KindLeNet: {0.83, 0.84, 0.82}, KindMLP: {0.82, 0.83, 0.82}, KindMLPEnsemble: {0.84, 0.84, 0.84}},
}
