package compare

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The rule by which a difference counts for or against a claim (ClaimRule says it in words).
const (
	// Confidence is the level of every interval of a claim's difference: two-sided Student t.
	Confidence = 0.95
	// Materiality is the least size a difference must have to count, relative to its Estimate.Scale (the
	// larger absolute mean of the cells it is computed from, or 1 for a difference of relative gains).
	Materiality = 0.05
)

// Tests an Estimate was made by.
const (
	// TestPaired: the difference computed within each run, whose generators explain the same factuals,
	// then its mean over the runs with a t interval on n − 1 degrees of freedom.
	TestPaired = "paired over runs"
	// TestWelch: the difference of the cells' means with Welch's standard error (the delta method for a
	// difference that is not linear in the means) and Welch–Satterthwaite degrees of freedom.
	TestWelch = "Welch"
)

// ClaimRule states how a difference counts for a claim, once, for every place that prints it.
const ClaimRule = "a difference counts for (or against) a claim only when its 95 % interval excludes zero on the claimed (or the other) side and its size is at least 5 % of the metric (the larger absolute mean of the cells it compares; for a difference of relative gains, 5 points); " +
	"the interval is paired over runs, whose generators explain the same factuals, where the run means are kept, and Welch's otherwise (the published tables, which give mean, sd and the paper's number of runs); " +
	"where a claim says a difference is not material (\"does not impede\"), it counts for the claim when the interval's upper end lies below 5 % of the metric"

// Estimate is a difference with its interval at Confidence.
type Estimate struct {
	// Value is the point estimate, SE its standard error, DF the degrees of freedom of the t interval
	// [Lo, Hi] (+Inf where SE is 0).
	Value, SE, DF, Lo, Hi float64
	// Scale is what Materiality is relative to.
	Scale float64
	// Test is TestPaired or TestWelch; Runs the runs paired, or the fewest runs of a cell (Welch).
	Test string
	Runs int
}

// Effect is the difference relative to its scale (NaN where the scale is 0).
func (e Estimate) Effect() float64 {
	if e.Scale == 0 {
		return math.NaN()
	}
	return e.Value / e.Scale
}

// Material reports |Value| ≥ Materiality·Scale.
func (e Estimate) Material() bool { return e.Scale > 0 && math.Abs(e.Value) >= Materiality*e.Scale }

// (JudgeAt applies the same test at another materiality.)

// tQuantile is Student t's quantile p on df degrees of freedom (the normal one for df = +Inf).
func tQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Quantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// interval fills Lo and Hi from Value, SE and DF.
func (e *Estimate) interval() {
	if e.SE == 0 {
		e.DF, e.Lo, e.Hi = math.Inf(1), e.Value, e.Value
		return
	}
	q := tQuantile(1-(1-Confidence)/2, e.DF)
	e.Lo, e.Hi = e.Value-q*e.SE, e.Value+q*e.SE
}

// PairedEstimate is the mean of per-run differences d with its t interval on len(d) − 1 degrees of
// freedom; ok is false for fewer than two runs or a NaN.
func PairedEstimate(d []float64, scale float64) (Estimate, bool) {
	n := len(d)
	if n < 2 {
		return Estimate{}, false
	}
	mean, sd := meanSD(d)
	if math.IsNaN(mean) || math.IsNaN(sd) {
		return Estimate{}, false
	}
	e := Estimate{Value: mean, SE: sd / math.Sqrt(float64(n)), DF: float64(n - 1), Scale: scale, Test: TestPaired, Runs: n}
	e.interval()
	return e, true
}

// WelchEstimate is f at the means m of independent cells with sd s over n runs: the standard error
// by the delta method, √Σ (∂f/∂mᵢ)²·sᵢ²/nᵢ (Welch's for a linear f), the gradient by central differences
// of step deltaStep(mᵢ), and Welch–Satterthwaite degrees of freedom. ok is false where a cell has fewer
// than two runs or f is not finite.
func WelchEstimate(f func([]float64) float64, m, s []float64, n []int, scale float64) (Estimate, bool) {
	v := f(m)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Estimate{}, false
	}
	runs := math.MaxInt
	var vr, dfDen float64
	x := append([]float64(nil), m...)
	for i := range m {
		if n[i] < 2 || math.IsNaN(s[i]) {
			return Estimate{}, false
		}
		runs = min(runs, n[i])
		h := deltaStep(m[i])
		x[i] = m[i] + h
		up := f(x)
		x[i] = m[i] - h
		down := f(x)
		x[i] = m[i]
		g := (up - down) / (2 * h)
		c := g * g * s[i] * s[i] / float64(n[i])
		vr += c
		dfDen += c * c / float64(n[i]-1)
	}
	e := Estimate{Value: v, SE: math.Sqrt(vr), Scale: scale, Test: TestWelch, Runs: runs}
	if dfDen > 0 {
		e.DF = vr * vr / dfDen
	}
	e.interval()
	return e, true
}

// deltaStep is the step of WelchEstimate's central differences at a mean m.
func deltaStep(m float64) float64 { return 1e-6 * math.Max(1, math.Abs(m)) }
