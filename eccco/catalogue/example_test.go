package catalogue_test

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// A row's generator parameters are those of table_gen_params.tex: step size η and the weights of the
// cost, set-size and energy terms (the table's λ1, λ2, λ3) and the energy's ridge.
func ExampleDataset_GeneratorParams() {
	for _, name := range []string{"linearly-separable", "moons", "german-credit"} {
		d, err := catalogue.LookupDataset(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		p := d.GeneratorParams()
		fmt.Printf("%-18s η %.2f  λ_cost %.2f  λ_setsize %.2f  λ_energy %.2f  ridge %.1f\n", name, p.StepSize, p.Cost, p.SetSize, p.Energy, p.Ridge)
	}
	// Output:
	// linearly-separable η 0.05  λ_cost 0.10  λ_setsize 0.10  λ_energy 0.50  ridge 0.0
	// moons              η 0.05  λ_cost 0.10  λ_setsize 0.10  λ_energy 0.20  ridge 0.0
	// german-credit      η 0.05  λ_cost 0.10  λ_setsize 0.10  λ_energy 0.10  ridge 0.5
}

// The paper's generators are built by name from their parameters and ingredients. NeedsOf says what a
// list of them needs, which counterfactual.PaperIngredients prepares for a trained model: here the moons
// MLP (trained for 10 epochs instead of the paper's 500), calibrated by split conformal prediction on
// half of its training split for ECCCo.
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
	moons, err := catalogue.LookupDataset("moons")
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
	need, err := catalogue.NeedsOf("Wachter", "ECCCo")
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := counterfactual.PaperIngredients(ctx, b, m, "moons", split.Train, nil, 42, need)
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
		g, err := catalogue.ByName(name, params, in)
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

// Canonical maps the spellings that LookupGenerator accepts to the names of the paper's tables; Names lists them
// all.
func ExampleCanonical() {
	for _, s := range []string{"wachter", "eccco-plus", "no-cp", "ECCCo (no EBM)", "l1"} {
		name, err := catalogue.Canonical(s)
		fmt.Printf("%q → %q %v\n", s, name, err)
	}
	_, err := catalogue.Canonical("dice")
	fmt.Println(err != nil)
	fmt.Println(catalogue.Names())
	// Output:
	// "wachter" → "Wachter" <nil>
	// "eccco-plus" → "ECCCo+" <nil>
	// "no-cp" → "ECCCo (no CP)" <nil>
	// "ECCCo (no EBM)" → "ECCCo (no EBM)" <nil>
	// "l1" → "ECCCo-L1" <nil>
	// true
	// [ECCCo ECCCo+ ECCCo (no CP) ECCCo (no EBM) ECCCo-L1 ECCCo-L1 (no CP) ECCCo-L1 (no EBM) REVISE Schut Wachter]
}
