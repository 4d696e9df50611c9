package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// expFlags are the flags every command that opens an experiment shares: mode, seed, where data and
// models live, and the training overrides.
type expFlags struct {
	mode      string
	compat    bool // old alias of --mode authors-code
	sampling  string
	seed      uint64
	dataDir   string
	modelsDir string
	// ownModels and authorsModels: --own-models, --authors-models (experiment.Options.OwnModels,
	// AuthorsModelsDir).
	ownModels     bool
	authorsModels string
	training      experiment.Training
	// imageBackend, when set (bench and perf), is the GoMLX backend of the image data sets
	// (--image-backend); the others run on GOMLX_BACKEND's, or on tabularBackend's (bench:
	// --tabular-backend) when it is set.
	imageBackend   string
	tabularBackend string
	// jobs (bench and perf: --jobs) is how many data sets run at once.
	jobs int
}

// registerJobs adds --jobs (bench and perf).
func (f *expFlags) registerJobs(fs *flag.FlagSet) {
	fs.IntVar(&f.jobs, "jobs", 1, "data sets run at once, each in its own lane (the results are the same bytes; on 2 cores, 2 lanes finish the paper's protocol in about the CPU time over two, where one data set keeps 1.1–1.7 cores busy)")
}

// lanes resolves the backend of every data set (forDataset) up front and returns the lanes of --jobs.
func (f *expFlags) lanes(opts experiment.Options, names []string) (benchmark.Lanes, error) {
	if f.jobs < 1 {
		return benchmark.Lanes{}, fmt.Errorf("%w: --jobs %d: want at least 1", experiment.ErrInvalid, f.jobs)
	}
	backends := map[string]compute.Backend{}
	for _, name := range names {
		dopts, err := f.forDataset(opts, name)
		if err != nil {
			return benchmark.Lanes{}, err
		}
		backends[name] = dopts.Backend
	}
	return benchmark.Lanes{Jobs: f.jobs, Backend: func(name string) compute.Backend { return backends[name] }}, nil
}

// registerImageBackend adds --image-backend (bench and perf).
func (f *expFlags) registerImageBackend(fs *flag.FlagSet) {
	fs.StringVar(&f.imageBackend, "image-backend", "", "GoMLX backend for the image data sets (MNIST, Fashion-MNIST), e.g. xla:cpu, the fastest for them (needs a build with -tags xla and scripts/install-xla.sh); the others use GOMLX_BACKEND's (default: that one for all)")
}

// registerTabularBackend adds --tabular-backend (bench).
func (f *expFlags) registerTabularBackend(fs *flag.FlagSet) {
	fs.StringVar(&f.tabularBackend, "tabular-backend", "", "GoMLX backend for the synthetic and tabular data sets, e.g. xla:cpu (needs a build with -tags xla and scripts/install-xla.sh): each model's graphs are compiled once for all its runs, and their 50 runs take about a fifth of pure Go's time there, agreeing with it to 10⁻³ in almost every counterfactual (eccco agree); models that have to be trained are trained on it too (default: GOMLX_BACKEND's)")
}

// forDataset returns opts with the backend that runs dataset: --image-backend's for image sets and
// --tabular-backend's for the others, when set.
func (f *expFlags) forDataset(opts experiment.Options, dataset string) (experiment.Options, error) {
	if f.imageBackend == "" && f.tabularBackend == "" {
		return opts, nil
	}
	info, err := data.Lookup(dataset)
	if err != nil {
		return opts, err
	}
	config, flagName := f.tabularBackend, "--tabular-backend"
	if info.Kind == data.KindVision {
		config, flagName = f.imageBackend, "--image-backend"
	}
	if config == "" {
		return opts, nil
	}
	b, err := namedBackend(config)
	if err != nil {
		return opts, fmt.Errorf("%s: %w", flagName, err)
	}
	opts.Backend = b
	return opts, nil
}

var (
	namedBackendsMu sync.Mutex
	namedBackends   = map[string]compute.Backend{}
)

// namedBackend creates the backend of --image-backend or --tabular-backend once per process and
// configuration (backends hold compiled graphs and worker pools); GOMLX_BACKEND's own configuration gives
// the shared backend.
func namedBackend(config string) (compute.Backend, error) {
	if config == backend.Config() {
		return backend.Shared()
	}
	namedBackendsMu.Lock()
	defer namedBackendsMu.Unlock()
	if b, ok := namedBackends[config]; ok {
		return b, nil
	}
	if name, _, _ := strings.Cut(config, ":"); !slices.Contains(backend.Available(), name) {
		return nil, fmt.Errorf("backend %q is not compiled into this eccco (it has: %s); for XLA build with `go build -tags xla` (cgo) and install its plugin with scripts/install-xla.sh",
			config, strings.Join(backend.Available(), ", "))
	}
	b, err := backend.NewWithConfig(config)
	if err != nil {
		return nil, err
	}
	namedBackends[config] = b
	return b, nil
}

