package energy

import (
	"context"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// A JEM trained on three blobs classifies well and gives its training data lower conditional energy than
// points drawn from the prior box; the same seed gives the same weights.
func TestTrainJEM(t *testing.T) {
	b := testBackend(t)
	ds := blobs(100, 4)
	prior, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	spec := models.Spec{Kind: models.KindJEM, NumFeatures: 2, NumClasses: 3, Hidden: 16, Layers: 2, Activation: "relu", Members: 1}
	train := func() *models.Model {
		m, err := models.New(b, spec, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := PaperCodeSGLD()
		s.Steps = 30
		hist, err := TrainJEM(context.Background(), b, m, ds, JEMOptions{Epochs: 20, BatchSize: 50, LearningRate: 0.01, SGLD: s, Samples: 10, Lambda: 0.1, Prior: prior, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("JEM loss: first epoch %.3f, last %.3f, %d steps in %v", hist.Loss[0], hist.Loss[len(hist.Loss)-1], hist.Steps, hist.Duration)
		return m
	}
	m := train()
	scores, err := models.Evaluate(b, m, ds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("training accuracy %.3f", scores.Accuracy)
	if scores.Accuracy < 0.9 {
		t.Errorf("JEM training accuracy %.3f < 0.9", scores.Accuracy)
	}
	sp, err := DefaultSGLD().NewSampler(b, ClassifierEnergy(m), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Finalize()
	y := make([]int32, ds.N())
	for i, v := range ds.Y {
		y[i] = int32(v)
	}
	eData, err := sp.Energies(ds.X, y)
	if err != nil {
		t.Fatal(err)
	}
	eRand, err := sp.Energies(prior.Draw(ds.N(), data.NewRand(8)), y)
	if err != nil {
		t.Fatal(err)
	}
	md, mr := mean32(eData), mean32(eRand)
	t.Logf("mean E(x|y): data %.3f, prior draws %.3f", md, mr)
	if md >= mr {
		t.Errorf("data energy %.3f not below prior-draw energy %.3f", md, mr)
	}
	m2 := train()
	l1, _ := models.Logits(b, m, ds.X[:20])
	l2, _ := models.Logits(b, m2, ds.X[:20])
	for i := range l1 {
		if l1[i] != l2[i] {
			t.Fatalf("same seed, different JEM logits: %v vs %v", l1[i], l2[i])
		}
	}
}

func mean32(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}
