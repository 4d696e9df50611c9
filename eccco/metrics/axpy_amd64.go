//go:build amd64 && !noasm

package metrics

import "gonum.org/v1/gonum/floats"

// axpy adds alpha·x[i] to y[i] for every i < len(y) (x may be longer), each product rounded before the
// addition: gonum's SSE2 kernel (MULPD, then ADDPD), which gives axpy_generic.go's bits twice as fast.
func axpy(y []float64, alpha float64, x []float64) {
	floats.AddScaled(y, alpha, x[:len(y)])
}
