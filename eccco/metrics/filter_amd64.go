//go:build amd64 && !noasm

package metrics

import "golang.org/x/sys/cpu"

// useAVX2 selects filter_amd64.s's kernels (a variable so that tests can compare both paths).
var useAVX2 = cpu.X86.HasAVX2

//go:noescape
func filterTapsAVX2(dst *float64, n int, src *float64, k *float64, nk int, stride int)

//go:noescape
func mulAVX2(dst *float64, n int, a, b *float64)

//go:noescape
func ssimMapAVX2(q *float64, n int, v, amu, bmu, asq, bsq, ava, bva *float64, c1, c2 float64)

// filterTapsFast computes the outputs of filterTaps in blocks of four and returns how many it wrote.
func filterTapsFast(dst, src, k []float64, stride int) int {
	n := len(dst) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	filterTapsAVX2(&dst[0], n, &src[0], &k[0], len(k), stride)
	return n
}

// mulIntoFast computes the products of mulInto in blocks of four and returns how many it wrote.
func mulIntoFast(dst, a, b []float64) int {
	n := len(dst) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	mulAVX2(&dst[0], n, &a[0], &b[0])
	return n
}

// ssimMapFast computes the map values of ssimMapSum in blocks of four and returns how many it wrote.
func ssimMapFast(q, v, amu, bmu, asq, bsq, ava, bva []float64, c1, c2 float64) int {
	n := len(q) &^ 3
	if !useAVX2 || n == 0 {
		return 0
	}
	ssimMapAVX2(&q[0], n, &v[0], &amu[0], &bmu[0], &asq[0], &bsq[0], &ava[0], &bva[0], c1, c2)
	return n
}
