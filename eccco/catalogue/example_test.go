package catalogue_test

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
)

// A row's generator parameters are those of table_gen_params.tex: step size η and the weights of the
// cost, set-size and energy terms (the table's λ1, λ2, λ3) and the energy's ridge.
func ExampleDataset_GeneratorParams() {
	for _, name := range []string{"linearly-separable", "moons", "german-credit"} {
		d, err := catalogue.Lookup(name)
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
