package models_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX's graph DSL reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// The paper's workflow for one model: the catalogue's row gives the architecture of Table 4 of the appendix for a
// data set (moons: 3 hidden layers of 32 relu units), New initialises it from a seed, Train fits it by
// minibatch Adam and Evaluate reports the scores of Table 5. The paper trains the moons MLP for 500
// epochs; 10 are enough here.
func ExampleTrain() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	split, err := data.Load("moons", data.Options{Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	paper, err := catalogue.LookupDataset("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := paper.ModelSpec(models.KindMLP, split.Train.D(), split.Train.K())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d features → %d×%d %s → %d classes\n", spec.Kind.Title(), spec.NumFeatures, spec.Layers, spec.Hidden, spec.Activation, spec.NumClasses)

	m, err := models.New(b, spec, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	settings := paper.Model
	hist, err := models.Train(context.Background(), b, m, split.Train,
		models.TrainOptions{Epochs: 10, BatchSize: settings.BatchSize, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("epochs:", len(hist.Loss), "loss decreased:", hist.Loss[len(hist.Loss)-1] < hist.Loss[0])

	scores, err := models.Evaluate(b, m, split.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The exact scores depend on the backend's floating-point arithmetic; print a threshold to be checked.
	fmt.Println("test accuracy ≥ 0.95:", scores.Accuracy >= 0.95, "macro F1 ≥ 0.95:", scores.F1 >= 0.95)
	published, _ := models.Published("moons", models.KindMLP)
	fmt.Printf("published accuracy: %.2f\n", published.Accuracy)
	// Output:
	// MLP: 2 features → 3×32 relu → 2 classes
	// epochs: 10 loss decreased: true
	// test accuracy ≥ 0.95: true macro F1 ≥ 0.95: true
	// published accuracy: 1.00
}

// Any GoMLX model function becomes a Classifier with FromFunc; here fixed linear logits
// (0, x₁ − x₂), i.e. class 1 wherever x₁ > x₂. Predict, Probabilities and Logits evaluate a Classifier on
// many rows (row-major, n·D values) from Go; ScoresFromPredictions scores labels without a model.
func ExampleFromFunc() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	clf := models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		w := ConvertDType(Const(x.Graph(), [][]float32{{0, 1}, {0, -1}}), x.DType()) // [D=2, K=2]
		return MatMul(x, w)
	}, 2, 2)

	x := []float32{
		2, 1, // x₁ > x₂: class 1
		0, 3, // class 0
		1, 1, // a tie: arg-max takes the first class
	}
	pred, err := models.Predict(b, clf, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	probs, err := models.Probabilities(b, clf, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("predictions:", pred)
	fmt.Printf("p(class 1): %.3f %.3f %.3f\n", probs[1], probs[3], probs[5])

	scores, err := models.ScoresFromPredictions([]int{1, 0, 1}, pred, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("accuracy %.3f, macro precision %.3f, macro F1 %.3f\n", scores.Accuracy, scores.Precision, scores.F1)
	// Output:
	// predictions: [1 0 0]
	// p(class 1): 0.731 0.047 0.500
	// accuracy 0.667, macro precision 0.750, macro F1 0.667
}

// Save writes a model's Spec, Provenance and weights; Load reads them back. Save never writes over a saved
// model (ErrExists; Replace does), and Load tells a missing model (ErrNoModel) from a broken one.
func ExampleModel_Save() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	tmp, err := os.MkdirTemp("", "eccco-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	spec := models.Spec{Kind: models.KindMLPEnsemble, NumFeatures: 2, NumClasses: 2, Hidden: 8, Layers: 2, Activation: "relu", Members: 3}
	m, err := models.New(b, spec, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.SetProvenance(models.Provenance{Dataset: "moons", Seed: 42, Kind: spec.Kind,
		Training: models.Training{Epochs: 0, Objective: "untrained"}})

	dir := filepath.Join(tmp, "moons-ensemble")
	if err := m.Save(dir); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("saved again:", errors.Is(m.Save(dir), models.ErrExists))

	loaded, err := models.Load(b, dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("spec equal:", loaded.Spec() == m.Spec(), "members:", loaded.NumMembers())
	fmt.Println("provenance differences:", len(loaded.Provenance().Diff(m.Provenance())))
	fmt.Println(loaded.Provenance().Diff(models.Provenance{Dataset: "moons", Seed: 1, Kind: spec.Kind,
		Training: models.Training{Objective: "untrained"}}))

	x := []float32{0.5, -0.2, 1.5, 0.3}
	before, _ := models.Logits(b, m, x)
	after, _ := models.Logits(b, loaded, x)
	fmt.Println("same logits:", fmt.Sprint(before) == fmt.Sprint(after))

	_, err = models.Load(b, filepath.Join(tmp, "nothing-here"))
	fmt.Println("missing:", errors.Is(err, models.ErrNoModel))
	// Output:
	// saved again: true
	// spec equal: true members: 3
	// provenance differences: 0
	// [seed 42 ≠ 1]
	// same logits: true
	// missing: true
}

// Kinds lists the paper's model families; Title is each one's name in the paper's tables.
func ExampleKinds() {
	for _, k := range models.Kinds() {
		s := catalogue.Datasets[0].Model // linearly-separable
		fmt.Printf("%-12s %-13s ensemble: %-5v", k, k.Title(), k.IsEnsemble())
		if k.IsEnsemble() {
			fmt.Printf(" (%d members)", s.EnsembleSize)
		}
		fmt.Println()
	}
	// Output:
	// jem          JEM           ensemble: false
	// jem-ensemble JEM Ensemble  ensemble: true  (5 members)
	// lenet        LeNet-5       ensemble: false
	// mlp          MLP           ensemble: false
	// mlp-ensemble MLP Ensemble  ensemble: true  (5 members)
}
