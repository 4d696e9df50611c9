package experiment

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
)

// Sentinel errors; test them with errors.Is.
var (
	// ErrInvalid reports a setting that makes no sense (a negative count, an unknown name, a repeated
	// generator).
	ErrInvalid = errors.New("invalid setting")
	// ErrMismatch reports a saved model or VAE that was made for another data set, seed, mode, split,
	// architecture or training setting than the experiment asks for. It is never silently replaced.
	ErrMismatch = errors.New("saved model does not match the experiment")
	// ErrBroken reports a saved model or VAE that exists but cannot be read. It is never retrained over.
	ErrBroken = errors.New("saved model cannot be read")
)

// DefaultSeed is the seed of the committed results and of every command's default.
const DefaultSeed = 42

// Options configure an experiment. The zero value is the paper's setting: pure-Go backend (or
// GOMLX_BACKEND), the paper's equations, seed 42, the default data and model directories, the paper's
// training settings, silent.
type Options struct {
	// Backend runs every graph; nil uses backend.Shared() (GOMLX_BACKEND, else pure Go).
	Backend compute.Backend
	// ImageBackend, when not nil, runs the image data sets (MNIST, Fashion-MNIST: their models, searches
	// and samples) instead of Backend, e.g. XLA's CPU plugin (backend.ImagesConfig).
	ImageBackend compute.Backend
	// Mode chooses the paper's equations (the default) or the authors' code: Open resolves it for the data
	// set into the experiment's Settings (Mode.Settings).
	Mode Mode
	// Set overrides switches of the resolved Settings by key (Settings.Set, SettingKeys), e.g.
	// {"energy-decay-rate": "0"}.
	Set map[string]string
	// Sampling chooses how the unfaithfulness samples are drawn: PerRun ("", the default) or
	// PerCounterfactual (as the authors' code did; costlier).
	Sampling Sampling
	// Seed fixes everything random: the data split, the models, factuals, targets, calibration and SGLD
	// samples. 0 means DefaultSeed (42).
	Seed uint64
	// DataDir is the data directory; "" means data.DefaultDir().
	DataDir string
	// ModelsDir holds saved models as ModelsDir/MODE/seed-SEED/DATA/KIND (and …/DATA/vae); models that
	// are missing there are trained with the paper's settings and saved. "" means DefaultModelsDir().
	ModelsDir string
	// AuthorsModelsDir holds the authors' model files (models.AuthorsModelFile), e.g. the models/ folder
	// of an ECCCo.jl checkout; "" means the copies built into eccco (eccco/models/authors).
	AuthorsModelsDir string
	// Training overrides the paper's training settings (zero fields keep the paper's). Models trained with
	// overrides record them, and an experiment with other settings refuses to use them.
	Training Training
	// Progress receives progress bars of long work (training); nil is silent.
	Progress io.Writer
	// Log receives one line for each model or VAE trained or loaded; nil is silent.
	Log io.Writer
}

// Training overrides the paper's training settings; zero fields keep the paper's.
type Training struct {
	// Epochs for the MLPs and JEMs (the paper: table_params.tex).
	Epochs int
	// LeNetEpochs for LeNet-5 (the paper: 100); 0 means Epochs if set, else the paper's.
	LeNetEpochs int
	// VAEEpochs for REVISE's VAE (the paper: 100); 0 means Epochs if set, else the paper's.
	VAEEpochs int
	// BatchSize for every model (the paper: table_params.tex).
	BatchSize int
	// LearningRate of Adam (the paper: 1e-3).
	LearningRate float64
}

// Validate rejects negative settings: a count or rate below zero is an error, not the paper's default.
func (t Training) Validate() error {
	switch {
	case t.Epochs < 0, t.LeNetEpochs < 0, t.VAEEpochs < 0:
		return fmt.Errorf("%w: epochs must not be negative (%d, LeNet %d, VAE %d; 0 = the paper's)", ErrInvalid, t.Epochs, t.LeNetEpochs, t.VAEEpochs)
	case t.BatchSize < 0:
		return fmt.Errorf("%w: batch size %d must not be negative (0 = the paper's)", ErrInvalid, t.BatchSize)
	case t.LearningRate < 0 || t.LearningRate != t.LearningRate:
		return fmt.Errorf("%w: learning rate %v must not be negative (0 = the paper's)", ErrInvalid, t.LearningRate)
	}
	return nil
}

// DefaultModelsDir is where models are saved by default: runs/models inside this repository when the
// working directory is in a checkout of it (also from notebooks/), else runs/models under the working
// directory.
func DefaultModelsDir() string {
	if wd, err := os.Getwd(); err == nil {
		if root, ok := data.ModuleRoot(wd); ok {
			return filepath.Join(root, "runs", "models")
		}
	}
	return filepath.Join("runs", "models")
}

