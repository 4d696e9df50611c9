package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/fielddiff"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// expFlags are the flags of the commands that open an experiment: --mode, --seed, --models-dir and
// --set (the key groups each command reads), and where registered --image-backend, --tabular-backend and
// --jobs. The data directory is $ECCCO_DATA_DIR's (data.DefaultDir), for every command alike.
type expFlags struct {
	mode      string
	seed      uint64
	modelsDir string
	set       setFlag
	// groups are the --set keys the command reads.
	groups []experiment.SetGroup
	// overrides are --set's values, parsed by options.
	overrides experiment.Overrides
	// authorsModels is --set authors-models-dir=DIR (experiment.Options.AuthorsModelsDir).
	authorsModels string
	// imageBackend, when set (bench, perf, figures), is the GoMLX backend of the image data sets
	// (--image-backend); the others run on GOMLX_BACKEND's, or on tabularBackend's (bench:
	// --tabular-backend) when it is set.
	imageBackend   string
	tabularBackend string
	// jobs (bench and perf: --jobs) is how many data sets run at once.
	jobs int
}

// setFlag collects the values of a repeatable --set.
type setFlag []string

func (s *setFlag) String() string { return strings.Join(*s, ",") }

func (s *setFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// registerJobs adds --jobs (bench and perf).
func (f *expFlags) registerJobs(fs *flag.FlagSet) {
	fs.IntVar(&f.jobs, "jobs", 1, "data sets run at once, each in its own lane (the results are the same bytes)")
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
	fs.StringVar(&f.imageBackend, "image-backend", "", "GoMLX backend for the image data sets (MNIST, Fashion-MNIST), e.g. xla:cpu (needs a build with -tags xla and scripts/install-xla.sh); the others use GOMLX_BACKEND's (default: that one for all)")
}

// registerTabularBackend adds --tabular-backend (bench).
func (f *expFlags) registerTabularBackend(fs *flag.FlagSet) {
	fs.StringVar(&f.tabularBackend, "tabular-backend", "", "GoMLX backend for the synthetic and tabular data sets, e.g. xla:cpu (needs a build with -tags xla and scripts/install-xla.sh); models that have to be trained are trained on it too (default: GOMLX_BACKEND's)")
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
	b, err := backend.Named(config)
	if err != nil {
		return opts, fmt.Errorf("%s: %w", flagName, err)
	}
	opts.Backend = b
	return opts, nil
}

// register adds --mode, --seed, --models-dir and --set with the key groups the command reads.
func (f *expFlags) register(fs *flag.FlagSet, groups ...experiment.SetGroup) {
	f.groups = groups
	fs.StringVar(&f.mode, "mode", "paper", "paper (the paper's equations) or authors-code (what the authors' code did: the published numbers)")
	fs.Uint64Var(&f.seed, "seed", experiment.DefaultSeed, "seed of everything random (data split, models, factuals, targets, samples)")
	registerModelsDir(fs, &f.modelsDir)
	fs.Var(&f.set, "set", "override a setting, key=value (repeatable; comma lists allowed); keys: "+strings.Join(experiment.SetKeys(groups...), ", ")+" ('eccco help set' says what each does)")
}

// registerModelsDir adds --models-dir.
func registerModelsDir(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "models-dir", "", "saved models, as DIR/MODE/seed-SEED/DATA/KIND; missing ones are trained and saved (default runs/models in the repository)")
}

// modeValue reads --mode: paper or authors-code.
func modeValue(name string) (experiment.Mode, error) {
	m := experiment.Mode(strings.TrimSpace(name))
	if err := m.Validate(); err != nil {
		return "", fmt.Errorf("--mode: %w", err)
	}
	return m, nil
}

