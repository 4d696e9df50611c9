package main

import (
	"context"
	"fmt"
	"io"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// A trained VAE is REVISE's latent map.
var _ counterfactual.LatentMap = (*vae.VAE)(nil)

// runVAE trains the paper's VAE for a data set (the latent space REVISE searches in), reports its test
// reconstruction error next to that of predicting the training mean, and saves it. Without --out it uses
// the experiment's VAE: a matching one saved where explain and bench look is loaded and reported, not
// trained again (--replace retrains it).
func runVAE(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("vae", "vae --data NAME [--set vae-epochs=N] [--seed S] [--out DIR] [--mode paper|authors-code]", stderr)
	dataset := fs.String("data", "", "data set (see 'eccco data list')")
	out := fs.String("out", "", "directory to save the VAE in (default: where explain and bench look, MODELS-DIR/MODE/seed-SEED/DATA/vae; 'none' to skip)")
	replace := fs.Bool("replace", false, "replace a VAE already saved there (never anything else)")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("vae: unexpected arguments %v", fs.Args())
	}
	e, err := ef.open(*dataset, stderr)
	if err != nil {
		return fmt.Errorf("vae: %w", err)
	}
	dir := *out
	if dir == "" && !*replace {
		// The experiment's VAE: loaded if a matching one is saved, else trained and saved.
		v, err := e.VAE(ctx)
		if err != nil {
			return fmt.Errorf("vae: %w", err)
		}
		return reportVAE(stdout, e, v, "in "+e.VAEDir())
	}
	if dir == "" {
		dir = e.VAEDir()
	}
	if dir != "none" && !*replace {
		if err := vae.CheckSaveDir(dir); err != nil {
			return fmt.Errorf("vae: %w (pass --replace to replace a saved VAE, or choose another --out)", err)
		}
	}
	v, err := e.TrainVAE(ctx)
	if err != nil {
		return fmt.Errorf("vae: %w", err)
	}
	if err := reportVAE(stdout, e, v, ""); err != nil {
		return err
	}
	if dir == "none" {
		return nil
	}
	save := v.Save
	if *replace {
		save = v.Replace
	}
	if err := save(dir); err != nil {
		return fmt.Errorf("vae: %w", err)
	}
	fmt.Fprintf(stdout, "saved to %s\n", dir)
	return nil
}

// reportVAE prints a VAE's architecture, training and test reconstruction error (where: "" for a VAE just
// trained, else where it is saved).
func reportVAE(stdout io.Writer, e *experiment.Experiment, v *vae.VAE, where string) error {
	split := e.Split()
	mse, err := v.ReconstructionError(e.Backend(), split.Test)
	if err != nil {
		return err
	}
	spec, prov := v.Spec(), v.Provenance()
	secs := prov.Training.Seconds
	fmt.Fprintf(stdout, "VAE on %s (latent %d, hidden %d, %s encoder): %d training rows, %d epochs, %.1f s (%.0f ms/epoch) on %s\n",
		e.Dataset(), spec.Latent, spec.Hidden, spec.Activation, split.Train.N(), prov.Training.Epochs, secs,
		1000*secs/float64(prov.Training.Epochs), e.Backend().Name())
	fmt.Fprintf(stdout, "test (%d rows): reconstruction MSE %.4f per feature; predicting the training mean: %.4f\n",
		split.Test.N(), mse, meanPredictionMSE(split.Train, split.Test))
	if where != "" {
		fmt.Fprintf(stdout, "saved %s\n", where)
	}
	return nil
}

// meanPredictionMSE is the mean squared error per feature of predicting every test row by the mean
// training row: the scale against which a reconstruction error reads.
func meanPredictionMSE(train, test *data.Dataset) float64 {
	d := train.D()
	mean := make([]float64, d)
	for i := range train.N() {
		for j, x := range train.Row(i) {
			mean[j] += float64(x)
		}
	}
	for j := range mean {
		mean[j] /= float64(train.N())
	}
	var s float64
	for i := range test.N() {
		for j, x := range test.Row(i) {
			e := float64(x) - mean[j]
			s += e * e
		}
	}
	return s / float64(test.N()*d)
}
