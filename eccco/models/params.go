package models

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