// options parses --set and builds the experiment's options; training progress goes to stderr.
func (f *expFlags) options(stderr io.Writer) (experiment.Options, error) {
	mode, err := modeValue(f.mode)
	if err != nil {
		return experiment.Options{}, err
	}
	ov, err := experiment.ParseSet(f.set, f.groups...)
	if err != nil {
		return experiment.Options{}, fmt.Errorf("--set: %w", err)
	}
	f.overrides = ov
	on, _ := ov.AuthorsModels() // authors-models-dir with authors-models off is ParseSet's error
	f.authorsModels = ov.AuthorsModelsDir
	if f.authorsModels != "" && !on && !mode.IsAuthorsCode() {
		return experiment.Options{}, fmt.Errorf("%w: --set authors-models-dir is read only where the authors' models are explained (--mode authors-code, or --set authors-models=true)", experiment.ErrInvalid)
	}
	b, err := backend.Shared()
	if err != nil {
		return experiment.Options{}, err
	}
	seed := f.seed
	if seed == 0 {
		return experiment.Options{}, fmt.Errorf("%w: --seed 0 is reserved (it means the default, %d)", experiment.ErrInvalid, experiment.DefaultSeed)
	}
	return experiment.Options{Backend: b, Mode: mode, Set: ov.Settings, Sampling: ov.Sampling, Seed: seed,
		ModelsDir: f.modelsDir, AuthorsModelsDir: f.authorsModels, Training: ov.Training, Progress: stderr, Log: stderr}, nil
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

// modelFlag is --model: a model kind, or the directory of a saved model (e.g. from 'eccco train --out').
type modelFlag struct {
	kind models.Kind
	dir  string
}

// registerModel adds --model with a default kind.
func registerModel(fs *flag.FlagSet, m *modelFlag, def models.Kind) {
	m.kind = def
	fs.Func("model", fmt.Sprintf("model kind (mlp, mlp-ensemble, jem, jem-ensemble, lenet; a matching saved model is used, or one is trained with the paper's settings and saved) or the directory of a saved model (default %s)", def), func(v string) error {
		if k, err := models.ParseKind(v); err == nil {
			m.kind, m.dir = k, ""
			return nil
		}
		if st, err := os.Stat(v); err == nil && st.IsDir() {
			m.dir = v
			return nil
		}
		if strings.HasSuffix(strings.ToLower(v), ".onnx") {
			return fmt.Errorf("%q is an ONNX file: your own ONNX model is explained by eccco explain-onnx --model M.onnx --data D.csv --schema S.json", v)
		}
		return fmt.Errorf("%q is neither a model kind (mlp, mlp-ensemble, jem, jem-ensemble, lenet) nor a saved model's directory", v)
	})
}

// model returns the experiment's model of --model: the one saved in its directory, or the experiment's
// model of its kind.
func (m modelFlag) model(ctx context.Context, e *experiment.Experiment) (*models.Model, error) {
	if m.dir != "" {
		model, err := e.UseModel(m.dir)
		if err != nil {
			return nil, fmt.Errorf("--model %s: %w", m.dir, err)
		}
		return model, nil
	}
	return e.Model(ctx, m.kind)
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

// distinctDirs refuses a list of benchmark directories that names one twice.
func distinctDirs(dirs []string) error {
	seen := map[string]string{}
	for _, d := range dirs {
		key := filepath.Clean(d)
		if abs, err := filepath.Abs(key); err == nil {
			key = abs
		}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%w: --in names %s twice (as %s and %s): there is nothing to compare", experiment.ErrInvalid, key, prev, d)
		}
		seen[key] = d
	}
	return nil
}

// sameProtocol refuses two benchmark directories whose manifests record different protocols (protocol
// version, seed, factuals, mode, settings, sampling or a shared generator's definition): their
// counterfactuals are not the same ones computed twice. Inputs without manifests (results.csv files)
// are not checked.
func sameProtocol(a, b string) error {
	ma, err := benchmark.ReadManifests(a)
	if err != nil {
		return err
	}
	mb, err := benchmark.ReadManifests(b)
	if err != nil {
		return err
	}
	byData := map[string]benchmark.Manifest{}
	for _, m := range mb {
		byData[m.Dataset] = m
	}
	for _, x := range ma {
		y, ok := byData[x.Dataset]
		if !ok {
			continue
		}
		var diffs fielddiff.List
		add := diffs.Printed
		add("protocol", x.Protocol, y.Protocol)
		add("seed", x.Seed, y.Seed)
		add("factuals", x.Factuals, y.Factuals)
		add("mode", x.Mode, y.Mode)
		add("sampling", x.Sampling, y.Sampling)
		if x.Settings != nil && y.Settings != nil {
			add("settings", x.Settings.Describe(), y.Settings.Describe())
		}
		for _, g := range slices.Sorted(maps.Keys(x.Generators)) {
			if d, ok := y.Generators[g]; ok {
				add("generator "+g, x.Generators[g], d)
			}
		}
		if len(diffs) > 0 {
			return fmt.Errorf("%w: %s and %s hold %s results of different protocols (%s): agree compares one protocol run twice (e.g. on two backends)",
				experiment.ErrInvalid, a, b, x.Dataset, strings.Join(diffs, "; "))
		}
	}
	return nil
}
