package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ssimPattern builds a row-major height×width image from f(y, x).
func ssimPattern(height, width int, f func(y, x int) float32) []float32 {
	img := make([]float32, height*width)
	for y := range height {
		for x := range width {
			img[y*width+x] = f(y, x)
		}
	}
	return img
}

// ssimRandom draws a height×width image uniform in [lo, hi) from a seeded generator.
func ssimRandom(rng *rand.Rand, height, width int, lo, hi float64) []float32 {
	img := make([]float32, height*width)
	for i := range img {
		img[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return img
}

// ssimDirect is an independent, plain O(n²·w²) SSIM: a 2-D Gaussian window (no separability), central
// moments by two passes over each window (not E[x²] − μ²), the map averaged over the valid region
// (crop) or over every pixel with half-sample symmetric padding (… b a | a b …, written out here).
func ssimDirect(a, b []float32, height, width int, o SSIMOptions, crop bool) float64 {
	r := o.Window / 2
	wts := make([][]float64, o.Window)
	var sum float64
	for i := -r; i <= r; i++ {
		wts[i+r] = make([]float64, o.Window)
		for j := -r; j <= r; j++ {
			v := math.Exp(-float64(i*i+j*j) / (2 * o.Sigma * o.Sigma))
			wts[i+r][j+r] = v
			sum += v
		}
	}
	for i := range wts {
		for j := range wts[i] {
			wts[i][j] /= sum
		}
	}
	reflect := func(i, n int) int {
		if i < 0 {
			return -1 - i
		}
		if i > n-1 {
			return (n - 1) - (i - n)
		}
		return i
	}
	at := func(img []float32, y, x int) float64 {
		return float64(img[reflect(y, height)*width+reflect(x, width)])
	}
	c1 := math.Pow(o.K1*o.DataRange, 2)
	c2 := math.Pow(o.K2*o.DataRange, 2)
	y0, y1, x0, x1 := 0, height, 0, width
	if crop {
		y0, y1, x0, x1 = r, height-r, r, width-r
	}
	var total float64
	count := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			var ma, mb float64
			for i := -r; i <= r; i++ {
				for j := -r; j <= r; j++ {
					ma += wts[i+r][j+r] * at(a, y+i, x+j)
					mb += wts[i+r][j+r] * at(b, y+i, x+j)
				}
			}
			var vaa, vbb, vab float64
			for i := -r; i <= r; i++ {
				for j := -r; j <= r; j++ {
					da, db := at(a, y+i, x+j)-ma, at(b, y+i, x+j)-mb
					vaa += wts[i+r][j+r] * da * da
					vbb += wts[i+r][j+r] * db * db
					vab += wts[i+r][j+r] * da * db
				}
			}
			total += (2*ma*mb + c1) * (2*vab + c2) / ((ma*ma + mb*mb + c1) * (vaa + vbb + c2))
			count++
		}
	}
	return total / float64(count)
}

func TestSSIMIdenticalImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{28, 28}, {11, 11}, {16, 23}} {
		h, w := size[0], size[1]
		a := ssimRandom(rng, h, w, 0, 1)
		for _, f := range []func([]float32, []float32, int, int, SSIMOptions) (float64, error){SSIM, SSIMUncropped} {
			got, err := f(a, a, h, w, DefaultSSIM())
			if err != nil || got != 1 {
				t.Errorf("%d×%d: SSIM(a, a) = %v, %v; want exactly 1", h, w, got, err)
			}
		}
		x := ssimRandom(rng, h, w, -1, 1)
		for _, f := range []func([]float32, []float32, int, int) (float64, error){StructuralDissimilarity, StructuralDissimilarityUncropped} {
			if got, err := f(x, x, h, w); err != nil || got != 0 {
				t.Errorf("%d×%d: dissimilarity(x, x) = %v, %v; want exactly 0", h, w, got, err)
			}
		}
	}
	// A flat black image against itself: both variance terms vanish and C1, C2 keep the ratio at 1.
	zero := make([]float32, 28*28)
	if got, err := SSIM(zero, zero, 28, 28, DefaultSSIM()); err != nil || got != 1 {
		t.Errorf("SSIM(0, 0) = %v, %v; want 1", got, err)
	}
}

func TestSSIMSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		a, b := ssimRandom(rng, 28, 28, 0, 1), ssimRandom(rng, 28, 28, 0, 1)
		for _, f := range []func([]float32, []float32, int, int, SSIMOptions) (float64, error){SSIM, SSIMUncropped} {
			ab, _ := f(a, b, 28, 28, DefaultSSIM())
			ba, _ := f(b, a, 28, 28, DefaultSSIM())
			if ab != ba {
				t.Errorf("SSIM(a, b) = %.17g but SSIM(b, a) = %.17g", ab, ba)
			}
		}
	}
}

// Two flat images: σa² = σb² = σab = 0, so the contrast-structure factor is C2/C2 = 1 and every pixel
// of the map is the luminance term (2μaμb + C1)/(μa² + μb² + C1), cropped or not.
func TestSSIMConstantImages(t *testing.T) {
	fill := func(v float32) []float32 { return ssimPattern(28, 28, func(int, int) float32 { return v }) }
	// μa = 0.25, μb = 0.75, C1 = 0.01² = 0.0001: (0.375 + 0.0001)/(0.0625 + 0.5625 + 0.0001).
	want := 0.3751 / 0.6251
	for _, f := range []func([]float32, []float32, int, int, SSIMOptions) (float64, error){SSIM, SSIMUncropped} {
		got, err := f(fill(0.25), fill(0.75), 28, 28, DefaultSSIM())
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("flat 0.25 vs 0.75: %.15g, %v; want %.15g", got, err, want)
		}
	}
	// The same pair as paper pixels −0.5 and 0.5: (1 − 0.3751/0.6251)/2 = 0.25/1.2502.
	got, err := StructuralDissimilarity(fill(-0.5), fill(0.5), 28, 28)
	if want := 0.25 / 1.2502; err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("dissimilarity of flat −0.5 vs 0.5: %.15g, %v; want %.15g", got, err, want)
	}
	// Black against white: (0 + C1)/(0 + 1 + C1) = 0.0001/1.0001.
	got, _ = SSIM(fill(0), fill(1), 28, 28, DefaultSSIM())
	if want := 0.0001 / 1.0001; math.Abs(got-want) > 1e-12 {
		t.Errorf("black vs white: %.15g, want %.15g", got, want)
	}
}

func TestSSIMMatchesDirectSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	other := SSIMOptions{Window: 7, Sigma: 1, K1: 0.02, K2: 0.05, DataRange: 2}
	for _, c := range []struct {
		h, w   int
		hi     float64
		opts   SSIMOptions
		optTag string
	}{
		{16, 16, 1, DefaultSSIM(), "default"},
		{28, 28, 1, DefaultSSIM(), "default"},
		{13, 21, 1, DefaultSSIM(), "default"},
		{11, 11, 1, DefaultSSIM(), "default"},
		{16, 16, 2, other, "window 7, σ 1, K 0.02/0.05, L 2"},
		{9, 12, 2, other, "window 7, σ 1, K 0.02/0.05, L 2"},
	} {
		a := ssimRandom(rng, c.h, c.w, 0, c.hi)
		b := ssimRandom(rng, c.h, c.w, 0, c.hi)
		for _, crop := range []bool{true, false} {
			f := SSIM
			if !crop {
				f = SSIMUncropped
			}
			got, err := f(a, b, c.h, c.w, c.opts)
			want := ssimDirect(a, b, c.h, c.w, c.opts, crop)
			if err != nil || math.Abs(got-want) > 1e-9 {
				t.Errorf("%d×%d %s crop=%v: %.15g, %v; direct sum %.15g", c.h, c.w, c.optTag, crop, got, err, want)
			}
			t.Logf("%d×%d %s crop=%v: SSIM %.12f (direct %.12f, |Δ| %.1e)", c.h, c.w, c.optTag, crop, got, want, math.Abs(got-want))
		}
	}
}

