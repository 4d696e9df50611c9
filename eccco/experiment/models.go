package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/internal/fielddiff"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/gomlx/ml/model"
)

// modelsRoot is the directory of this experiment's models: ModelsDir/MODE/seed-SEED/DATA. Models of
// another mode or seed live elsewhere and are never picked up.
func (e *Experiment) modelsRoot() string {
	return filepath.Join(e.opts.ModelsDir, e.opts.Mode.String(), fmt.Sprintf("seed-%d", e.opts.Seed), e.dataset)
}

// ModelDir is where the model of a kind is saved: ModelsDir/MODE/seed-SEED/DATA/KIND.
func (e *Experiment) ModelDir(kind models.Kind) string {
	return filepath.Join(e.modelsRoot(), string(kind))
}

// checkKind reports whether the kind can be trained on the data set (LeNet-5 needs images).
func (e *Experiment) checkKind(kind models.Kind) error {
	if _, err := models.ParseKind(string(kind)); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if kind == models.KindLeNet && e.split.Train.Image == nil {
		return fmt.Errorf("%w: LeNet-5 needs an image data set (mnist or fashion-mnist), not %s", ErrInvalid, e.dataset)
	}
	return nil
}

// modelTraining is what training a model of a kind uses in this experiment: the paper's settings with the
// experiment's overrides.
func (e *Experiment) modelTraining(kind models.Kind) (models.Training, error) {
	s := e.paper.Model
	t := models.Training{Epochs: s.Epochs, BatchSize: s.BatchSize, LearningRate: s.LearningRate, Objective: e.settings.Objective(kind)}
	o := e.opts.Training
	switch {
	case kind == models.KindLeNet && o.LeNetEpochs > 0:
		t.Epochs = o.LeNetEpochs
	case o.Epochs > 0:
		t.Epochs = o.Epochs
	}
	if o.BatchSize > 0 {
		t.BatchSize = o.BatchSize
	}
	if o.LearningRate > 0 {
		t.LearningRate = o.LearningRate
	}
	return t, nil
}

// provenance is what a model of the kind trained by this experiment records, and what a saved model must
// record to be used by it.
func (e *Experiment) provenance(kind models.Kind) (models.Provenance, error) {
	t, err := e.modelTraining(kind)
	if err != nil {
		return models.Provenance{}, err
	}
	fitDesc, err := e.settings.fitDescription(e.split.Train)
	if err != nil {
		return models.Provenance{}, err
	}
	return models.Provenance{Dataset: e.dataset, Seed: e.opts.Seed, Split: e.splitDescription() + fitDesc,
		Mode: e.opts.Mode.String(), Settings: e.settings.Describe(modelKeys...), Kind: kind, Training: t}, nil
}

// fitRows are the rows the experiment's models are fitted on: the training split (the paper), or its
// first half (Settings.fitCalibration).
func (e *Experiment) fitRows() (*data.Dataset, error) {
	fit, _, err := e.settings.fitCalibration(e.split.Train)
	return fit, err
}

// Model returns the model of a kind: loaded from ModelDir(kind) if a matching one is saved there,
// otherwise trained with the paper's settings (a progress bar on Options.Progress) and saved. A saved
// model made for another data set, seed, mode, split, architecture or training setting fails with
// ErrMismatch, one that cannot be read with ErrBroken: neither is ever trained over.
func (e *Experiment) Model(ctx context.Context, kind models.Kind) (*models.Model, error) {
	if m, ok := e.models[kind]; ok {
		return m, nil
	}
	if e.UsesAuthorsModels() {
		return e.authorsModel(kind)
	}
	m, err := e.loadSaved(kind)
	dir := e.ModelDir(kind)
	switch {
	case err == nil:
		e.logf("%s %s: loaded %s", e.dataset, kind, dir)
	case errors.Is(err, models.ErrNoModel):
		want, _, perr := e.plan(kind)
		if perr != nil {
			return nil, perr
		}
		unlock, lerr := e.lockSave(ctx, dir, fmt.Sprintf("%s %s", e.dataset, kind))
		if lerr != nil {
			return nil, lerr
		}
		defer unlock()
		// Another process may have saved it while this one waited for the lock.
		if m, err = e.loadSaved(kind); err == nil {
			e.logf("%s %s: loaded %s (saved meanwhile by another process)", e.dataset, kind, dir)
			break
		} else if !errors.Is(err, models.ErrNoModel) {
			return nil, err
		}
		e.logf("%s %s: no saved model in %s; training one (%d epochs)", e.dataset, kind, dir, want.Training.Epochs)
		tr, err := e.TrainModel(ctx, kind)
		if err != nil {
			return nil, err
		}
		m = tr.Model
		if err := m.Save(dir); err != nil {
			return nil, fmt.Errorf("saving the %s %s model: %w", e.dataset, kind, err)
		}
		e.logf("%s %s: trained in %.1f s, saved to %s", e.dataset, kind, tr.Duration.Seconds(), dir)
	default:
		return nil, err
	}
	// The same last line whether the model was loaded or trained, so that a notebook's status line (the
	// last line logged) reads the same in a run that trained it and in a resumed run that loaded it.
	e.logf("%s %s: ready (%s)", e.dataset, kind, dir)
	e.models[kind] = m
	return m, nil
}

