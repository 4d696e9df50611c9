package metrics

// The arithmetic kernels of SSIM's cross term (ssimGeom.mean), in the order that fixes their bits: every
// product is rounded before its addition (no fused multiply-add), and every sum is accumulated from +0 in
// the order of its terms. filter_amd64.s computes the same operations four or sixteen outputs at a time with
// AVX2 (VMULPD, VADDPD, VSUBPD, VDIVPD: the same IEEE operations per element, so the same bits);
// elsewhere, or without AVX2, these loops run.

// filterTaps sets dst[i] = Σ_t k[t]·src[i + t·stride] for every i < len(dst), t in order. src must hold
// len(dst) + (len(k) − 1)·stride values.
func filterTaps(dst, src, k []float64, stride int) {
	n := len(dst)
	if n == 0 {
		return
	}
	_ = src[n-1+(len(k)-1)*stride] // one bounds check for the kernels
	done := 0
	if len(k) > 0 {
		done = filterTapsFast(dst, src, k, stride)
	}
	for i := done; i < n; i++ {
		var s float64
		for t, kt := range k {
			s += float64(kt * src[i+t*stride])
		}
		dst[i] = s
	}
}

// mulInto sets dst[i] = a[i]·b[i] for every i < len(dst).
func mulInto(dst, a, b []float64) {
	n := len(dst)
	if n == 0 {
		return
	}
	_, _ = a[n-1], b[n-1]
	for i := mulIntoFast(dst, a, b); i < n; i++ {
		dst[i] = float64(a[i] * b[i])
	}
}

// ssimMapSum returns Σ_i S_i over the output grid, in order, where S_i is the SSIM map's value from the
// filtered cross moment v[i] and the two images' terms (ssimImage): with ab = μa·μb,
// S = (2ab + C1)(2(v − ab) + C2) / ((μa² + μb² + C1)(σa² + σb² + C2)). q is scratch space of len(v).
func ssimMapSum(q, v []float64, a, b ssimImage, c1, c2 float64) float64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	amu, bmu, asq, bsq, ava, bva := a.mu[:n], b.mu[:n], a.sq[:n], b.sq[:n], a.va[:n], b.va[:n]
	q = q[:n]
	for i := ssimMapFast(q, v, amu, bmu, asq, bsq, ava, bva, c1, c2); i < n; i++ {
		// Explicit float64 conversions forbid fused multiply-adds, so that identical images give
		// exactly 1 and swapped images the same value on every architecture.
		ab := float64(amu[i] * bmu[i])
		vab := v[i] - ab
		num := float64((2*ab + c1) * (2*vab + c2))
		den := float64((asq[i] + bsq[i] + c1) * (ava[i] + bva[i] + c2))
		q[i] = num / den
	}
	var total float64
	for _, s := range q {
		total += s
	}
	return total
}
