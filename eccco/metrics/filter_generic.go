//go:build !amd64 || noasm

package metrics

// Without the AVX2 kernels every output is computed by the loops of filter.go.

// useAVX2 is false here (filter_amd64.go sets it from the CPU).
var useAVX2 = false

func filterTapsFast(dst, src, k []float64, stride int) int { return 0 }

func mulIntoFast(dst, a, b []float64) int { return 0 }

func ssimMapFast(q, v, amu, bmu, asq, bsq, ava, bva []float64, c1, c2 float64) int { return 0 }