// lockSave takes the lock of a model's (or VAE's) folder dir while it is trained and saved: an flock on
// .NAME.lock beside it, so that two processes sharing a models folder never train and save one model at
// once. The second waits, saying which process it waits for, and then loads what the first saved.
func (e *Experiment) lockSave(ctx context.Context, dir, what string) (func(), error) {
	lock := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".lock")
	unlock, err := outdir.LockWait(ctx, lock, func(holder string) {
		e.logf("%s: %s is training or saving it into %s; waiting for it (lock %s)", what, holder, dir, lock)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: waiting for the lock of %s: %w", what, dir, err)
	}
	return unlock, nil
}

// SavedModel is Model without training: the model of a kind saved in ModelDir(kind), checked as Model
// checks it, or an error wrapping models.ErrNoModel where none is saved. For readers of finished results
// (the comparison's calibration bounds) that must never start a training run.
func (e *Experiment) SavedModel(kind models.Kind) (*models.Model, error) {
	if m, ok := e.models[kind]; ok {
		return m, nil
	}
	if e.UsesAuthorsModels() {
		return e.authorsModel(kind)
	}
	m, err := e.loadSaved(kind)
	if err != nil {
		return nil, err
	}
	e.logf("%s %s: loaded %s", e.dataset, kind, e.ModelDir(kind))
	e.models[kind] = m
	return m, nil
}

// UsesAuthorsModels reports whether the experiment explains the authors' trained models
// (Settings.AuthorsModels) rather than its own.
func (e *Experiment) UsesAuthorsModels() bool { return e.settings.AuthorsModels }

// authorsModel returns the authors' trained model of a kind, reading their file once for all kinds.
func (e *Experiment) authorsModel(kind models.Kind) (*models.Model, error) {
	if err := e.checkKind(kind); err != nil {
		return nil, err
	}
	if e.authored == nil {
		specs := map[models.Kind]models.Spec{}
		for _, k := range []models.Kind{models.KindMLP, models.KindMLPEnsemble, models.KindJEM, models.KindJEMEnsemble} {
			_, spec, err := e.plan(k)
			if err != nil {
				return nil, err
			}
			specs[k] = spec
		}
		dir := e.opts.AuthorsModelsDir
		a, err := models.LoadAuthors(e.backend, dir, e.dataset, specs)
		if err != nil {
			return nil, fmt.Errorf("the authors' trained models of %s (the setting authors-models=false trains eccco's own): %w", e.dataset, err)
		}
		e.authored = a
		if dir == "" {
			dir = "eccco's built-in copy (ECCCo.jl models/ at " + models.AuthorsCommit[:7] + ")"
		}
		e.logf("%s: loaded the authors' trained models from %s", e.dataset, dir)
	}
	a, ok := e.authored[kind]
	if !ok {
		return nil, fmt.Errorf("%w: the authors published no %s of %s", ErrInvalid, kind.Title(), e.dataset)
	}
	e.models[kind] = a.Model
	return a.Model, nil
}

// authorsScores are the calibration scores stored with the authors' model of a kind, nil where the
// experiment explains its own models.
func (e *Experiment) authorsScores(kind models.Kind) []float64 {
	if !e.UsesAuthorsModels() || e.authored == nil {
		return nil
	}
	return e.authored[kind].Scores
}