// Experiment is one data set opened with a seed and a mode: the source of its models, VAE, factuals,
// generators, explanations and metrics. Everything it trains or loads is cached, so asking twice costs
// nothing. An Experiment is not safe for concurrent use.
type Experiment struct {
	dataset  string
	paper    catalogue.Dataset // the data set's paper settings
	opts     Options
	settings Settings
	split    *data.Split
	backend  compute.Backend

	models map[models.Kind]*models.Model
	// authored holds the authors' trained models, once read (Settings.AuthorsModels).
	authored map[models.Kind]models.Authored
	vae      *vae.VAE
	// prep prepares the runs' ingredients; it keeps ECCCo+'s PCA of the training split.
	prep *preparation
	runs map[runKey]*Run
	// graphs keeps every compiled graph of the experiment's models (predictions, calibration, SGLD,
	// searches, metrics) for all their runs: on XLA a tabular run computes less than it would compile.
	graphs *models.Graphs
	// classes keeps the training rows by class, prepared for the metrics' image distance, for all runs.
	classes *metrics.ClassRows
}

// Open loads a data set with the paper's recipe and the experiment's seed. It fails with ErrInvalid for
// bad options and with the data package's errors (data.ErrNotAvailable …) when the data are missing.
func Open(dataset string, opts Options) (*Experiment, error) {
	if err := opts.Mode.Validate(); err != nil {
		return nil, err
	}
	opts.Mode = opts.Mode.orDefault()
	if err := opts.Sampling.Validate(); err != nil {
		return nil, err
	}
	if opts.Sampling == "" {
		opts.Sampling = PerRun
	}
	if err := opts.Training.Validate(); err != nil {
		return nil, err
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.ModelsDir == "" {
		opts.ModelsDir = DefaultModelsDir()
	}
	paper, err := catalogue.LookupDataset(dataset)
	if err != nil {
		return nil, err
	}
	info, err := paper.Info()
	if err != nil {
		return nil, err
	}
	b := opts.Backend
	if opts.ImageBackend != nil && info.Kind == data.KindVision {
		b = opts.ImageBackend
	}
	if b == nil {
		var err error
		if b, err = backend.Shared(); err != nil {
			return nil, err
		}
	}
	settings, err := resolve(opts, info)
	if err != nil {
		return nil, err
	}
	split, err := data.Load(dataset, data.Options{Dir: opts.DataDir, Seed: opts.Seed, AuthorsDraw: settings.AuthorsData})
	if err != nil {
		return nil, err
	}
	e := &Experiment{dataset: dataset, paper: paper, opts: opts, settings: settings, split: split, backend: b,
		models: map[models.Kind]*models.Model{}, runs: map[runKey]*Run{}, graphs: &models.Graphs{},
		classes: &metrics.ClassRows{}}
	e.prep = &preparation{backend: b, paper: paper, train: split.Train, graphs: e.graphs, vae: e.VAE}
	return e, nil
}

// Close releases the compiled graphs the experiment keeps for its models' runs (it may still be used:
// it compiles them again).
func (e *Experiment) Close() { e.graphs.Close() }

// Dataset is the data set's name.
func (e *Experiment) Dataset() string { return e.dataset }

// Mode is the experiment's mode.
func (e *Experiment) Mode() Mode { return e.opts.Mode }

// Settings are the experiment's switches: its mode resolved for the data set, with Options.Set applied.
func (e *Experiment) Settings() Settings { return e.settings }

// Seed is the experiment's seed.
func (e *Experiment) Seed() uint64 { return e.opts.Seed }

// Split is the data set prepared with the paper's recipe and the experiment's seed.
func (e *Experiment) Split() *data.Split { return e.split }

// Backend runs the experiment's graphs.
func (e *Experiment) Backend() compute.Backend { return e.backend }

// Params are the paper's generator hyper-parameters for the data set (table_gen_params.tex).
func (e *Experiment) Params() counterfactual.Params {
	return e.paper.GeneratorParams()
}

// splitDescription records how the training rows were chosen, for provenance.
func (e *Experiment) splitDescription() string {
	if e.settings.AuthorsData {
		return fmt.Sprintf("%s: %d train / %d test rows, the authors' draw (Julia seed %d)", e.dataset, e.split.Train.N(), e.split.Test.N(), data.AuthorsLinearlySeparableSeed)
	}
	return fmt.Sprintf("%s: %d train / %d test rows, seed %d", e.dataset, e.split.Train.N(), e.split.Test.N(), e.opts.Seed)
}

func (e *Experiment) logf(format string, args ...any) {
	if e.opts.Log != nil {
		fmt.Fprintf(e.opts.Log, format+"\n", args...)
	}
}

// resolve returns the settings of the options' mode (valid) for a data set with Options.Set applied
// (Set {"authors-models": "false"} trains eccco's own models even where the authors published theirs).
func resolve(opts Options, info data.Info) (Settings, error) {
	s := opts.Mode.settingsFor(info)
	for _, k := range slices.Sorted(maps.Keys(opts.Set)) {
		if err := s.Set(k, opts.Set[k]); err != nil {
			return s, err
		}
	}
	if (s.VisionCost > 0 || s.VisionL1Energy > 0) && info.Kind != data.KindVision {
		return s, fmt.Errorf("%w: settings vision-cost and vision-l1-energy weigh the image generators; %s is not an image data set (0 keeps the table's weights)", ErrInvalid, info.Name)
	}
	return s, nil
}
