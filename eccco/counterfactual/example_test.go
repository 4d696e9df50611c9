package counterfactual_test

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
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

// Wachter et al.'s generator on a logistic regression: the search starts at the factual, which the model
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
	moons, err := catalogue.Lookup("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := counterfactual.Wachter(moons.GeneratorParams())
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
	for _, g := range []*counterfactual.Generator{counterfactual.Wachter(counterfactual.Params{StepSize: 0.05, Cost: 0.1}), custom} {
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

// The paper's generators are built by name from their parameters and ingredients. PaperIngredients
// prepares what they need for a trained model: here the moons MLP (trained for 10 epochs instead of the
// paper's 500), calibrated by split conformal prediction on half of its training split for ECCCo.
func ExampleByName() {
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
	moons, err := catalogue.Lookup("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, _ := moons.ModelSpec(models.KindMLP, split.Train.D(), split.Train.K())
	m, err := models.New(b, spec, 42)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := models.Train(context.Background(), b, m, split.Train, models.TrainOptions{Epochs: 10, BatchSize: 128, Seed: 42}); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	in, err := counterfactual.PaperIngredients(ctx, b, m, "moons", split.Train, nil, 42, "Wachter", "ECCCo")
	if err != nil {
		fmt.Println(err)
		return
	}
	params := moons.GeneratorParams()

	// Five test rows of class 0 that the model predicts as 0, to be moved to class 1.
	var factuals []float32
	pred, _ := models.Predict(b, m, split.Test.X)
	for i := 0; i < split.Test.N() && len(factuals) < 5*2; i++ {
		if split.Test.Y[i] == 0 && pred[i] == 0 {
			factuals = append(factuals, split.Test.Row(i)...)
		}
	}
	req := counterfactual.Request{Factuals: factuals, Targets: []int{1, 1, 1, 1, 1}, Lower: split.Lower, Upper: split.Upper}
	for _, name := range []string{"Wachter", "ECCCo"} {
		g, err := counterfactual.ByName(name, params, in)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := counterfactual.Search(ctx, b, m, g, req)
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
		var terms []string
		for _, p := range g.Penalties {
			terms = append(terms, p.Name)
		}
		fmt.Printf("%-7s penalties %v: valid %d of %d\n", g.Name, terms, valid, len(req.Targets))
	}
	// Output:
	// Wachter penalties [cost]: valid 5 of 5
	// ECCCo   penalties [cost energy setsize]: valid 5 of 5
}

// CanonicalName maps the spellings that ByName accepts to the names of the paper's tables;
// GeneratorNames lists them all.
func ExampleCanonicalName() {
	for _, s := range []string{"wachter", "eccco-plus", "no-cp", "ECCCo (no EBM)", "l1"} {
		name, err := counterfactual.CanonicalName(s)
		fmt.Printf("%q → %q %v\n", s, name, err)
	}
	_, err := counterfactual.CanonicalName("dice")
	fmt.Println(err != nil)
	fmt.Println(counterfactual.GeneratorNames())
	// Output:
	// "wachter" → "Wachter" <nil>
	// "eccco-plus" → "ECCCo+" <nil>
	// "no-cp" → "ECCCo (no CP)" <nil>
	// "ECCCo (no EBM)" → "ECCCo (no EBM)" <nil>
	// "l1" → "ECCCo-L1" <nil>
	// true
	// [ECCCo ECCCo+ ECCCo (no CP) ECCCo (no EBM) ECCCo-L1 ECCCo-L1 (no CP) ECCCo-L1 (no EBM) REVISE Schut Wachter]
}
