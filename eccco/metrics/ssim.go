package metrics

import (
	"fmt"
	"math"
)

// SSIMOptions are the parameters of the structural similarity index (Wang et al., 2004).
type SSIMOptions struct {
	// Window is the side of the square Gaussian window in pixels (odd, ≥ 1); it also fixes how much
	// SSIM crops: (Window−1)/2 pixels at each border.
	Window int
	// Sigma is the standard deviation of the Gaussian window in pixels (> 0).
	Sigma float64
	// K1 and K2 give the stabilising constants C1 = (K1·DataRange)² and C2 = (K2·DataRange)² (> 0).
	K1, K2 float64
	// DataRange is the dynamic range L of the pixel values (> 0): 1 for values in [0, 1].
	DataRange float64
}

// DefaultSSIM returns the standard parameters of Wang et al. (2004): an 11×11 Gaussian window with
// σ = 1.5, K1 = 0.01, K2 = 0.03 and dynamic range L = 1.
func DefaultSSIM() SSIMOptions {
	return SSIMOptions{Window: 11, Sigma: 1.5, K1: 0.01, K2: 0.03, DataRange: 1}
}

func (o SSIMOptions) validate() error {
	switch {
	case o.Window < 1 || o.Window%2 == 0:
		return fmt.Errorf("ssim: window %d must be odd and positive", o.Window)
	case !(o.Sigma > 0) || math.IsInf(o.Sigma, 0):
		return fmt.Errorf("ssim: sigma %v must be positive and finite", o.Sigma)
	case !(o.K1 > 0) || math.IsInf(o.K1, 0) || !(o.K2 > 0) || math.IsInf(o.K2, 0):
		return fmt.Errorf("ssim: K1 %v and K2 %v must be positive and finite", o.K1, o.K2)
	case !(o.DataRange > 0) || math.IsInf(o.DataRange, 0):
		return fmt.Errorf("ssim: data range %v must be positive and finite", o.DataRange)
	}
	return nil
}

// SSIM returns the mean structural similarity of two single-channel height×width images (row-major),
// taken as they are (values typically in [0, opts.DataRange]; no mapping). It computes what
// scikit-image's structural_similarity(a, b, gaussian_weights=True, sigma=opts.Sigma,
// use_sample_covariance=False, data_range=opts.DataRange) computes (skimage/metrics/
// _structural_similarity.py), the implementation that Wang et al. (2004) recommend:
//
//   - local means μa, μb, variances σa², σb² and covariance σab from Gaussian-weighted windows of
//     opts.Window taps a side, weights exp(−t²/2σ²) for t = −r…r, r = (Window−1)/2, normalised to sum 1
//     (scipy.ndimage's kernel; with σ = 1.5 skimage picks r = int(3.5σ + 0.5) = 5, i.e. 11 taps, and
//     Julia's KernelFactors.gaussian(1.5, 11) is the same kernel); population moments
//     (σa² = E[a²] − μa², no N/(N−1));
//   - the map S = (2μaμb + C1)(2σab + C2) / ((μa² + μb² + C1)(σa² + σb² + C2)),
//     C1 = (K1·L)², C2 = (K2·L)²;
//   - the mean of S over the valid region only: skimage crops pad = (win_size − 1)/2 = r pixels at each
//     border (its `if not padding_mode: S = crop(S, pad)`), here (height − 2r)×(width − 2r) pixels,
//     18×18 for 28×28 images.
//
// Padding: skimage filters the whole image with a padded Gaussian filter and then crops (0.19.3, checked
// here, passes mode 'reflect' to its gaussian; the current source leaves the mode to its gaussian
// wrapper's default unless padding_mode is given, and with padding_mode set it skips the crop). A window
// of radius r centred at least r pixels inside the border never reads a padded value, so after the crop
// the padding convention has no effect on the result: this implementation filters only the valid region
// and pads nothing, and agrees with skimage whatever its padding mode (to about 1e-16 against 0.19.3 in
// the tests).
//
// The authors' code (ECCCo.jl, src/utils.jl:55-59: ssim_dist = (1 − assess_ssim(x, y))/2) used Julia's
// ImageQualityIndexes.assess_ssim with its default crop=false (v0.3.7 src/ssim.jl:88) instead: the same
// kernel, constants and formula, but the map is averaged over every pixel, with the windows near the
// border reading "symmetric" padding (the edge pixel repeated: … b a | a b …). SSIMUncropped computes
// that variant; with crop=true Julia agrees with SSIM. Julia also works in Float32 for Float32 images,
// skimage in the input's float type; here all arithmetic is float64.
//
// Errors: lengths other than height·width, non-positive sizes, images smaller than the window (skimage
// refuses these too) and invalid options. NaN or infinite pixels give NaN.
func SSIM(a, b []float32, height, width int, opts SSIMOptions) (float64, error) {
	return ssimMean(a, b, height, width, opts, true, nil)
}

