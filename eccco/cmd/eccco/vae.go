package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// A trained VAE is REVISE's latent map.
var _ counterfactual.LatentMap = (*vae.VAE)(nil)

// runVAE trains the paper's VAE for a data set (the latent space REVISE searches in), reports its test
// reconstruction error next to that of predicting the training mean, and saves it.
func runVAE(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("vae", "vae --data NAME [--epochs N] [--seed S] [--out DIR]", stderr)
	dataset := fs.String("data", "", "data set (see 'eccco data list')")
	epochs := fs.Int("epochs", 0, "training epochs (0: the paper's, 100)")
	seed := fs.Uint64("seed", 42, "seed for the data split, initialisation, minibatch order and sampling noise")
	out := fs.String("out", "", "directory to save the VAE in (default runs/models/DATA/vae; 'none' to skip)")
	dir := fs.String("dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("vae: unexpected arguments %v", fs.Args())
	}
	if *dataset == "" {
		return fmt.Errorf("vae: --data is required (one of %v)", data.Names())
	}
	if *epochs < 0 {
		return fmt.Errorf("vae: --epochs %d must not be negative", *epochs)
	}
	if _, err := data.Lookup(*dataset); err != nil {
		return err
	}
	opts, err := vae.PaperTrainOptions(*dataset)
	if err != nil {
		return err
	}
	opts.Seed = *seed
	if *epochs > 0 {
		opts.Epochs = *epochs
	}
	b, err := backend.New()
	if err != nil {
		return err
	}
	split, err := data.Load(*dataset, data.Options{Dir: *dir, Seed: *seed})
	if err != nil {
		return err
	}
	spec, err := vae.PaperSpec(*dataset, split.Train.D())
	if err != nil {
		return err
	}
	v, err := vae.New(b, spec, *seed)
	if err != nil {
		return err
	}
	desc := fmt.Sprintf("%s VAE", *dataset)
	bar := progress.New(stderr, opts.Epochs, desc, "epochs")
	opts.OnEpoch = func(s vae.EpochStats) {
		bar.Describe(fmt.Sprintf("%s loss %.4f", desc, s.Loss))
		bar.Add(1)
	}
	hist, err := vae.Train(ctx, b, v, split.Train, opts)
	bar.Finish()
	if err != nil {
		return err
	}
	mse, err := v.ReconstructionError(b, split.Test)
	if err != nil {
		return err
	}
	last := len(hist.Loss) - 1
	fmt.Fprintf(stdout, "VAE on %s (latent %d, hidden %d, %s encoder): %d training rows, %d epochs, %.1f s (%.0f ms/epoch) on %s\n",
		*dataset, spec.Latent, spec.Hidden, spec.Activation, split.Train.N(), opts.Epochs, hist.Duration.Seconds(),
		1000*hist.Duration.Seconds()/float64(opts.Epochs), b.Name())
	fmt.Fprintf(stdout, "last epoch: loss %.4f = reconstruction %.4f + KL %.4f per row (+ L2 λ = %g)\n",
		hist.Loss[last], hist.Reconstruction[last], hist.KL[last], opts.L2)
	fmt.Fprintf(stdout, "test (%d rows): reconstruction MSE %.4f per feature; predicting the training mean: %.4f\n",
		split.Test.N(), mse, meanPredictionMSE(split.Train, split.Test))
	if *out == "none" {
		return nil
	}
	if *out == "" {
		*out = filepath.Join("runs", "models", *dataset, "vae")
	}
	if err := v.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved to %s\n", *out)
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