// An image against its negative 1 − a: μb = 1 − μa, σb² = σa², σab = −σa² in every window, so the
// map is (2μa(1 − μa) + C1)(C2 − 2σa²)/((μa² + (1 − μa)² + C1)(2σa² + C2)), strongly negative where
// the image has contrast. Checked against the direct sum and against that formula with the window
// statistics of a alone.
func TestSSIMNegativeImage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const h, w = 16, 16
	a := ssimRandom(rng, h, w, 0, 1)
	neg := make([]float32, len(a))
	for i, v := range a {
		neg[i] = 1 - v
	}
	got, err := SSIM(a, neg, h, w, DefaultSSIM())
	if err != nil {
		t.Fatal(err)
	}
	if want := ssimDirect(a, neg, h, w, DefaultSSIM(), true); math.Abs(got-want) > 1e-9 {
		t.Errorf("SSIM(a, 1 − a) = %.15g, direct sum %.15g", got, want)
	}
	// The formula with the statistics of a only (2-D window, valid region).
	o := DefaultSSIM()
	r := o.Window / 2
	c1, c2 := 1e-4, 9e-4
	var total float64
	for y := r; y < h-r; y++ {
		for x := r; x < w-r; x++ {
			var s, m, m2 float64
			for i := -r; i <= r; i++ {
				for j := -r; j <= r; j++ {
					g := math.Exp(-float64(i*i+j*j) / (2 * o.Sigma * o.Sigma))
					v := float64(a[(y+i)*w+x+j])
					s, m, m2 = s+g, m+g*v, m2+g*v*v
				}
			}
			mu := m / s
			va := m2/s - mu*mu
			total += (2*mu*(1-mu) + c1) * (c2 - 2*va) / ((mu*mu + (1-mu)*(1-mu) + c1) * (2*va + c2))
		}
	}
	if want := total / float64((h-2*r)*(w-2*r)); math.Abs(got-want) > 1e-9 {
		t.Errorf("SSIM(a, 1 − a) = %.15g, formula %.15g", got, want)
	}
	if got > -0.9 {
		t.Errorf("SSIM of uniform noise against its negative %.6f, want close to −1", got)
	}
	t.Logf("16×16 uniform noise vs its negative: SSIM %.12f", got)
}

