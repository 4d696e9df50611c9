package metrics

import (
	"fmt"
	"math"
)

// SetDistance prepares a set of rows (row-major, whole rows) once and returns a function that writes the
// distance from x to every row of the set into out (len(out) = the set's rows). It computes what a
// Distance computes pair by pair, faster where a distance has terms of one row alone that can be
// computed once: ImageSetDissimilarity does that for SSIM. Options.SetDistance takes one.
type SetDistance func(set []float32) (func(x []float32, out []float64), error)

// ImageSetDissimilarity is ImageDissimilarity against a whole set: the same values, bit for bit, with
// each image's local means and second moments filtered once instead of once per pair (about 3 × fewer
// operations per pair).
func ImageSetDissimilarity(height, width int) SetDistance {
	return imageSetDistance(height, width, true)
}

// ImageSetDissimilarityUncropped is ImageDissimilarityUncropped (the authors' variant) against a whole
// set, as ImageSetDissimilarity.
func ImageSetDissimilarityUncropped(height, width int) SetDistance {
	return imageSetDistance(height, width, false)
}

func imageSetDistance(height, width int, crop bool) SetDistance {
	return func(set []float32) (func(x []float32, out []float64), error) {
		s, err := newSSIMSet(set, height, width, DefaultSSIM(), crop, mapUnit)
		if err != nil {
			return nil, err
		}
		return func(x []float32, out []float64) {
			if len(x) != s.n || len(out) != len(s.rows) {
				for i := range out {
					out[i] = math.NaN()
				}
				return
			}
			xi := s.prepare(x)
			work := s.newWork()
			for i := range s.rows {
				out[i] = (1 - s.mean(xi, s.rows[i], work)) / 2
			}
		}, nil
	}
}

// ssimImage is what SSIM needs of one image alone: its padded pixels and its filtered mean μ and
// variance on the output grid.
type ssimImage struct {
	// rows are the padded pixels of the image's own rows (padded rows p … p+height−1, every padded
	// column), the only ones mean reads.
	rows []float64
	// mu is the filtered mean μ, sq its square μ² and va the variance E[a²] − μ²: the map's terms of
	// this image alone.
	mu, sq, va []float64
}

// ssimGeom is the arithmetic of SSIM for images of one size and one set of options: the (padded) grid,
// the Gaussian kernel and the constants. SSIM splits into the terms of each image alone (prepare: its
// filtered mean μ and second moment E[a²]) and the cross term of a pair (mean: the filtered E[ab] and the
// SSIM map); every sum is accumulated in the same order whichever way it is called.
type ssimGeom struct {
	n, height, width  int
	p, ph, pw, oh, ow int
	k                 []float64
	c1, c2            float64
	pixel             func(float32) float64
	widthIdx          []int
}

// ssimSet holds a set of images prepared for SSIM against many others.
type ssimSet struct {
	*ssimGeom
	rows []ssimImage
}

func newSSIMGeom(height, width int, opts SSIMOptions, crop bool, pixel func(float32) float64) (*ssimGeom, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if height <= 0 || width <= 0 {
		return nil, fmt.Errorf("ssim: image size %d×%d must be positive", height, width)
	}
	if height < opts.Window || width < opts.Window {
		return nil, fmt.Errorf("ssim: image %d×%d is smaller than the %d×%d window", height, width, opts.Window, opts.Window)
	}
	// Padding: none when cropping (the valid windows stay inside the image), r pixels of half-sample
	// symmetric padding otherwise.
	r := opts.Window / 2
	p := r
	if crop {
		p = 0
	}
	g := &ssimGeom{n: height * width, height: height, width: width, p: p, ph: height + 2*p, pw: width + 2*p, pixel: pixel}
	// The kernel: the precomputed default, or this one's.
	g.k = defaultSSIMKernel
	if opts.Window != 11 || opts.Sigma != 1.5 {
		g.k = ssimGaussian(opts.Window, opts.Sigma)
	}
	g.oh, g.ow = g.ph-2*r, g.pw-2*r
	g.c1 = (opts.K1 * opts.DataRange) * (opts.K1 * opts.DataRange)
	g.c2 = (opts.K2 * opts.DataRange) * (opts.K2 * opts.DataRange)
	g.widthIdx = make([]int, g.pw)
	for x := range g.pw {
		g.widthIdx[x] = mirror(x-p, width)
	}
	return g, nil
}

func newSSIMSet(set []float32, height, width int, opts SSIMOptions, crop bool, pixel func(float32) float64) (*ssimSet, error) {
	g, err := newSSIMGeom(height, width, opts, crop, pixel)
	if err != nil {
		return nil, err
	}
	if len(set) == 0 || len(set)%g.n != 0 {
		return nil, fmt.Errorf("ssim: a set of %d values is not whole %d×%d images", len(set), height, width)
	}
	s := &ssimSet{ssimGeom: g, rows: make([]ssimImage, len(set)/g.n)}
	for i := range s.rows {
		s.rows[i] = g.prepare(set[i*g.n : (i+1)*g.n])
	}
	return s, nil
}