// loadSaved loads and checks the model saved in ModelDir(kind): models.ErrNoModel where none is,
// ErrMismatch where it was made for other settings, ErrBroken where it cannot be read.
func (e *Experiment) loadSaved(kind models.Kind) (*models.Model, error) {
	want, spec, err := e.plan(kind)
	if err != nil {
		return nil, err
	}
	dir := e.ModelDir(kind)
	m, err := models.Load(e.backend, dir)
	switch {
	case errors.Is(err, models.ErrNoModel):
		return nil, fmt.Errorf("%s %s: %w in %s", e.dataset, kind, err, dir)
	case err != nil:
		return nil, fmt.Errorf("%w: %s %s: %v (remove %s to retrain)", ErrBroken, e.dataset, kind, err, dir)
	}
	if err := checkSaved(dir, "model", want, m.Provenance(), specDiff(spec, m.Spec())); err != nil {
		return nil, err
	}
	return m, nil
}

// plan checks that the kind fits the data set and returns the provenance and architecture a model of it has
// in this experiment.
func (e *Experiment) plan(kind models.Kind) (models.Provenance, models.Spec, error) {
	if err := e.checkKind(kind); err != nil {
		return models.Provenance{}, models.Spec{}, err
	}
	prov, err := e.provenance(kind)
	if err != nil {
		return models.Provenance{}, models.Spec{}, err
	}
	spec, err := e.paper.ModelSpec(kind, e.split.Train.D(), e.split.Train.K())
	if err != nil {
		return prov, spec, err
	}
	spec = e.settings.spec(spec, e.split.Train)
	return prov, spec, spec.Validate()
}

// checkSaved compares a saved model's provenance and architecture with what the experiment wants.
func checkSaved(dir, what string, want, have models.Provenance, archDiff []string) error {
	if have == (models.Provenance{}) {
		return fmt.Errorf("%w: the %s in %s was saved without its provenance (an older eccco), so it cannot be told apart from one of another seed or mode; move it away to retrain", ErrMismatch, what, dir)
	}
	diff := append(have.Diff(want), archDiff...)
	if len(diff) > 0 {
		return fmt.Errorf("%w: the %s in %s differs from what this experiment asks for (saved ≠ wanted): %s; use another models directory or move it away to retrain",
			ErrMismatch, what, dir, strings.Join(diff, "; "))
	}
	return nil
}

// specDiff lists the architecture differences between the spec a kind should have and a saved one.
func specDiff(want, have models.Spec) []string {
	var d fielddiff.List
	add := d.Value
	add("kind", have.Kind, want.Kind)
	add("features", have.NumFeatures, want.NumFeatures)
	add("classes", have.NumClasses, want.NumClasses)
	add("hidden units", have.Hidden, want.Hidden)
	add("hidden layers", have.Layers, want.Layers)
	add("activation", have.Activation, want.Activation)
	add("members", have.Members, want.Members)
	if have.Kind == models.KindLeNet {
		add("second-convolution padding", orValid(have.Conv2Padding), orValid(want.Conv2Padding))
	}
	return d
}

func orValid(padding string) string {
	if padding == "" {
		return models.PaddingValid
	}
	return padding
}

// Trained is a model fitted by TrainModel, with what its training took.
type Trained struct {
	Model    *models.Model
	Duration time.Duration
	// Skipped counts JEM minibatches skipped for a non-finite loss.
	Skipped int
}

// TrainModel trains a fresh model of the kind with the experiment's settings (the paper's unless
// overridden) and records its provenance; it neither loads nor saves (Model does both).
func (e *Experiment) TrainModel(ctx context.Context, kind models.Kind) (*Trained, error) {
	prov, spec, err := e.plan(kind)
	if err != nil {
		return nil, err
	}
	m, err := models.New(e.backend, spec, e.opts.Seed)
	if err != nil {
		return nil, err
	}
	t := prov.Training
	fit, err := e.fitRows()
	if err != nil {
		return nil, err
	}
	bagging := e.settings.baggingFraction(kind)
	desc := fmt.Sprintf("%s %s", e.dataset, kind)
	bar := progress.New(e.opts.Progress, t.Epochs, desc, "epochs")
	onEpoch := func(s models.EpochStats) {
		bar.Describe(fmt.Sprintf("%s loss %.4f", desc, s.Loss))
		bar.Add(1)
	}
	var hist *models.History
	if kind == models.KindJEM || kind == models.KindJEMEnsemble {
		jo, err := e.paper.JEMOptions(e.split.Train, e.opts.Seed)
		if err != nil {
			return nil, err
		}
		jo.Epochs, jo.BatchSize, jo.LearningRate, jo.OnEpoch = t.Epochs, t.BatchSize, t.LearningRate, onEpoch
		jo.BaggingFraction = bagging // the prior stays that of the whole training split, as in the authors' code
		hist, err = energy.TrainJEM(ctx, e.backend, m, fit, e.settings.jEMOptions(jo))
		bar.Finish()
		if err != nil {
			return nil, fmt.Errorf("training the %s %s: %w", e.dataset, kind, err)
		}
	} else {
		hist, err = models.Train(ctx, e.backend, m, fit, models.TrainOptions{Epochs: t.Epochs, BatchSize: t.BatchSize,
			LearningRate: t.LearningRate, Seed: e.opts.Seed, BaggingFraction: bagging, OnEpoch: onEpoch})
		bar.Finish()
		if err != nil {
			return nil, fmt.Errorf("training the %s %s: %w", e.dataset, kind, err)
		}
	}
	prov.Training.Seconds = hist.Duration.Seconds()
	m.SetProvenance(prov)
	return &Trained{Model: m, Duration: hist.Duration, Skipped: hist.Skipped}, nil
}