// Reference values computed with scikit-image 0.19.3 (Debian python3-skimage, scipy 1.10.1, numpy
// 1.24.2): m, S = skimage.metrics.structural_similarity(a, b, gaussian_weights=True, sigma=1.5,
// use_sample_covariance=False, data_range=1, full=True) on the float32 patterns below cast to
// float64; "cropped" is m, "uncropped" is S.mean(), the mean of skimage's full map, which 0.19.3
// filters with mode 'reflect' — the padding of Julia's assess_ssim(…; crop=false).
func TestSSIMScikitImageReference(t *testing.T) {
	a28 := ssimPattern(28, 28, func(y, x int) float32 { return float32(float64((7*y+13*x)%17) / 16) })
	b28 := ssimPattern(28, 28, func(y, x int) float32 { return float32(float64((5*y+3*x+(x*y)%7)%11) / 10) })
	n28 := make([]float32, len(a28))
	for i, v := range a28 {
		n28[i] = 1 - v
	}
	c := ssimPattern(20, 24, func(y, x int) float32 { return float32(float64((y*y+3*x)%13) / 12) })
	d := ssimPattern(20, 24, func(y, x int) float32 { return float32(float64((2*y+x*x)%9) / 8) })
	c2, d2 := make([]float32, len(c)), make([]float32, len(d))
	for i := range c {
		c2[i], d2[i] = 2*c[i], 2*d[i]
	}
	for _, ref := range []struct {
		name               string
		a, b               []float32
		h, w               int
		opts               SSIMOptions
		cropped, uncropped float64
	}{
		{"A28 vs B28", a28, b28, 28, 28, DefaultSSIM(), 0.06521342987541635, 0.004620008871721581},
		{"A28 vs 1 − A28", a28, n28, 28, 28, DefaultSSIM(), -0.9893083012359611, -0.988385587917036},
		{"C vs D (20×24)", c, d, 20, 24, DefaultSSIM(), -0.08754401900593245, -0.041582309986902086},
		// sigma=1.0 (skimage's window 2·int(3.5·1 + 0.5) + 1 = 9), K1=0.02, K2=0.05, data_range=2.
		{"2C vs 2D, σ 1", c2, d2, 20, 24, SSIMOptions{Window: 9, Sigma: 1, K1: 0.02, K2: 0.05, DataRange: 2},
			-0.0778241730322878, -0.025847732398442035},
	} {
		got, err := SSIM(ref.a, ref.b, ref.h, ref.w, ref.opts)
		if err != nil || math.Abs(got-ref.cropped) > 1e-12 {
			t.Errorf("%s: SSIM %.17g, %v; scikit-image %.17g", ref.name, got, err, ref.cropped)
		}
		gotU, err := SSIMUncropped(ref.a, ref.b, ref.h, ref.w, ref.opts)
		if err != nil || math.Abs(gotU-ref.uncropped) > 1e-12 {
			t.Errorf("%s: SSIMUncropped %.17g, %v; scikit-image full map %.17g", ref.name, gotU, err, ref.uncropped)
		}
		t.Logf("%s: SSIM %.17g (skimage %.17g), uncropped %.17g (skimage full map %.17g)",
			ref.name, got, ref.cropped, gotU, ref.uncropped)
	}
	// The paper's distance on the same pair given as [−1, 1] pixels 2p − 1 (exact in float32):
	// (1 − 0.06521342987541635)/2 with skimage.
	x, y := make([]float32, len(a28)), make([]float32, len(b28))
	for i := range a28 {
		x[i], y[i] = 2*a28[i]-1, 2*b28[i]-1
	}
	got, err := StructuralDissimilarity(x, y, 28, 28)
	if want := 0.46739328559204824; err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("StructuralDissimilarity %.17g, %v; scikit-image %.17g", got, err, want)
	}
	got, err = StructuralDissimilarityUncropped(x, y, 28, 28)
	if want := 0.4976899957896335; err != nil || math.Abs(got-want) > 1e-12 {
		t.Errorf("StructuralDissimilarityUncropped %.17g, %v; scikit-image full map %.17g", got, err, want)
	}
}

func TestSSIMDissimilarityInUnitInterval(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	check := func(name string, x, y []float32) {
		t.Helper()
		for _, f := range []func([]float32, []float32, int, int) (float64, error){StructuralDissimilarity, StructuralDissimilarityUncropped} {
			d, err := f(x, y, 28, 28)
			if err != nil || !(d >= 0 && d <= 1) {
				t.Errorf("%s: dissimilarity %v, %v; want in [0, 1]", name, d, err)
			}
		}
	}
	for i := range 50 {
		x, y := ssimRandom(rng, 28, 28, -1, 1), ssimRandom(rng, 28, 28, -1, 1)
		check("random pair", x, y)
		neg := make([]float32, len(x))
		for j, v := range x {
			neg[j] = -v
		}
		check("image vs its negative", x, neg)
		if i == 0 {
			d, _ := StructuralDissimilarity(x, neg, 28, 28)
			t.Logf("uniform noise in [−1, 1] vs its negative: dissimilarity %.6f", d)
		}
	}
	// Extremes of the pixel range: a black/white checkerboard against its inverse.
	cb := ssimPattern(28, 28, func(y, x int) float32 { return float32(2*((x+y)%2) - 1) })
	inv := ssimPattern(28, 28, func(y, x int) float32 { return float32(1 - 2*((x+y)%2)) })
	check("checkerboard vs inverse", cb, inv)
	d, _ := StructuralDissimilarity(cb, inv, 28, 28)
	t.Logf("checkerboard vs its inverse: dissimilarity %.6f", d)
}

