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
			work := make([]float64, s.ph*s.ow)
			for i := range s.rows {
				out[i] = (1 - s.mean(xi, s.rows[i], work)) / 2
			}
		}, nil
	}
}

// ssimImage is what SSIM needs of one image alone: its padded pixels and its filtered mean μ and second
// moment E[a²] on the output grid.
type ssimImage struct {
	padded, mu, mu2 []float64
}

// ssimSet holds a set of images prepared for SSIM against many others (ssimMean's arithmetic, split into
// the terms of one image and the cross term).
type ssimSet struct {
	n, ph, pw, oh, ow, p int
	k                    []float64
	c1, c2               float64
	pixel                func(float32) float64
	widthIdx             []int
	height, width        int
	rows                 []ssimImage
}

func newSSIMSet(set []float32, height, width int, opts SSIMOptions, crop bool, pixel func(float32) float64) (*ssimSet, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if height <= 0 || width <= 0 {
		return nil, fmt.Errorf("ssim: image size %d×%d must be positive", height, width)
	}
	if height < opts.Window || width < opts.Window {
		return nil, fmt.Errorf("ssim: image %d×%d is smaller than the %d×%d window", height, width, opts.Window, opts.Window)
	}
	n := height * width
	if len(set) == 0 || len(set)%n != 0 {
		return nil, fmt.Errorf("ssim: a set of %d values is not whole %d×%d images", len(set), height, width)
	}
	r := opts.Window / 2
	p := r
	if crop {
		p = 0
	}
	s := &ssimSet{n: n, height: height, width: width, p: p, ph: height + 2*p, pw: width + 2*p, pixel: pixel,
		k: ssimGaussian(opts.Window, opts.Sigma)}
	if opts.Window == 11 && opts.Sigma == 1.5 {
		s.k = defaultSSIMKernel
	}
	s.oh, s.ow = s.ph-2*r, s.pw-2*r
	s.c1 = (opts.K1 * opts.DataRange) * (opts.K1 * opts.DataRange)
	s.c2 = (opts.K2 * opts.DataRange) * (opts.K2 * opts.DataRange)
	s.widthIdx = make([]int, s.pw)
	for x := range s.pw {
		s.widthIdx[x] = mirror(x-p, width)
	}
	s.rows = make([]ssimImage, len(set)/n)
	for i := range s.rows {
		s.rows[i] = s.prepare(set[i*n : (i+1)*n])
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

// prepare pads an image and filters its mean and second moment exactly as ssimMean does.
func (s *ssimSet) prepare(img []float32) ssimImage {
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
	return ssimImage{padded: pa, mu: mu, mu2: mu2}
}

// mean is ssimMean(a, b) for two prepared images; work holds ph·ow values.
func (s *ssimSet) mean(a, b ssimImage, work []float64) float64 {
	k, ow, pw := s.k, s.ow, s.pw
	for y := range s.ph {
		ra, rb := a.padded[y*pw:(y+1)*pw], b.padded[y*pw:(y+1)*pw]
		o := y * ow
		for x := range ow {
			wa, wb := ra[x:x+len(k)], rb[x:x+len(k)]
			var s12 float64
			for t, kt := range k {
				s12 += kt * float64(wa[t]*wb[t])
			}
			work[o+x] = s12
		}
	}
	var total float64
	for y := range s.oh {
		for x := range ow {
			var uab float64
			j := y*ow + x
			for _, kt := range k {
				uab += kt * work[j]
				j += ow
			}
			i := y*ow + x
			ua, ub, uaa, ubb := a.mu[i], b.mu[i], a.mu2[i], b.mu2[i]
			// As in ssimMean: explicit float64 conversions forbid fused multiply-adds.
			va := uaa - float64(ua*ua)
			vb := ubb - float64(ub*ub)
			vab := uab - float64(ua*ub)
			num := (2*float64(ua*ub) + s.c1) * (2*vab + s.c2)
			den := (float64(ua*ua) + float64(ub*ub) + s.c1) * (va + vb + s.c2)
			total += num / den
		}
	}
	return total / float64(s.oh*ow)
}
