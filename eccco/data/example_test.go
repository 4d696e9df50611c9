package data_test

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// Load prepares a data set the way the paper does. Synthetic sets are generated from the seed; tabular
// and vision sets are read from the data directory (fetch them first with data.Fetch or
// `eccco data fetch NAME`).
func ExampleLoad() {
	split, err := data.Load("moons", data.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("train:", split.Train.N(), "rows, classes", split.Train.ClassCounts())
	fmt.Println("test: ", split.Test.N(), "rows, classes", split.Test.ClassCounts())
	fmt.Println("features:", split.Train.FeatureNames, "standardised:", split.Standardizer != nil)
	// Output:
	// train: 2501 rows, classes [1250 1251]
	// test:  624 rows, classes [312 312]
	// features: [x1 x2] standardised: false
}
