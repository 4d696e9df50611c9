package energy

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/chunkbench"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// BenchmarkSGLD measures SGLD steps per second (every chain advancing once is one step) for a classifier's
// conditional energy: MLPs with D = 2 (32×3 relu, 2 classes) and D = 784 (32×1 relu, 10 classes), with 10,
// 100 and 1,000 chains, and the authors' LeNet-5 (same-padded second convolution) with 10, 100 and 500
// chains (500: the unfaithfulness metric's 50 chains for each of 10 classes), StepsPerCall = 10. Each
// iteration is one graph call of 10 steps. Run with: go test -run '^$' -bench SGLD ./eccco/energy/
func BenchmarkSGLD(b *testing.B) {
	bk := testBackend(b)
	for _, c := range []struct {
		name   string
		spec   models.Spec
		chains []int
	}{
		{"D=2", models.Spec{Kind: models.KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 32, Layers: 3, Activation: "relu", Members: 1}, []int{10, 100, 1000}},
		{"D=784", models.Spec{Kind: models.KindMLP, NumFeatures: 784, NumClasses: 10, Hidden: 32, Layers: 1, Activation: "relu", Members: 1}, []int{10, 100, 1000}},
		{"LeNet-5", models.Spec{Kind: models.KindLeNet, NumFeatures: 784, NumClasses: 10, Members: 1, Conv2Padding: models.PaddingSame}, []int{10, 100, 500}},
	} {
		m, err := models.New(bk, c.spec, 1)
		if err != nil {
			b.Fatal(err)
		}
		name, chainCounts := c.name, c.chains
		c := struct{ d, k int }{c.spec.NumFeatures, c.spec.NumClasses}
		for _, chains := range chainCounts {
			b.Run(fmt.Sprintf("%s/chains=%d", name, chains), func(b *testing.B) {
				cfg := DefaultSGLD()
				cfg.Steps, cfg.StepsPerCall = 10, 10
				sp, err := cfg.NewSampler(bk, ClassifierEnergy(m), c.d)
				if err != nil {
					b.Fatal(err)
				}
				defer sp.Finalize()
				rng := data.NewRand(1)
				x0 := make([]float32, chains*c.d)
				for i := range x0 {
					x0[i] = float32(rng.NormFloat64())
				}
				y := make([]int32, chains)
				for i := range y {
					y[i] = int32(i % c.k)
				}
				if _, _, err := sp.Run(context.Background(), x0, y, 0); err != nil { // compile
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, _, err := sp.Run(context.Background(), x0, y, uint64(i)); err != nil {
						b.Fatal(err)
					}
				}
				steps := float64(b.N * cfg.Steps)
				b.ReportMetric(steps/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(steps*float64(chains)/b.Elapsed().Seconds(), "chain-steps/s")
			})
		}
	}
}

// BenchmarkTrainChunks compares TrainJEM's chunks of minibatches per graph call (as many as it takes on
// XLA's accelerator plugins: 4 for the paper's 25 SGLD steps) with one minibatch per call, on any backend
// (on the pure-Go backend and XLA's CPU plugin TrainJEM itself takes one per call): the paper's MNIST JEM
// (catalogue.Datasets' MNIST row, written out: this package cannot import the catalogue) trained for 1 epoch on 2,000 fixed pseudo-random rows in [−1, 1] of 10
// classes, each iteration a whole training each way, alternately, graphs built and compiled in it as a
// user's call does. It reports both in ms per training and the median over iterations of their ratio.
// Run with, e.g.: go test -run '^$' -bench TrainChunks -benchtime 3x ./eccco/energy/
func BenchmarkTrainChunks(b *testing.B) {
	be := testBackend(b)
	ds := data.UniformImages(2000, 10)
	d, k := ds.D(), ds.K()
	prior, err := PriorFromData(ds)
	if err != nil {
		b.Fatal(err)
	}
	sgld := AuthorsSGLD()
	sgld.Steps = 25
	opts := JEMOptions{Epochs: 1, BatchSize: 128, LearningRate: 1e-3, SGLD: sgld, Samples: 10, Lambda: 0.01, Prior: prior, Seed: 1}
	spec := models.Spec{Kind: models.KindJEM, NumFeatures: d, NumClasses: k, Hidden: 32, Layers: 1, Activation: "relu", Members: 1, Dataset: "mnist"}
	chunkbench.Compare(b, jemChunkSize(10, opts.SGLD), func(perCall int) time.Duration {
		m, err := models.New(be, spec, 1)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := trainJEM(context.Background(), be, m, ds, opts, perCall); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	})
}
