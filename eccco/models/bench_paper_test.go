package models_test

import (
	"context"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// BenchmarkTrainEpoch measures one training epoch of each data set's paper MLP (table_params.tex) on
// the data set's real training split. Data sets that are not present are skipped; run
// `eccco data fetch all` first. Run with: go test -run '^$' -bench TrainEpoch ./eccco/models/
func BenchmarkTrainEpoch(b *testing.B) {
	be, err := backend.Shared()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range data.Names() {
		b.Run(name, func(b *testing.B) {
			split, err := data.Load(name, data.Options{Seed: 1})
			if err != nil {
				b.Skipf("%s not available: %v", name, err)
			}
			paper, err := catalogue.LookupDataset(name)
			if err != nil {
				b.Fatal(err)
			}
			for _, kind := range []models.Kind{models.KindMLP, models.KindMLPEnsemble} {
				b.Run(string(kind), func(b *testing.B) {
					spec, err := paper.ModelSpec(kind, split.Train.D(), split.Train.K())
					if err != nil {
						b.Fatal(err)
					}
					m, err := models.New(be, spec, 1)
					if err != nil {
						b.Fatal(err)
					}
					opts := models.TrainOptions{Epochs: 1, BatchSize: paper.Model.BatchSize, Seed: 1}
					if _, err := models.Train(context.Background(), be, m, split.Train, opts); err != nil { // warm-up
						b.Fatal(err)
					}
					b.ResetTimer()
					for b.Loop() {
						if _, err := models.Train(context.Background(), be, m, split.Train, opts); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(split.Train.N())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		})
	}
}
