//go:build !amd64 || noasm

package metrics

// axpy adds alpha·x[i] to y[i] for every i < len(y) (x may be longer), each product rounded before the
// addition: the explicit conversion forbids the fused multiply-add that Go may emit elsewhere (arm64), so
// the bits are those of amd64.
func axpy(y []float64, alpha float64, x []float64) {
	x = x[:len(y)]
	for i, xv := range x {
		y[i] += float64(alpha * xv)
	}
}