// SSIMUncropped returns the mean SSIM over all height×width pixels, the way Julia's
// ImageQualityIndexes.assess_ssim(x, ref) does with its default crop=false (the authors' ECCCo.jl
// code): windows that reach beyond the border read half-sample symmetric padding (Julia's
// imfilter(…, "symmetric"), scipy.ndimage's mode 'reflect': index −1 reads 0, −2 reads 1, and
// likewise at the far border). Everything else is as in SSIM.
func SSIMUncropped(a, b []float32, height, width int, opts SSIMOptions) (float64, error) {
	return ssimMean(a, b, height, width, opts, false, nil)
}

// StructuralDissimilarity is the paper's image distance: both images (row-major height×width,
// pixels in [−1, 1]) are mapped to [0, 1] by p ↦ (p + 1)/2 and the result is (1 − SSIM)/2 with
// DefaultSSIM, in [0, 1] (0 for identical images). SSIM crops the border as scikit-image does; see
// StructuralDissimilarityUncropped for the authors' Julia variant.
func StructuralDissimilarity(a, b []float32, height, width int) (float64, error) {
	s, err := ssimMean(a, b, height, width, DefaultSSIM(), true, mapUnit)
	if err != nil {
		return 0, err
	}
	return (1 - s) / 2, nil
}

// StructuralDissimilarityUncropped is StructuralDissimilarity with SSIMUncropped: the authors' ssim_dist
// (ECCCo.jl), (1 − assess_ssim(x, y))/2 on pixels mapped to [0, 1], up to their Float32 arithmetic.
func StructuralDissimilarityUncropped(a, b []float32, height, width int) (float64, error) {
	s, err := ssimMean(a, b, height, width, DefaultSSIM(), false, mapUnit)
	if err != nil {
		return 0, err
	}
	return (1 - s) / 2, nil
}

// mapUnit maps a pixel from [−1, 1] to [0, 1].
func mapUnit(p float32) float64 { return (float64(p) + 1) / 2 }

// defaultSSIMKernel is the 11-tap, σ = 1.5 kernel of DefaultSSIM, computed once.
var defaultSSIMKernel = ssimGaussian(11, 1.5)

// ssimGaussian returns the 1-D Gaussian of the given odd number of taps, normalised to sum 1.
func ssimGaussian(window int, sigma float64) []float64 {
	r := window / 2
	k := make([]float64, window)
	var sum float64
	for t := -r; t <= r; t++ {
		v := math.Exp(-float64(t*t) / (2 * sigma * sigma))
		k[t+r] = v
		sum += v
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// ssimMean is SSIM (crop) or SSIMUncropped (no crop); pixel, when not nil, maps each input value first.
// It is the set form's arithmetic (ssimGeom) for a set of one.
func ssimMean(a, b []float32, height, width int, opts SSIMOptions, crop bool, pixel func(float32) float64) (float64, error) {
	g, err := newSSIMGeom(height, width, opts, crop, pixel)
	if err != nil {
		return 0, err
	}
	if len(a) != g.n || len(b) != g.n {
		return 0, fmt.Errorf("ssim: images of %d and %d values, want %d×%d = %d", len(a), len(b), height, width, g.n)
	}
	return g.mean(g.prepare(a), g.prepare(b), g.newWork()), nil
}
