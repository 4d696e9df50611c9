package energy_test

import (
	"context"
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX's graph DSL reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// twoBumps is a classifier with known logits −½‖x − c_k‖² for the centres c₀ = (−1, 0) and c₁ = (1, 0),
// so its conditional energy E(x|k) = ½‖x − c_k‖² is lowest at c_k.
func twoBumps() models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		g := x.Graph()
		centres := ConvertDType(Const(g, [][]float32{{-1, 0}, {1, 0}}), x.DType()) // [K, D]
		diff := Sub(ExpandAxes(x, 1), ExpandAxes(centres, 0))                      // [B, K, D]
		return MulScalar(ReduceSum(Square(diff), -1), -0.5)                        // [B, K]
	}, 2, 2)
}

// meanRow returns the column means of row-major rows of d features.
func meanRow(x []float32, d int) []float64 {
	m := make([]float64, d)
	for i, v := range x {
		m[i%d] += float64(v)
	}
	for j := range m {
		m[j] /= float64(len(x) / d)
	}
	return m
}

// SampleClass draws conditional samples of a classifier for one class by SGLD: chains start uniformly in
// the prior's box, follow −∇E(x|class) plus noise, and the lowest-energy ones are kept. With the paper's
// inference settings (DefaultClassOptions: 50 chains, 500 steps, 25 kept) the samples of class 1 gather
// at its centre (1, 0).
func ExampleSampleClass() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	prior, err := energy.NewPrior([]float32{-3, -3}, []float32{3, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := energy.DefaultClassOptions(prior)
	fmt.Println("chains", opts.Chains, "keep", opts.Keep, "steps", opts.SGLD.Steps, "φ", opts.SGLD.StepSize, "σ", opts.SGLD.NoiseSD, "clip", opts.SGLD.ClipGrad)

	s, err := energy.SampleClass(context.Background(), b, twoBumps(), 1, opts, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := meanRow(s.X, 2)
	fmt.Println("class", s.Class, "samples:", len(s.X)/2)
	fmt.Println("mean within 0.05 of (1, 0):", math.Hypot(m[0]-1, m[1]) < 0.05)
	fmt.Println("energies ascending:", s.Energies[0] <= s.Energies[len(s.Energies)-1])
	// Output:
	// chains 50 keep 25 steps 500 φ 2 σ 0.01 clip 0.01
	// class 1 samples: 25
	// mean within 0.05 of (1, 0): true
	// energies ascending: true
}

// PriorFromData is the box SGLD chains start from: per feature, the training data's mean ± 3 sd.
// TargetSampleOptions gives the paper's sampler for a data set's unfaithfulness metric and ECCCo-L1, and
// SampleTargets draws its samples of every class in one batch. NearestDistances checks where they sit.
func ExampleSampleTargets() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	// A made-up training set: two rows around each centre of twoBumps.
	train := &data.Dataset{
		Name:         "toy",
		X:            []float32{-1.1, 0.1, -0.9, -0.1, 0.9, 0.1, 1.1, -0.1},
		Y:            []int{0, 0, 1, 1},
		FeatureNames: []string{"x1", "x2"},
		ClassNames:   []string{"left", "right"},
	}
	prior, err := energy.PriorFromData(train)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("prior: x1 in [%.2f, %.2f], x2 in [%.2f, %.2f]\n", prior.Lower[0], prior.Upper[0], prior.Lower[1], prior.Upper[1])

	opts, err := energy.TargetSampleOptions(train, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts.Chains, opts.Keep = 20, 10 // fewer than the paper's 50 and 25, to be quick
	targets, err := energy.SampleTargets(context.Background(), b, twoBumps(), opts, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("classes:", len(targets.Samples), "kept per class:", targets.Kept(), "of", targets.Chains)
	for k := range targets.Samples {
		own, other, err := energy.NearestDistances(targets.Samples[k], train, k)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("class %d: nearer its own class than the other: %v\n", k, own < other)
	}
	// Output:
	// prior: x1 in [-3.48, 3.48], x2 in [-0.35, 0.35]
	// classes: 2 kept per class: 10 of 20
	// class 0: nearer its own class than the other: true
	// class 1: nearer its own class than the other: true
}

// Any differentiable energy can be sampled: here the unbiased (textbook) Langevin sampler on the
// standard Gaussian energy ½‖x‖², whose samples have mean 0 and variance 1.
func ExampleSGLD_Sample() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	gauss := energy.Unconditional(func(x *Node) *Node { return MulScalar(ReduceSum(Square(x), -1), 0.5) })
	s := energy.SGLD{StepSize: 0.05, Unbiased: true, Steps: 200}
	const chains = 2000
	x0 := make([]float32, chains) // one feature, every chain starts at 0
	samples, _, err := s.Sample(context.Background(), b, gauss, x0, nil, 1, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	var mean, sq float64
	for _, v := range samples {
		mean += float64(v) / chains
		sq += float64(v) * float64(v) / chains
	}
	fmt.Printf("noise sd %.3f\n", s.NoiseScale())
	fmt.Println("mean within 0.1 of 0:", math.Abs(mean) < 0.1, "variance within 0.15 of 1:", math.Abs(sq-mean*mean-1) < 0.15)
	// Output:
	// noise sd 0.224
	// mean within 0.1 of 0: true variance within 0.15 of 1: true
}

// LowestEnergy keeps the n rows with the lowest energies, lowest first, as the unfaithfulness metric does
// with its SGLD samples.
func ExampleLowestEnergy() {
	samples := []float32{0, 0, 1, 1, 2, 2, 3, 3} // four rows of two features
	energies := []float32{0.5, -1, 2, -0.3}
	sel, selE, index, err := energy.LowestEnergy(samples, energies, 2)
	fmt.Println(sel, selE, index, err)
	// Output:
	// [1 1 3 3] [-1 -0.3] [1 3] <nil>
}