// mirror is ssimMean's half-sample symmetric index: i < 0 reads −i−1, i ≥ n reads 2n−1−i.
func mirror(i, n int) int {
	switch {
	case i < 0:
		return -i - 1
	case i >= n:
		return 2*n - 1 - i
	}
	return i
}

// prepare pads an image (mapping its pixels first, if asked) and filters its mean and second moment.
func (s *ssimGeom) prepare(img []float32) ssimImage {
	pa := make([]float64, s.ph*s.pw)
	for y := range s.ph {
		src := mirror(y-s.p, s.height) * s.width
		ra := pa[y*s.pw : (y+1)*s.pw]
		for x := range s.pw {
			if s.pixel != nil {
				ra[x] = s.pixel(img[src+s.widthIdx[x]])
			} else {
				ra[x] = float64(img[src+s.widthIdx[x]])
			}
		}
	}
	k, ow := s.k, s.ow
	h1, h11 := make([]float64, s.ph*ow), make([]float64, s.ph*ow)
	for y := range s.ph {
		ra := pa[y*s.pw : (y+1)*s.pw]
		o := y * ow
		for x := range ow {
			wa := ra[x : x+len(k)]
			var s1, s11 float64
			for t, kt := range k {
				va := wa[t]
				s1 += kt * va
				s11 += kt * float64(va*va)
			}
			h1[o+x], h11[o+x] = s1, s11
		}
	}
	mu, mu2 := make([]float64, s.oh*ow), make([]float64, s.oh*ow)
	for y := range s.oh {
		for x := range ow {
			var u, uu float64
			j := y*ow + x
			for _, kt := range k {
				u += kt * h1[j]
				uu += kt * h11[j]
				j += ow
			}
			mu[y*ow+x], mu2[y*ow+x] = u, uu
		}
	}
	sq, va := make([]float64, len(mu)), mu2 // va overwrites mu2
	for i, u := range mu {
		sq[i] = float64(u * u)
		va[i] = mu2[i] - sq[i]
	}
	// Only the image's own rows are kept (a copy, so the padded array can be freed).
	rows := append([]float64(nil), pa[s.p*s.pw:(s.p+s.height)*s.pw]...)
	return ssimImage{rows: rows, mu: mu, sq: sq, va: va}
}

// ssimWork is the scratch space of mean, allocated once per goroutine (newWork).
type ssimWork struct {
	prod, h, hp, v, q []float64
}

func (s *ssimGeom) newWork() *ssimWork {
	k := len(s.k)
	return &ssimWork{prod: make([]float64, s.height*s.pw), h: make([]float64, s.height*s.pw-(k-1)),
		hp: make([]float64, s.ph*s.ow), v: make([]float64, s.oh*s.ow), q: make([]float64, s.oh*s.ow)}
}

// mean is the mean SSIM of two prepared images: the cross term E[ab] filtered the same way as each
// image's moments, then the map averaged over the output grid.
//
// Every output is the sum that a direct loop over the taps would form, in the same order and with no fused
// multiply-add, so the result is the same bit for bit; the loops are arranged for speed: the products a·b
// are formed once on the image's own rows (a padded row is a copy of one of them), each filtering pass
// forms every output's sum over the taps with no dependency between neighbouring outputs, and the
// horizontal pass runs over the rows laid end to end (outputs that straddle two rows are computed and never
// read). On amd64 with AVX2 the products, both passes and the map run four doubles per instruction
// (filter_amd64.s; the same operations, so the same bits); BenchmarkImageSetDissimilarity times it.
func (s *ssimGeom) mean(a, b ssimImage, w *ssimWork) float64 {
	k, ow, pw := s.k, s.ow, s.pw
	// The products on the image's own rows (padded rows p … p+height−1), every padded column.
	prod := w.prod
	mulInto(prod, a.rows[:len(prod)], b.rows[:len(prod)])
	// Horizontal pass: h[r·pw + x] = Σ_t k[t]·prod[r·pw + x + t], valid for x < ow.
	h := w.h
	filterTaps(h, prod, k, 1)
	// The padded rows in order, each the filtered image row it mirrors, ow values each.
	hp := w.hp
	for y := range s.ph {
		r := mirror(y-s.p, s.height)
		copy(hp[y*ow:(y+1)*ow], h[r*pw:r*pw+ow])
	}
	// Vertical pass: v[y·ow + x] = Σ_t k[t]·hp[(y+t)·ow + x].
	v := w.v
	filterTaps(v, hp, k, ow)
	// The SSIM map, averaged in row-major order.
	return ssimMapSum(w.q, v, a, b, s.c1, s.c2) / float64(len(v))
}
