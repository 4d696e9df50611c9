package counterfactual_test

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX's graph DSL reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// logistic is a two-class logistic regression with logits (0, w·x + c), so p(1|x) = σ(w·x + c).
func logistic(w []float32, c float64) models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		wNode := ConvertDType(Reshape(Const(x.Graph(), w), len(w), 1), x.DType())
		a := AddScalar(MatMul(x, wNode), c) // [B, 1]
		return Concatenate([]*Node{ZerosLike(a), a}, 1)
	}, len(w), 2)
}

// Wachter et al.'s generator, declared as a Spec and built by Build, on a logistic regression: the search starts at the factual, which the model
// puts in class 0, and descends the cross-entropy of the target class 1 plus λ_cost·‖x′ − x‖₁, clamped to
// the bounds. The Request's Rule says when a row stops: here as soon as p(y⁺|x′) ≥ 0.5
// (DecisionThreshold); the default, the paper's generator conditions, also waits for a small gradient.
func ExampleSearch() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	clf := logistic([]float32{1, 2}, -1) // class 1 where x₁ + 2x₂ > 1
	moons, err := catalogue.LookupDataset("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	wachter := counterfactual.Spec{Name: "Wachter", Penalties: []counterfactual.PenaltyKind{counterfactual.PenaltyCost}}
	g, err := counterfactual.Build(wachter, moons.GeneratorParams(), counterfactual.Ingredients{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Name, "η =", g.StepSize, "λ_cost =", g.Penalties[0].Weight)
	for _, rule := range []counterfactual.Rule{counterfactual.DecisionThreshold, counterfactual.GeneratorConditions} {
		res, err := counterfactual.Search(context.Background(), b, clf, g, counterfactual.Request{
			Factuals: []float32{-1, -0.5}, // one factual: x₁ + 2x₂ = −2, p(1|x) = σ(−3) ≈ 0.05
			Targets:  []int{1},
			Lower:    []float32{-3, -3},
			Upper:    []float32{3, 3},
			Rule:     rule,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("x′ = (%.2f, %.2f), p(y⁺|x′) = %.2f, valid %v, converged %v after %d steps\n",
			res.X[0], res.X[1], res.Probability[0], res.Valid(0, counterfactual.DefaultThreshold), res.Converged[0], res.Iterations[0])
	}
	// Output:
	// Wachter η = 0.05 λ_cost = 0.1
	// x′ = (-0.43, 0.73), p(y⁺|x′) = 0.51, valid true, converged true after 17 steps
	// x′ = (-0.13, 1.74), p(y⁺|x′) = 0.91, valid true, converged false after 100 steps
}

// A generator is a value: a loss, weighted penalties (any differentiable per-row Term) and an optimiser.
// Here Wachter's objective with the energy constraint of ECCCo added, E(x′|y⁺) = −logit_{y⁺}(x′), and a
// hand-written squared-distance penalty; MeanEnergy compares where the two generators' counterfactuals
// end up. The energy term pulls counterfactuals deeper into the target class (lower energy).
func ExampleGenerator() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	clf := logistic([]float32{1, 2}, -1)
	squaredDistance := func(s *counterfactual.State) *Node {
		return ReduceSum(Square(Sub(s.X, s.Factual)), -1) // [B]
	}
	custom := &counterfactual.Generator{
		Name:     "Wachter + energy",
		StepSize: 0.05,
		Penalties: []counterfactual.Penalty{
			{Name: "cost", Weight: 0.1, Term: counterfactual.L1Cost},
			{Name: "energy", Weight: 0.5, Term: counterfactual.EnergyPenalty(0)},
			{Name: "squared distance", Weight: 0.01, Term: squaredDistance},
		},
	}
	if err := custom.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	req := counterfactual.Request{
		Factuals: []float32{-1, -0.5, 0, -1, -2, 0}, // three factuals, all in class 0
		Targets:  []int{1, 1, 1},
		Lower:    []float32{-3, -3},
		Upper:    []float32{3, 3},
	}
	energies := map[string]float64{}
	wachter := &counterfactual.Generator{Name: "Wachter", StepSize: 0.05, Penalties: custom.Penalties[:1]}
	for _, g := range []*counterfactual.Generator{wachter, custom} {
		res, err := counterfactual.Search(context.Background(), b, clf, g, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		valid := 0
		for i := range req.Targets {
			if res.Valid(i, 0.5) {
				valid++
			}
		}
		energies[g.Name], err = counterfactual.MeanEnergy(b, clf, res.X, req.Targets)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-16s valid %d of %d\n", g.Name, valid, len(req.Targets))
	}
	fmt.Println("lower energy with the energy penalty:", energies["Wachter + energy"] < energies["Wachter"])
	// Output:
	// Wachter          valid 3 of 3
	// Wachter + energy valid 3 of 3
	// lower energy with the energy penalty: true
}
