package counterfactual

import (
	"context"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// The validity criterion on the paper's synthetic data: 100 random test factuals with a target
// other than the predicted class, every generator but REVISE (which needs a trained VAE; its validity
// is lower in the paper too), the paper's hyper-parameters and default convergence. Every generator must
// reach ≥ 95 % validity with the MLP and the JEM of linearly separable and moons data, and ECCCo's
// counterfactuals must have a lower mean energy E(x′|y⁺) than Wachter's. The moons JEM is trained with
// first-label conditioning and softmax energies (energy.JEMOptions FirstLabelEnergy, SoftmaxEnergy), for
// 100 epochs to keep the test short; with the paper's text objective and 500 epochs every generator
// reaches only about 40 % validity on it (see paper/differences.md), with the authors' −logit
// energies 75–79 % (energy.JEMOptions.SoftmaxEnergy).
func TestSyntheticValidity(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models")
	}
	b := testBackend(t)
	for _, c := range []struct {
		dataset string
		kind    models.Kind
		epochs  int
		compat  bool
	}{
		{"linearly-separable", models.KindMLP, 0, false},
		{"moons", models.KindMLP, 100, false},
		{"linearly-separable", models.KindJEM, 0, false},
		{"moons", models.KindJEM, 100, true},
	} {
		split, err := data.Load(c.dataset, data.Options{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		m := trainPaperModel(t, b, c.dataset, c.kind, split, c.epochs, c.compat)
		row, err := testPaper(c.dataset)
		if err != nil {
			t.Fatal(err)
		}
		p := row.params
		sampler, err := row.sampler(split.Train)
		if err != nil {
			t.Fatal(err)
		}
		in, err := PaperIngredientsWith(context.Background(), b, m, c.dataset, split.Train, nil, 42, IngredientOptions{Latent: row.latent, Sampler: sampler}, Needs{Samples: true, PCA: true})
		if err != nil {
			t.Fatal(err)
		}
		x, targets := randomFactuals(t, b, m, split.Test, 100, 42)
		lo, hi := split.Train.Bounds()
		energies := map[string]float64{}
		for _, name := range paperNames() {
			if name == "REVISE" {
				continue
			}
			g, err := paperGenerator(name, p, in)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Search(context.Background(), b, m, g, Request{Factuals: x, Targets: targets, Lower: lo, Upper: hi})
			if err != nil {
				t.Fatal(err)
			}
			valid := 0
			for i := range targets {
				if res.Valid(i, DefaultThreshold) {
					valid++
				}
			}
			e, err := MeanEnergy(b, m, res.X, targets)
			if err != nil {
				t.Fatal(err)
			}
			energies[name] = e
			t.Logf("%s %s %-15s validity %3d %%  mean energy %7.3f", c.dataset, c.kind, name, valid, e)
			if valid < 95 {
				t.Errorf("%s %s %s: validity %d %% < 95 %%", c.dataset, c.kind, name, valid)
			}
		}
		if energies["ECCCo"] >= energies["Wachter"] {
			t.Errorf("%s %s: ECCCo's mean energy %.3f is not below Wachter's %.3f", c.dataset, c.kind, energies["ECCCo"], energies["Wachter"])
		}
	}
}

func trainPaperModel(t testing.TB, b compute.Backend, dataset string, kind models.Kind, split *data.Split, epochs int, compat bool) *models.Model {
	t.Helper()
	row, err := testPaper(dataset)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := row.spec(kind, dataset, split.Train.D(), split.Train.K())
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.New(b, spec, 42)
	if err != nil {
		t.Fatal(err)
	}
	if kind == models.KindJEM {
		opts, err := row.jemOptions(split.Train, 42)
		if err != nil {
			t.Fatal(err)
		}
		if epochs > 0 {
			opts.Epochs = epochs
		}
		if compat {
			opts.FirstLabelEnergy, opts.SoftmaxEnergy = true, true
		}
		if _, err := energy.TrainJEM(context.Background(), b, m, split.Train, opts); err != nil {
			t.Fatal(err)
		}
		return m
	}
	s := row.model
	if epochs == 0 {
		epochs = s.Epochs
	}
	if _, err := models.Train(context.Background(), b, m, split.Train, models.TrainOptions{Epochs: epochs, BatchSize: s.BatchSize, Seed: 42}); err != nil {
		t.Fatal(err)
	}
	return m
}

// randomFactuals draws n test rows (seeded) and, for each, a random target other than the predicted class.
func randomFactuals(t testing.TB, b compute.Backend, m models.Classifier, test *data.Dataset, n int, seed uint64) ([]float32, []int) {
	t.Helper()
	rng := data.NewRand(seed)
	rows := rng.Perm(test.N())[:n]
	var x []float32
	for _, r := range rows {
		x = append(x, test.Row(r)...)
	}
	pred, err := models.Predict(b, m, x)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]int, n)
	for i := range targets {
		tg := rng.IntN(test.K() - 1)
		if tg >= pred[i] {
			tg++
		}
		targets[i] = tg
	}
	return x, targets
}
