package experiment

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// VAEDir is where REVISE's VAE is saved: ModelsDir/MODE/seed-SEED/DATA/vae.
func (e *Experiment) VAEDir() string { return filepath.Join(e.modelsRoot(), "vae") }

// vaeProvenance is what the experiment's VAE records.
func (e *Experiment) vaeProvenance() (models.Provenance, vae.TrainOptions, error) {
	opts := e.paper.VAETrainOptions()
	opts.Seed = e.opts.Seed
	switch t := e.opts.Training; {
	case t.VAEEpochs > 0:
		opts.Epochs = t.VAEEpochs
	case t.Epochs > 0:
		opts.Epochs = t.Epochs
	}
	split := e.splitDescription()
	if e.settings.VAEOnOfficialTraining && e.split.Train.Image != nil {
		split = fmt.Sprintf("%s: the official training images (authors' code: CE.jl's pretrained VAE's data), seed %d", e.dataset, e.opts.Seed)
	}
	p := models.Provenance{Dataset: e.dataset, Seed: e.opts.Seed, Split: split, Mode: e.opts.Mode.String(),
		Settings: e.settings.Describe(vaeKeys...), Kind: "vae", Training: models.Training{Epochs: opts.Epochs, BatchSize: opts.BatchSize, LearningRate: opts.LearningRate, Objective: "vae (the authors' loss)"}}
	return p, opts, nil
}

// VAE returns REVISE's variational autoencoder for the data set: loaded from VAEDir() if a matching one is
// saved there, otherwise trained with the paper's settings and saved (ErrMismatch and ErrBroken as for
// Model).
func (e *Experiment) VAE(ctx context.Context) (*vae.VAE, error) {
	if e.vae != nil {
		return e.vae, nil
	}
	want, opts, err := e.vaeProvenance()
	if err != nil {
		return nil, err
	}
	spec, err := e.paper.VAESpec(e.split.Train.D())
	if err != nil {
		return nil, err
	}
	dir := e.VAEDir()
	v, err := vae.Load(e.backend, dir)
	switch {
	case err == nil:
		var arch []string
		if v.Spec() != spec {
			arch = append(arch, fmt.Sprintf("architecture %+v ≠ %+v", v.Spec(), spec))
		}
		if err := checkSaved(dir, "VAE", want, v.Provenance(), arch); err != nil {
			return nil, err
		}
		e.logf("%s VAE: loaded %s", e.dataset, dir)
	case errors.Is(err, vae.ErrNoVAE):
		unlock, lerr := e.lockSave(ctx, dir, e.dataset+" VAE")
		if lerr != nil {
			return nil, lerr
		}
		defer unlock()
		// Another process may have saved it while this one waited for the lock.
		if saved, lerr := vae.Load(e.backend, dir); lerr == nil {
			if saved.Spec() != spec {
				return nil, fmt.Errorf("%w: %s VAE saved meanwhile in %s: architecture %+v ≠ %+v", ErrMismatch, e.dataset, dir, saved.Spec(), spec)
			}
			if err := checkSaved(dir, "VAE", want, saved.Provenance(), nil); err != nil {
				return nil, err
			}
			e.logf("%s VAE: loaded %s (saved meanwhile by another process)", e.dataset, dir)
			v = saved
			break
		} else if !errors.Is(lerr, vae.ErrNoVAE) {
			return nil, fmt.Errorf("%w: %s VAE: %v (remove %s to retrain)", ErrBroken, e.dataset, lerr, dir)
		}
		e.logf("%s VAE: none saved in %s; training one (%d epochs)", e.dataset, dir, opts.Epochs)
		if v, err = e.TrainVAE(ctx); err != nil {
			return nil, err
		}
		if err := v.Save(dir); err != nil {
			return nil, fmt.Errorf("saving the %s VAE: %w", e.dataset, err)
		}
		e.logf("%s VAE: saved to %s", e.dataset, dir)
	default:
		return nil, fmt.Errorf("%w: %s VAE: %v (remove %s to retrain)", ErrBroken, e.dataset, err, dir)
	}
	// The same last line whether the VAE was loaded or trained (Model says why).
	e.logf("%s VAE: ready (%s)", e.dataset, dir)
	e.vae = v
	return v, nil
}

// TrainVAE trains a fresh VAE with the experiment's settings and records its provenance; it neither
// loads nor saves (VAE does both).
func (e *Experiment) TrainVAE(ctx context.Context) (*vae.VAE, error) {
	prov, opts, err := e.vaeProvenance()
	if err != nil {
		return nil, err
	}
	spec, err := e.paper.VAESpec(e.split.Train.D())
	if err != nil {
		return nil, err
	}
	v, err := vae.New(e.backend, spec, e.opts.Seed)
	if err != nil {
		return nil, err
	}
	desc := e.dataset + " VAE"
	bar := progress.New(e.opts.Progress, opts.Epochs, desc, "epochs")
	opts.OnEpoch = func(s vae.EpochStats) {
		bar.Describe(fmt.Sprintf("%s loss %.4f", desc, s.Loss))
		bar.Add(1)
	}
	rows := e.split.Train
	if e.settings.VAEOnOfficialTraining && rows.Image != nil {
		if rows, err = data.LoadOfficialTraining(e.dataset, e.opts.DataDir); err != nil {
			return nil, fmt.Errorf("the %s VAE: %w", e.dataset, err)
		}
	}
	e.logf("%s VAE: training on %d rows", e.dataset, rows.N())
	hist, err := vae.Train(ctx, e.backend, v, rows, opts)
	bar.Finish()
	if err != nil {
		return nil, fmt.Errorf("training the %s VAE: %w", e.dataset, err)
	}
	prov.Training.Seconds = hist.Duration.Seconds()
	v.SetProvenance(prov)
	return v, nil
}
