package metrics_test

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX's graph DSL reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// An Evaluator scores counterfactuals of one model with the paper's six metrics. Everything here is made
// by hand so that the numbers can be checked: the model has logits (0, x₁), so p(1|x) = σ(x₁); class 1
// has the training rows (1, 0) and (3, 0) and the "SGLD samples" (2, 0) and (2, 2); the calibrated
// threshold is q̂ = 0.9. The counterfactual (2, 1) of the factual (−1, 1) moves x₁ only: cost 3,
// redundancy ½, distance √2 to both training rows and 1 to both samples, p = σ(2) = 0.88, and
// Ω = σ(7.81) + σ(0.19) − 1 = 0.55. The second counterfactual, (−0.5, 1), is not valid (p = σ(−0.5)).
func ExampleEvaluator() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	clf := models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		x1 := Slice(x, AxisRange(), AxisElem(0))
		return Concatenate([]*Node{ZerosLike(x1), x1}, 1)
	}, 2, 2)
	train := &data.Dataset{
		Name:         "toy",
		X:            []float32{-1, 0, 1, 0, 3, 0},
		Y:            []int{0, 1, 1},
		FeatureNames: []string{"x1", "x2"},
		ClassNames:   []string{"no", "yes"},
	}
	samples := &energy.TargetSamples{D: 2, Samples: [][]float32{
		{-2, 0, -2, 0}, // class 0
		{2, 0, 2, 2},   // class 1
	}}
	e := &metrics.Evaluator{
		Backend:    b,
		Model:      clf,
		Calibrated: &conformal.Calibrated{Clf: clf, QHat: 0.9, Opts: conformal.DefaultOptions(), NumCalibration: 100},
		Train:      train,
		Samples:    samples,
	}
	factuals := []float32{-1, 1, -1, 1}
	cfs := []float32{2, 1, -0.5, 1}
	scores, err := e.Evaluate(factuals, cfs, []int{1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scores {
		fmt.Printf("unfaithfulness %.2f implausibility %.3f uncertainty %.2f cost %.1f redundancy %.1f p %.2f valid %v\n",
			s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy, s.Probability, s.Valid)
	}

	// The authors' code divided the summed distance to the samples by 50 and set Ω to 0 for invalid
	// counterfactuals.
	e.Options = metrics.AuthorsOptions()
	compat, err := e.Evaluate(factuals, cfs, []int{1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("authors' code, second row: unfaithfulness %.2f uncertainty %.2f\n", compat[1].Unfaithfulness, compat[1].Uncertainty)
	// Output:
	// unfaithfulness 1.00 implausibility 1.414 uncertainty 0.55 cost 3.0 redundancy 0.5 p 0.88 valid true
	// unfaithfulness 2.69 implausibility 2.721 uncertainty 0.94 cost 0.5 redundancy 0.5 p 0.38 valid false
	// authors' code, second row: unfaithfulness 0.11 uncertainty 0.00
}

// The distances and per-row metrics are plain Go functions too.
func ExampleMeanDistance() {
	x := []float32{0, 0}
	set := []float32{3, 4, 6, 8, 0, 1} // three rows
	all, _ := metrics.MeanDistance(x, set, metrics.Euclidean, 0)
	nearest2, _ := metrics.MeanDistance(x, set, metrics.Euclidean, 2)
	fmt.Printf("mean distance %.1f, over the 2 nearest %.1f\n", all, nearest2)
	fmt.Println("cost", metrics.Cost([]float32{1, 2, 3}, []float32{0, 2, 5}),
		"redundancy", metrics.Redundancy([]float32{1, 2, 3}, []float32{0, 2, 5}, metrics.DefaultRedundancyTol))
	// Output:
	// mean distance 5.3, over the 2 nearest 3.0
	// cost 3 redundancy 0.3333333333333333
}

// SSIM of an image with itself is 1, so the paper's image distance (1 − SSIM)/2 is 0; an image against its
// negative is far apart. Images are row-major height×width; StructuralDissimilarity takes pixels in
// [−1, 1], as the paper's MNIST data.
func ExampleStructuralDissimilarity() {
	const h, w = 16, 16
	img := make([]float32, h*w)
	neg := make([]float32, h*w)
	for i := range img {
		img[i] = float32(i%w)/float32(w-1)*2 - 1 // a horizontal ramp from −1 to 1
		neg[i] = -img[i]
	}
	unit := make([]float32, h*w) // the same image in [0, 1] for SSIM itself
	for i, p := range img {
		unit[i] = (p + 1) / 2
	}
	same, _ := metrics.SSIM(unit, unit, h, w, metrics.DefaultSSIM())
	d0, _ := metrics.StructuralDissimilarity(img, img, h, w)
	d1, _ := metrics.StructuralDissimilarity(img, neg, h, w)
	fmt.Printf("SSIM(x, x) = %.3f, distance(x, x) = %.3f, distance(x, −x) > 0.5: %v\n", same, d0, d1 > 0.5)
	// Output:
	// SSIM(x, x) = 1.000, distance(x, x) = 0.000, distance(x, −x) > 0.5: true
}
