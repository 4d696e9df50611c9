package data

import (
	"slices"
	"testing"
)

// UniformImages: MNIST's shape and range, labels in turn, the same rows on every call.
func TestUniformImages(t *testing.T) {
	ds := UniformImages(25, 10)
	if ds.N() != 25 || ds.D() != 784 || len(ds.ClassNames) != 10 {
		t.Fatalf("%d rows of %d features, %d classes; want 25 of 784, 10", ds.N(), ds.D(), len(ds.ClassNames))
	}
	lo, hi := slices.Min(ds.X), slices.Max(ds.X)
	if lo < -1 || hi > 1 || lo > -0.99 || hi < 0.99 {
		t.Errorf("values in [%v, %v], want spread over [−1, 1]", lo, hi)
	}
	for i, y := range ds.Y {
		if y != i%10 {
			t.Fatalf("row %d: label %d, want %d", i, y, i%10)
		}
	}
	if !slices.Equal(UniformImages(25, 10).X, ds.X) {
		t.Error("two calls gave other rows")
	}
}