// More noise on the same image lowers the SSIM, step by step.
func TestSSIMDecreasesWithNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const h, w = 28, 28
	a := ssimPattern(h, w, func(y, x int) float32 {
		dy, dx := float64(y)-13.5, float64(x)-13.5
		return float32(0.5 + 0.4*math.Cos(math.Sqrt(dy*dy+dx*dx)/3))
	})
	z := make([]float64, len(a))
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	prev := 1.0
	for _, s := range []float64{0.001, 0.01, 0.03, 0.1, 0.3, 1, 3} {
		b := make([]float32, len(a))
		for i, v := range a {
			b[i] = float32(float64(v) + s*z[i])
		}
		got, err := SSIM(a, b, h, w, DefaultSSIM())
		if err != nil {
			t.Fatal(err)
		}
		if !(got < prev) {
			t.Errorf("noise sd %v: SSIM %.6f, not below %.6f at the previous level", s, got, prev)
		}
		t.Logf("noise sd %-5v SSIM %.6f", s, got)
		prev = got
	}
}

func TestSSIMErrors(t *testing.T) {
	img := make([]float32, 28*28)
	def := DefaultSSIM()
	for _, c := range []struct {
		name string
		a, b []float32
		h, w int
		opts SSIMOptions
	}{
		{"a too short", img[:783], img, 28, 28, def},
		{"b too long", img, append(img[:28*28:28*28], 0), 28, 28, def},
		{"zero height", img, img, 0, 28, def},
		{"negative width", img, img, 28, -28, def},
		{"height below window", img[:10*28], img[:10*28], 10, 28, def},
		{"width below window", img[:28*10], img[:28*10], 28, 10, def},
		{"zero options", img, img, 28, 28, SSIMOptions{}},
		{"even window", img, img, 28, 28, SSIMOptions{Window: 10, Sigma: 1.5, K1: 0.01, K2: 0.03, DataRange: 1}},
		{"zero sigma", img, img, 28, 28, SSIMOptions{Window: 11, K1: 0.01, K2: 0.03, DataRange: 1}},
		{"NaN sigma", img, img, 28, 28, SSIMOptions{Window: 11, Sigma: math.NaN(), K1: 0.01, K2: 0.03, DataRange: 1}},
		{"negative K1", img, img, 28, 28, SSIMOptions{Window: 11, Sigma: 1.5, K1: -0.01, K2: 0.03, DataRange: 1}},
		{"zero K2", img, img, 28, 28, SSIMOptions{Window: 11, Sigma: 1.5, K1: 0.01, DataRange: 1}},
		{"zero data range", img, img, 28, 28, SSIMOptions{Window: 11, Sigma: 1.5, K1: 0.01, K2: 0.03}},
		{"infinite data range", img, img, 28, 28, SSIMOptions{Window: 11, Sigma: 1.5, K1: 0.01, K2: 0.03, DataRange: math.Inf(1)}},
	} {
		if _, err := SSIM(c.a, c.b, c.h, c.w, c.opts); err == nil {
			t.Errorf("%s: SSIM gave no error", c.name)
		}
		if _, err := SSIMUncropped(c.a, c.b, c.h, c.w, c.opts); err == nil {
			t.Errorf("%s: SSIMUncropped gave no error", c.name)
		}
	}
	if _, err := StructuralDissimilarity(img[:100], img[:100], 10, 10); err == nil {
		t.Error("StructuralDissimilarity of 10×10 images (below the 11×11 window) gave no error")
	}
	// An image exactly the window's size is allowed (one valid pixel), as in scikit-image.
	if _, err := SSIM(img[:121], img[:121], 11, 11, def); err != nil {
		t.Errorf("11×11 image: %v", err)
	}
}

func BenchmarkSSIM(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, y := ssimRandom(rng, 28, 28, 0, 1), ssimRandom(rng, 28, 28, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SSIM(x, y, 28, 28, DefaultSSIM()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSSIMUncropped(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, y := ssimRandom(rng, 28, 28, 0, 1), ssimRandom(rng, 28, 28, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SSIMUncropped(x, y, 28, 28, DefaultSSIM()); err != nil {
			b.Fatal(err)
		}
	}
}
