package models

import (
	"context"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/chunkbench"
)

// BenchmarkTrainEpoch measures one training epoch of each data set's paper MLP (table_params.tex) on
// the data set's real training split. Data sets that are not present are skipped; run
// `eccco data fetch all` first. Run with: go test -run '^$' -bench TrainEpoch ./eccco/models/
func BenchmarkTrainEpoch(b *testing.B) {
	be := testBackend(b)
	for _, name := range data.Names() {
		b.Run(name, func(b *testing.B) {
			split, err := data.Load(name, data.Options{Seed: 1})
			if err != nil {
				b.Skipf("%s not available: %v", name, err)
			}
			settings, err := PaperSettings(name)
			if err != nil {
				b.Fatal(err)
			}
			for _, kind := range []Kind{KindMLP, KindMLPEnsemble} {
				b.Run(string(kind), func(b *testing.B) {
					spec, err := SpecFor(kind, name, split.Train.D(), split.Train.K())
					if err != nil {
						b.Fatal(err)
					}
					m, err := New(be, spec, 1)
					if err != nil {
						b.Fatal(err)
					}
					opts := TrainOptions{Epochs: 1, BatchSize: settings.BatchSize, Seed: 1}
					if _, err := Train(context.Background(), be, m, split.Train, opts); err != nil { // warm-up
						b.Fatal(err)
					}
					b.ResetTimer()
					for b.Loop() {
						if _, err := Train(context.Background(), be, m, split.Train, opts); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(split.Train.N())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		})
	}
}

// BenchmarkTrainChunks compares Train's chunks of trainChunk minibatches per graph call with one
// minibatch per call, on any backend (on XLA's CPU plugin Train itself takes one per call): an MNIST-sized
// MLP (784-32-10, relu, batch 128) trained for 5 epochs on 5,000 fixed pseudo-random rows, each iteration a
// whole Train call each way, alternately, graphs built and compiled in it as a user's call does. It
// reports both in ms per call and the median over iterations of their ratio. Run with, e.g.:
// go test -run '^$' -bench TrainChunks -benchtime 3x ./eccco/models/
func BenchmarkTrainChunks(b *testing.B) {
	be := testBackend(b)
	ds := chunkbench.Images(5000, 10)
	d, k := ds.D(), ds.K()
	spec := Spec{Kind: KindMLP, NumFeatures: d, NumClasses: k, Hidden: 32, Layers: 1, Activation: "relu", Members: 1}
	opts := TrainOptions{Epochs: 5, BatchSize: 128, Seed: 1}
	chunkbench.Compare(b, trainChunk, func(perCall int) time.Duration {
		m, err := New(be, spec, 1)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := train(context.Background(), be, m, ds, opts, perCall); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	})
}
