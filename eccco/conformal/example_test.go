package conformal_test

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX's graph DSL reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// Split conformal prediction on the moons data with a hand-built classifier that looks at the second
// feature only, logits (0, 4·(0.25 − x₂)): it is sure far above and far below the moons' overlap and
// unsure inside it. SplitCalibration holds out half of the training set (as the authors do), Calibrate
// computes q̂ from its nonconformity scores, and Evaluate measures coverage and set size on the test set:
// sets hold both classes where the model is unsure, so coverage reaches the target 1 − α = 0.95.
func ExampleCalibrate() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	clf := models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		x2 := Slice(x, AxisRange(), AxisElem(1)) // [B, 1]
		a := MulScalar(AddScalar(Neg(x2), 0.25), 4)
		return Concatenate([]*Node{ZerosLike(a), a}, 1)
	}, 2, 2)

	split, err := data.Load("moons", data.Options{Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, cal, err := conformal.SplitCalibration(split.Train, 0.5, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := conformal.DefaultOptions()
	fmt.Println("α", opts.Alpha, "T", opts.Temperature, "κ", opts.Kappa, "calibration rows:", cal.N())

	c, err := conformal.Calibrate(b, clf, cal, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	cov, err := c.Evaluate(b, split.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("q̂ = %.2f; %d test rows: coverage %.2f, mean set size %.1f\n", c.QHat, cov.N, cov.Coverage, cov.MeanSetSize)

	sets, err := c.PredictionSets(b, []float32{
		0, 1, // top of the upper moon
		1, -0.4, // bottom of the lower moon
		0.5, 0.25, // where the moons overlap in x₂
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("prediction sets:", sets)
	// Output:
	// α 0.05 T 0.1 κ 1 calibration rows: 1251
	// q̂ = 0.62; 624 test rows: coverage 0.96, mean set size 1.1
	// prediction sets: [[0] [1] [0 1]]
}

// Quantile is the threshold q̂ of split conformal prediction: by default the plain (1 − α) quantile of
// the calibration scores that the paper's code uses, or with the finite-sample correction the
// ⌈(n+1)(1−α)⌉-th smallest score, which guarantees coverage ≥ 1 − α.
func ExampleQuantile() {
	scores := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}
	plain, _ := conformal.Quantile(scores, 0.1, false)
	corrected, _ := conformal.Quantile(scores, 0.1, true)
	fmt.Printf("plain %.2f, finite-sample %.2f\n", plain, corrected)
	// Output:
	// plain 0.91, finite-sample 1.00
}

// What q̂ alone decides: the Ω of a valid counterfactual (target probability ≥ 0.5) of ten classes, for an
// accurate model with confident calibration scores (q̂ = 0.63), and for one whose wrong calibration
// predictions are confident (q̂ = 0.99): there every valid counterfactual has Ω of at least
// 9·σ(−0.1) + σ(9.9) − 1 ≈ 4.28, however the search went.
func ExampleValidOmegaRange() {
	for _, q := range []float64{0.63, 0.99} {
		r, err := conformal.ValidOmegaRange(q, 0.1, 1, 10, true, 0.5)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("q̂ = %.2f: Ω ∈ [%.2f, %.2f]; a certain counterfactual: %.2f\n", q, r.Min, r.Max,
			conformal.OmegaOf([]float64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, q, 0.1, 1, true))
	}
	// Output:
	// q̂ = 0.63: Ω ∈ [0.16, 0.76]; a certain counterfactual: 0.22
	// q̂ = 0.99: Ω ∈ [4.28, 5.50]; a certain counterfactual: 4.28
}
