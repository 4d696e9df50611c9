package vae

import (
	"context"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/chunkbench"
)

// BenchmarkTrainEpoch measures one training epoch of the paper's VAE (batch 50) on moons and, when the
// files are present (`eccco data fetch mnist`), on MNIST's 10,000 training images. Run with:
// go test -run '^$' -bench TrainEpoch ./eccco/vae/
func BenchmarkTrainEpoch(b *testing.B) {
	be := testBackend(b)
	for _, name := range []string{"moons", "mnist"} {
		b.Run(name, func(b *testing.B) {
			split, err := data.Load(name, data.Options{Seed: 1})
			if err != nil {
				b.Skipf("%s not available: %v", name, err)
			}
			spec, opts := moonsSpec(split.Train.D()), moonsTraining
			if name == "mnist" {
				spec, opts = mnistSpec(split.Train.D()), mnistTraining
			}
			v, err := New(be, spec, 1)
			if err != nil {
				b.Fatal(err)
			}
			opts.Epochs = 1
			if _, err := Train(context.Background(), be, v, split.Train, opts); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := Train(context.Background(), be, v, split.Train, opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(split.Train.N())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkTrainChunks compares Train's chunks of 10 minibatches per graph call with one minibatch per call,
// on any backend (on the pure-Go backend and XLA's CPU plugin Train itself takes one per call): the MNIST
// VAE of the paper (mnistSpec, mnistTraining: batch 50) trained for 2 epochs on 5,000 fixed
// pseudo-random rows in [−1, 1], each iteration a whole Train call each way, alternately, graphs built and
// compiled in it as a user's call does. It reports both in ms per call and the median over iterations of
// their ratio. Run with, e.g.: go test -run '^$' -bench TrainChunks -benchtime 3x ./eccco/vae/
func BenchmarkTrainChunks(b *testing.B) {
	be := testBackend(b)
	ds := data.UniformImages(5000, 1)
	d := ds.D()
	spec, opts := mnistSpec(d), mnistTraining
	opts.Epochs, opts.Seed = 2, 1
	const chunkSize = 10
	chunkbench.Compare(b, chunkSize, func(perCall int) time.Duration {
		v, err := New(be, spec, 1)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := train(context.Background(), be, v, ds, opts, perCall); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	})
}

// mnistSpec is the paper's VAE for MNIST with d features (catalogue.Datasets: latent 28, hidden 50).
func mnistSpec(d int) Spec {
	return Spec{NumFeatures: d, Latent: 28, Hidden: 50, Activation: DefaultActivation, Dataset: "mnist"}
}

// mnistTraining is the paper's VAE training for MNIST (catalogue.Dataset.VAETrainOptions: λ = 1e-4).
var mnistTraining = TrainOptions{Epochs: DefaultEpochs, BatchSize: DefaultBatchSize, LearningRate: DefaultLearningRate, L2: VisionL2}
