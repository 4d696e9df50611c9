package vae_test

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// The catalogue's row of a data set gives the authors' VAE for a data set (moons: latent 2, hidden 32, a
// sigmoid encoder; 100 epochs of Adam with L2 0.01 on the decoder). New initialises it from a seed, Train
// fits it (here 3 epochs instead of 100) and ReconstructionError measures the mean squared error of the
// reconstructions through the posterior mean.
func ExampleTrain() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	split, err := data.Load("moons", data.Options{Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	paper, err := catalogue.LookupDataset("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := paper.VAESpec(split.Train.D())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d features → %d hidden (%s) → latent %d\n", spec.NumFeatures, spec.Hidden, spec.Activation, spec.Latent)

	v, err := vae.New(b, spec, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := paper.VAETrainOptions()
	fmt.Println("paper: epochs", opts.Epochs, "batch", opts.BatchSize, "L2", opts.L2)
	opts.Epochs, opts.Seed = 3, 42
	before, err := v.ReconstructionError(b, split.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	hist, err := vae.Train(context.Background(), b, v, split.Train, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	after, err := v.ReconstructionError(b, split.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("epochs:", len(hist.Loss), "reconstruction improved:", after < before)
	// Output:
	// 2 features → 32 hidden (sigmoid) → latent 2
	// paper: epochs 100 batch 50 L2 0.01
	// epochs: 3 reconstruction improved: true
}

// EncodeMean maps rows to their posterior means μ(x) (the code REVISE starts its search from), DecodeRows
// maps codes back to rows, and Reconstruct does both. All take and return row-major float32 slices.
func ExampleVAE_EncodeMean() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := vae.New(b, vae.Spec{NumFeatures: 3, Latent: 2, Hidden: 8, Activation: "sigmoid"}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	x := []float32{0.1, 0.2, 0.3, -1, 0, 1} // two rows of 3 features
	z, err := v.EncodeMean(b, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	xHat, err := v.DecodeRows(b, z)
	if err != nil {
		fmt.Println(err)
		return
	}
	rec, err := v.Reconstruct(b, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("codes:", len(z)/v.LatentDim(), "×", v.LatentDim(), " reconstructions:", len(xHat)/v.NumFeatures(), "×", v.NumFeatures())
	fmt.Println("Reconstruct = DecodeRows ∘ EncodeMean:", fmt.Sprint(rec) == fmt.Sprint(xHat))
	// Output:
	// codes: 2 × 2  reconstructions: 2 × 3
	// Reconstruct = DecodeRows ∘ EncodeMean: true
}
