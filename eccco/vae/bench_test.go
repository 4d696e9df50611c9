package vae

import (
	"context"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
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
			spec, err := PaperSpec(name, split.Train.D())
			if err != nil {
				b.Fatal(err)
			}
			v, err := New(be, spec, 1)
			if err != nil {
				b.Fatal(err)
			}
			opts, err := PaperTrainOptions(name)
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
