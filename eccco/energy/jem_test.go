package energy

import (
	"context"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
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
		s := AuthorsSGLD()
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

// A JEM ensemble trains its members as separate JEMs: each member alone classifies well and gives its
// training data lower energy than prior draws, the members differ, and the same seed gives the same
// ensemble.
func TestTrainJEMEnsemble(t *testing.T) {
	b := testBackend(t)
	ds := blobs(60, 5)
	prior, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	spec := models.Spec{Kind: models.KindJEMEnsemble, NumFeatures: 2, NumClasses: 3, Hidden: 16, Layers: 2, Activation: "relu", Members: 3}
	train := func() *models.Model {
		m, err := models.New(b, spec, 2)
		if err != nil {
			t.Fatal(err)
		}
		s := AuthorsSGLD()
		s.Steps = 20
		if _, err := TrainJEM(context.Background(), b, m, ds, JEMOptions{Epochs: 15, BatchSize: 30, LearningRate: 0.01, SGLD: s, Samples: 8, Lambda: 0.1, Prior: prior, Seed: 4}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := train()
	draws := prior.Draw(ds.N(), data.NewRand(9))
	var firstLogits []float32
	for i := range spec.Members {
		member := models.FromFunc(m.Store(), func(_ *model.Scope, x *Node) *Node { return m.MemberLogits(x, i) }, 2, 3)
		scores, err := models.Evaluate(b, member, ds)
		if err != nil {
			t.Fatal(err)
		}
		y := make([]int32, ds.N())
		for j, v := range ds.Y {
			y[j] = int32(v)
		}
		sp, err := DefaultSGLD().NewSampler(b, ClassifierEnergy(member), 2)
		if err != nil {
			t.Fatal(err)
		}
		eData, err := sp.Energies(ds.X, y)
		if err != nil {
			t.Fatal(err)
		}
		eRand, err := sp.Energies(draws, y)
		if err != nil {
			t.Fatal(err)
		}
		sp.Finalize()
		t.Logf("member %d: accuracy %.3f, mean E(x|y) data %.3f, prior draws %.3f", i, scores.Accuracy, mean32(eData), mean32(eRand))
		if scores.Accuracy < 0.9 {
			t.Errorf("member %d: accuracy %.3f < 0.9", i, scores.Accuracy)
		}
		if mean32(eData) >= mean32(eRand) {
			t.Errorf("member %d: data energy %.3f not below prior-draw energy %.3f", i, mean32(eData), mean32(eRand))
		}
		l, err := models.Logits(b, member, ds.X[:10])
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstLogits = l
		} else if slices.Equal(l, firstLogits) {
			t.Errorf("member %d has the same logits as member 0", i)
		}
	}
	m2 := train()
	l1, _ := models.Logits(b, m, ds.X[:20])
	l2, _ := models.Logits(b, m2, ds.X[:20])
	if !slices.Equal(l1, l2) {
		t.Fatalf("same seed, different JEM-ensemble logits")
	}
}