// register adds the flags; alias names the command's old switch for --mode authors-code ("" for none).
func (f *expFlags) register(fs *flag.FlagSet, alias string) {
	fs.StringVar(&f.mode, "mode", "paper", "paper (the paper's equations) or authors-code (what the authors' code did; the published numbers)")
	if alias != "" {
		fs.BoolVar(&f.compat, alias, false, "alias of --mode authors-code (kept for older scripts)")
	}
	fs.StringVar(&f.sampling, "sampling", "per-run", "unfaithfulness samples: per-run (one set per class and run, shared) or per-counterfactual (a set for every counterfactual, as the authors' code drew them; costlier)")
	fs.Uint64Var(&f.seed, "seed", experiment.DefaultSeed, "seed of everything random (data split, models, factuals, targets, samples)")
	fs.StringVar(&f.dataDir, "dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	fs.StringVar(&f.modelsDir, "models-dir", "", "saved models, as DIR/MODE/seed-SEED/DATA/KIND; missing ones are trained and saved (default runs/models in the repository)")
	fs.BoolVar(&f.ownModels, "own-models", false, "authors-code mode: train eccco's own models also for the data sets whose trained models the authors published (they are explained by default)")
	fs.StringVar(&f.authorsModels, "authors-models", "", "folder of the authors' model files, e.g. an ECCCo.jl checkout's models/ (default: the copies built into eccco)")
	fs.IntVar(&f.training.Epochs, "epochs", 0, "training epochs of models that have to be trained (0: the paper's)")
	fs.IntVar(&f.training.LeNetEpochs, "lenet-epochs", 0, "epochs for LeNet-5 (0: as --epochs, else the paper's 100)")
	fs.IntVar(&f.training.VAEEpochs, "vae-epochs", 0, "epochs for REVISE's VAE (0: as --epochs, else the paper's 100)")
	fs.IntVar(&f.training.BatchSize, "batch-size", 0, "minibatch size (0: the paper's)")
	fs.Float64Var(&f.training.LearningRate, "lr", 0, "Adam learning rate (0: the paper's, 1e-3)")
}

// modeValue returns the chosen mode.
func (f *expFlags) modeValue() (experiment.Mode, error) {
	m, err := experiment.ParseMode(f.mode)
	if err != nil {
		return "", err
	}
	if f.compat {
		if m != experiment.Paper && m != experiment.AuthorsCode {
			return "", fmt.Errorf("%w: the alias flag conflicts with --mode %s", experiment.ErrInvalid, f.mode)
		}
		m = experiment.AuthorsCode
	}
	return m, nil
}

// options builds the experiment's options; training progress goes to stderr.
func (f *expFlags) options(stderr io.Writer) (experiment.Options, error) {
	mode, err := f.modeValue()
	if err != nil {
		return experiment.Options{}, err
	}
	sampling, err := experiment.ParseSampling(f.sampling)
	if err != nil {
		return experiment.Options{}, err
	}
	t := f.training
	if err := nonNegative(map[string]int{"epochs": t.Epochs, "lenet-epochs": t.LeNetEpochs, "vae-epochs": t.VAEEpochs, "batch-size": t.BatchSize}); err != nil {
		return experiment.Options{}, err
	}
	if !(t.LearningRate >= 0) {
		return experiment.Options{}, fmt.Errorf("%w: --lr %v must not be negative (0: the paper's)", experiment.ErrInvalid, t.LearningRate)
	}
	if f.authorsModels != "" && (!mode.IsAuthorsCode() || f.ownModels) {
		return experiment.Options{}, fmt.Errorf("%w: --authors-models is read only in --mode authors-code without --own-models", experiment.ErrInvalid)
	}
	b, err := backend.Shared()
	if err != nil {
		return experiment.Options{}, err
	}
	seed := f.seed
	if seed == 0 {
		return experiment.Options{}, fmt.Errorf("%w: --seed 0 is reserved (it means the default, %d)", experiment.ErrInvalid, experiment.DefaultSeed)
	}
	return experiment.Options{Backend: b, Mode: mode, Sampling: sampling, Seed: seed, DataDir: f.dataDir, ModelsDir: f.modelsDir,
		OwnModels: f.ownModels, AuthorsModelsDir: f.authorsModels, Training: f.training, Progress: stderr, Log: stderr}, nil
}

// open opens a data set's experiment with the flags.
func (f *expFlags) open(dataset string, stderr io.Writer) (*experiment.Experiment, error) {
	if dataset == "" {
		return nil, fmt.Errorf("--data is required")
	}
	opts, err := f.options(stderr)
	if err != nil {
		return nil, err
	}
	return experiment.Open(dataset, opts)
}

// model returns the experiment's model of a kind, or the one saved in dir when dir is given.
func model(ctx context.Context, e *experiment.Experiment, kind models.Kind, dir string) (*models.Model, error) {
	if dir != "" {
		return e.UseModel(dir)
	}
	return e.Model(ctx, kind)
}

// positive checks count flags: each must be at least 1.
func positive(flags map[string]int) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; v < 1 {
			return fmt.Errorf("%w: --%s %d must be at least 1", experiment.ErrInvalid, name, v)
		}
	}
	return nil
}

// nonNegative checks flags where 0 means the default: below 0 is an error.
func nonNegative(flags map[string]int) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		if v := flags[name]; v < 0 {
			return fmt.Errorf("%w: --%s %d must not be negative (0: the paper's)", experiment.ErrInvalid, name, v)
		}
	}
	return nil
}
