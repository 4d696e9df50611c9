package data

import (
	"fmt"
	"math/rand/v2"
)

// UniformImages returns n fixed pseudo-random rows of 784 values uniform in [−1, 1] (MNIST's size and
// range) with labels 0, 1, …, classes−1, 0, … in turn: a stand-in for MNIST where only its shape matters
// (the training benchmarks of models, vae and energy).
func UniformImages(n, classes int) *Dataset {
	const d = 784
	ds := &Dataset{Name: "bench"}
	for j := range d {
		ds.FeatureNames = append(ds.FeatureNames, fmt.Sprint("p", j))
	}
	for c := range classes {
		ds.ClassNames = append(ds.ClassNames, fmt.Sprint(c))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		for range d {
			ds.X = append(ds.X, float32(2*r.Float64()-1))
		}
		ds.Y = append(ds.Y, i%classes)
	}
	return ds
}
