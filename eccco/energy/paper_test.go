package energy_test

import (
	"context"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// The criterion for the paper's synthetic JEMs, trained with the catalogue's JEMOptions (moons with 60 of its
// 500 epochs to keep the test short): at least 90 % of the kept SGLD samples of each class (the paper's
// inference setting, DefaultClassOptions) are predicted as that class, and they sit near their class's
// data: their mean distance to the class's nearest training point is at most 0.1 (the data's noise sd)
// and at most a quarter of their mean distance to the nearest point of another class.
func TestJEMSamplesSitNearTheirClass(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two JEMs")
	}
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dataset string
		epochs  int
	}{{"linearly-separable", 0}, {"moons", 60}} {
		split, err := data.Load(c.dataset, data.Options{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		paper, err := catalogue.LookupDataset(c.dataset)
		if err != nil {
			t.Fatal(err)
		}
		opts, err := paper.JEMOptions(split.Train, 42)
		if err != nil {
			t.Fatal(err)
		}
		if c.epochs > 0 {
			opts.Epochs = c.epochs
		}
		spec, err := paper.ModelSpec(models.KindJEM, split.Train.D(), split.Train.K())
		if err != nil {
			t.Fatal(err)
		}
		m, err := models.New(b, spec, 42)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := energy.TrainJEM(context.Background(), b, m, split.Train, opts)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := models.Evaluate(b, m, split.Test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s JEM: %d epochs in %v, test accuracy %.3f, %d steps skipped", c.dataset, opts.Epochs, hist.Duration.Round(time.Millisecond), scores.Accuracy, hist.Skipped)
		per, err := energy.SamplePerClass(context.Background(), b, m, energy.DefaultClassOptions(opts.Prior), 7)
		if err != nil {
			t.Fatal(err)
		}
		for k, cs := range per {
			pred, err := models.Predict(b, m, cs.X)
			if err != nil {
				t.Fatal(err)
			}
			agree := 0
			for _, p := range pred {
				if p == k {
					agree++
				}
			}
			share := float64(agree) / float64(len(pred))
			own, other, err := energy.NearestDistances(cs.X, split.Train, k)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s class %d: %.0f%% predicted as %d; mean distance to nearest own-class point %.4f, other-class %.4f", c.dataset, k, 100*share, k, own, other)
			if share < 0.9 {
				t.Errorf("%s class %d: %.0f%% of samples predicted as their class, want ≥ 90%%", c.dataset, k, 100*share)
			}
			if own > 0.1 || own > other/4 {
				t.Errorf("%s class %d: samples %.4f from their class, %.4f from the others", c.dataset, k, own, other)
			}
		}
	}
}

// BenchmarkJEMEpoch measures one JEM training epoch (catalogue.Dataset.JEMOptions: the paper's batch size, SGLD steps
// and samples per minibatch) of each data set's JEM and JEM ensemble on its real training split. Data
// sets that are not present are skipped. Every iteration builds its graphs afresh, as a call of TrainJEM
// does. Run with: go test -run '^$' -bench JEMEpoch ./eccco/energy/
func BenchmarkJEMEpoch(b *testing.B) {
	bk, err := backend.Shared()
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
			opts, err := paper.JEMOptions(split.Train, 1)
			if err != nil {
				b.Fatal(err)
			}
			opts.Epochs = 1
			for _, kind := range []models.Kind{models.KindJEM, models.KindJEMEnsemble} {
				b.Run(string(kind), func(b *testing.B) {
					spec, err := paper.ModelSpec(kind, split.Train.D(), split.Train.K())
					if err != nil {
						b.Fatal(err)
					}
					m, err := models.New(bk, spec, 1)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := energy.TrainJEM(context.Background(), bk, m, split.Train, opts); err != nil { // warm-up
						b.Fatal(err)
					}
					b.ResetTimer()
					for b.Loop() {
						if _, err := energy.TrainJEM(context.Background(), bk, m, split.Train, opts); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