// Performance is a model's test scores (the paper's Table 5) beside the published ones.
type Performance struct {
	Dataset string
	Kind    models.Kind
	models.Scores
	// Published holds the paper's scores; HasPublished is false where the paper has none.
	Published    models.PublishedPerformance
	HasPublished bool
	TrainRows    int
	TestRows     int
	Epochs       int
	// TrainSeconds is how long training took when the model was trained (0 if unknown).
	TrainSeconds float64
	// Authors is true for the authors' trained models (Settings.AuthorsModels): Epochs and TrainSeconds are
	// then unknown (0), and TrainRows are this split's fitting rows, not theirs.
	Authors bool
}

// Performance loads or trains the model of a kind (Model) and scores it on the test split.
func (e *Experiment) Performance(ctx context.Context, kind models.Kind) (*Performance, error) {
	m, err := e.Model(ctx, kind)
	if err != nil {
		return nil, err
	}
	return e.Score(m, kind)
}

// Score scores a model of a kind on the experiment's test split, beside the paper's Table 5.
func (e *Experiment) Score(m *models.Model, kind models.Kind) (*Performance, error) {
	s, err := models.Evaluate(e.backend, m, e.split.Test)
	if err != nil {
		return nil, fmt.Errorf("scoring the %s %s: %w", e.dataset, kind, err)
	}
	pub, ok := models.Published(e.dataset, kind)
	p := m.Provenance()
	fit, err := e.fitRows()
	if err != nil {
		return nil, err
	}
	return &Performance{Dataset: e.dataset, Kind: kind, Scores: s, Published: pub, HasPublished: ok,
		TrainRows: fit.N(), TestRows: e.split.Test.N(), Epochs: p.Training.Epochs, TrainSeconds: p.Training.Seconds,
		Authors: e.UsesAuthorsModels()}, nil
}

// Fingerprint is a short hash of a model's trainable weights (by variable path, in path order): two
// models with the same fingerprint compute the same function. The benchmark records it so that results
// computed with other weights are never merged or resumed into.
func Fingerprint(m *models.Model) (string, error) {
	vars := slices.SortedFunc(m.Store().IterVariables(), func(a, b *model.Variable) int { return strings.Compare(a.Path(), b.Path()) })
	h := sha256.New()
	for _, v := range vars {
		if !v.Trainable {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return "", fmt.Errorf("fingerprinting the model: %s: %w", v.Path(), err)
		}
		h.Write([]byte(v.Path()))
		h.Write([]byte(t.Shape().String()))
		if err := t.ConstBytes(func(b []byte) { h.Write(b) }); err != nil {
			return "", fmt.Errorf("fingerprinting the model: %s: %w", v.Path(), err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// UseModel loads a model saved elsewhere (e.g. by `eccco train --out DIR`) and makes it the experiment's
// model of its kind. Its data set, seed, split and mode must be the experiment's (ErrMismatch otherwise);
// its training settings may differ — the caller chose it.
func (e *Experiment) UseModel(dir string) (*models.Model, error) {
	m, err := models.Load(e.backend, dir)
	if err != nil {
		if errors.Is(err, models.ErrNoModel) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrBroken, err)
	}
	kind := m.Spec().Kind
	want, err := e.provenance(kind)
	if err != nil {
		return nil, err
	}
	spec, err := e.paper.ModelSpec(kind, e.split.Train.D(), e.split.Train.K())
	if err != nil {
		return nil, err
	}
	spec = e.settings.spec(spec, e.split.Train)
	have := m.Provenance()
	want.Training = have.Training // the caller chose this model: its training settings are its own
	if err := checkSaved(dir, "model", want, have, specDiff(spec, m.Spec())); err != nil {
		return nil, err
	}
	e.models[kind] = m
	return m, nil
}
