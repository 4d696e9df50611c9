package models

import (
	"context"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/chunkbench"
)

// BenchmarkTrainChunks compares Train's chunks of trainChunk minibatches per graph call with one
// minibatch per call, on any backend (on XLA's CPU plugin Train itself takes one per call): an MNIST-sized
// MLP (784-32-10, relu, batch 128) trained for 5 epochs on 5,000 fixed pseudo-random rows, each iteration a
// whole Train call each way, alternately, graphs built and compiled in it as a user's call does. It
// reports both in ms per call and the median over iterations of their ratio. Run with, e.g.:
// go test -run '^$' -bench TrainChunks -benchtime 3x ./eccco/models/
func BenchmarkTrainChunks(b *testing.B) {
	be := testBackend(b)
	ds := data.UniformImages(5000, 10)
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
