package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The kernels of SSIM's cross term give the bits of a direct loop — each product rounded, then added, sums
// from +0 in order — on every path (AVX2 where the CPU has it, the plain loops otherwise), for lengths that
// are and are not multiples of four or sixteen, strides 1 and wider, and signed zeros.
func TestFilterKernelsBitsOnEveryPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	value := func() float64 {
		switch rng.IntN(12) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		}
		return (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(7)-3))
	}
	fill := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = value()
		}
		return x
	}
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return len(a) == len(b)
	}
	paths := []bool{false}
	if useAVX2 {
		paths = append(paths, true)
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	for _, avx := range paths {
		useAVX2 = avx
		for _, n := range []int{1, 3, 4, 5, 15, 16, 17, 35, 64, 1054} {
			for _, nk := range []int{1, 3, 11} {
				for _, stride := range []int{1, 7, 38} {
					k := fill(nk)
					src := fill(n + (nk-1)*stride)
					got := make([]float64, n)
					filterTaps(got, src, k, stride)
					want := make([]float64, n)
					for i := range want {
						var s float64
						for j := range k {
							s += float64(k[j] * src[i+j*stride]) // no fused multiply-add
						}
						want[i] = s
					}
					if !same(got, want) {
						t.Fatalf("avx2 %v: filterTaps n %d, %d taps, stride %d: bits differ from the direct loop", avx, n, nk, stride)
					}
				}
			}
			a, b := fill(n), fill(n)
			got := make([]float64, n)
			mulInto(got, a, b)
			for i := range got {
				if p := a[i] * b[i]; math.Float64bits(got[i]) != math.Float64bits(p) {
					t.Fatalf("avx2 %v: mulInto n %d: element %d is %v, want %v", avx, n, i, got[i], p)
				}
			}
			// The map: positive second moments as SSIM has them, a cross moment of either sign.
			v := fill(n)
			img := func() ssimImage {
				mu, sq, va := fill(n), make([]float64, n), make([]float64, n)
				for i := range mu {
					sq[i], va[i] = mu[i]*mu[i], math.Abs(value())
				}
				return ssimImage{mu: mu, sq: sq, va: va}
			}
			ia, ib := img(), img()
			const c1, c2 = 1e-4, 9e-4
			var want float64
			for i := range v {
				ab := float64(ia.mu[i] * ib.mu[i])
				vab := v[i] - ab
				num := float64((2*ab + c1) * (2*vab + c2))
				den := float64((ia.sq[i] + ib.sq[i] + c1) * (ia.va[i] + ib.va[i] + c2))
				want += num / den
			}
			if got := ssimMapSum(make([]float64, n), v, ia, ib, c1, c2); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("avx2 %v: ssimMapSum n %d: %v, want %v", avx, n, got, want)
			}
		}
	}
	if !useAVX2 {
		t.Log("this CPU has no AVX2 (or the build says noasm): only the plain loops were checked")
	}
}
