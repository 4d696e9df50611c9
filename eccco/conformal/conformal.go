package conformal

import (
	"fmt"
	"math"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// Options configure calibration and the smooth set size. Start from DefaultOptions: the zero value is
// invalid (α = 0 and T = 0 are rejected).
type Options struct {
	// Alpha is the target error rate α ∈ (0, 1); the sets aim at coverage 1 − α. The paper uses 0.05.
	Alpha float64
	// FiniteSampleCorrection selects the ⌈(n+1)(1−α)⌉-th smallest calibration score as q̂ (the quantile
	// with the split-conformal coverage guarantee) instead of the plain (1 − α) quantile that the paper's
	// code uses. See the package documentation for both definitions.
	FiniteSampleCorrection bool
	// Temperature is T > 0 of the soft assignment C_k = σ((q̂ − s_k)/T). The paper uses 0.1.
	Temperature float64
	// Kappa is κ ≥ 0 of Ω = max(0, Σ_k C_k − κ), the set size that is not penalised. The paper uses 1.
	Kappa float64
	// EmptySetRule, a compatibility switch (off by default), reproduces ConformalPrediction.jl's
	// smooth_size_loss (v0.1.12 src/conformal_models/ConformalTraining/losses.jl:60-70): for inputs whose
	// hard set is empty, Ω = max(0, Σ_k (1 − C_k) − κ).
	EmptySetRule bool
	// MeanMemberProbabilities, a compatibility switch (off by default), computes an ensemble's Ω from the
	// mean of its members' probabilities, as ConformalPrediction.jl did through MLJ's ensemble prediction
	// (MLJEnsembles v0.3.3 averages member probabilities, src/ensembles.jl:102-105; ECCCo.jl wraps
	// EnsembleModel in conformal_model,
	// experiments/models/default_models.jl:74,90 and train_models.jl:70), instead of from the softmax of
	// the mean logits that the classifier's Logits gives (and that the gate, the energy and the loss keep).
	// A single model is unaffected.
	MeanMemberProbabilities bool
}

// DefaultOptions returns the paper's settings: α = 0.05, plain quantile, T = 0.1, κ = 1.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, Temperature: 0.1, Kappa: 1}
}

// Validate reports invalid options.
func (o Options) Validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("conformal: Alpha = %v, must be in (0, 1)", o.Alpha)
	case !(o.Temperature > 0) || math.IsInf(o.Temperature, 0):
		return fmt.Errorf("conformal: Temperature = %v, must be positive and finite", o.Temperature)
	case !(o.Kappa >= 0) || math.IsInf(o.Kappa, 0):
		return fmt.Errorf("conformal: Kappa = %v, must be non-negative and finite", o.Kappa)
	}
	return nil
}

// Calibrated is a classifier wrapped by split conformal prediction: the classifier together with the
// quantile q̂ of its calibration scores. It is immutable after Calibrate.
type Calibrated struct {
	// Clf is the wrapped classifier.
	Clf models.Classifier
	// QHat is the calibrated threshold q̂ on the nonconformity score 1 − softmax.
	QHat float64
	// Opts are the options it was calibrated with (α, quantile choice, T, κ).
	Opts Options
	// NumCalibration is the number of calibration rows n.
	NumCalibration int
}

// Calibrate computes the nonconformity scores of the calibration set under clf and their quantile q̂
// (see Options and the package documentation).
func Calibrate(backend compute.Backend, clf models.Classifier, cal *data.Dataset, opts Options) (*Calibrated, error) {
	return CalibrateKept(nil, backend, clf, cal, opts)
}

// CalibrateKept is Calibrate with the model's probability graph kept in g (models.Graphs) for later calls:
// the same q̂, bit for bit.
func CalibrateKept(g *models.Graphs, backend compute.Backend, clf models.Classifier, cal *data.Dataset, opts Options) (*Calibrated, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if clf == nil {
		return nil, fmt.Errorf("conformal: nil classifier")
	}
	scores, err := scores(g, backend, clf, cal)
	if err != nil {
		return nil, err
	}
	q, err := Quantile(scores, opts.Alpha, opts.FiniteSampleCorrection)
	if err != nil {
		return nil, err
	}
	return &Calibrated{Clf: clf, QHat: q, Opts: opts, NumCalibration: len(scores)}, nil
}

// FromScores wraps clf with the q̂ of calibration scores computed elsewhere: the scores a conformal model
// stored when it was calibrated (the authors' trained models carry theirs, models.Authored). It is
// CalibrateKept without recomputing the scores: the same q̂ for the same scores.
func FromScores(clf models.Classifier, scores []float64, opts Options) (*Calibrated, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if clf == nil {
		return nil, fmt.Errorf("conformal: nil classifier")
	}
	q, err := Quantile(scores, opts.Alpha, opts.FiniteSampleCorrection)
	if err != nil {
		return nil, err
	}
	return &Calibrated{Clf: clf, QHat: q, Opts: opts, NumCalibration: len(scores)}, nil
}

// Scores returns the nonconformity scores s_i = 1 − softmax(clf(x_i))[y_i] of the rows of d.
func Scores(backend compute.Backend, clf models.Classifier, d *data.Dataset) ([]float64, error) {
	return scores(nil, backend, clf, d)
}

func scores(g *models.Graphs, backend compute.Backend, clf models.Classifier, d *data.Dataset) ([]float64, error) {
	if err := checkData(clf, d, "calibration"); err != nil {
		return nil, err
	}
	probs, err := models.KeptProbabilities(g, backend, clf, d.X)
	if err != nil {
		return nil, fmt.Errorf("conformal: %w", err)
	}
	k := clf.NumClasses()
	scores := make([]float64, d.N())
	for i, y := range d.Y {
		scores[i] = 1 - float64(probs[i*k+y])
	}
	return scores, nil
}

func checkData(clf models.Classifier, d *data.Dataset, what string) error {
	switch {
	case d == nil || d.N() == 0:
		return fmt.Errorf("conformal: empty %s set", what)
	case d.D() != clf.NumFeatures():
		return fmt.Errorf("conformal: %s set has %d features, the classifier expects %d", what, d.D(), clf.NumFeatures())
	case len(d.X) != d.N()*d.D():
		return fmt.Errorf("conformal: %s set has %d values for %d rows of %d features", what, len(d.X), d.N(), d.D())
	}
	for i, y := range d.Y {
		if y < 0 || y >= clf.NumClasses() {
			return fmt.Errorf("conformal: %s row %d has label %d, the classifier has %d classes", what, i, y, clf.NumClasses())
		}
	}
	return nil
}

// Quantile returns q̂ of the scores for error rate alpha: the plain (1 − α) quantile (type 7, as Julia's
// Statistics.quantile), or with finiteSample the ⌈(n+1)(1−α)⌉-th smallest score (1 when that rank exceeds
// n). The scores are not modified.
func Quantile(scores []float64, alpha float64, finiteSample bool) (float64, error) {
	if !(alpha > 0 && alpha < 1) {
		return 0, fmt.Errorf("conformal: Alpha = %v, must be in (0, 1)", alpha)
	}
	n := len(scores)
	if n == 0 {
		return 0, fmt.Errorf("conformal: no calibration scores")
	}
	v := slices.Clone(scores)
	for _, s := range v {
		if math.IsNaN(s) {
			return 0, fmt.Errorf("conformal: NaN calibration score")
		}
	}
	slices.Sort(v)
	if finiteSample {
		// The small slack keeps products such as 10·0.9 = 9.000000000000002 from rounding up a rank.
		rank := int(math.Ceil(float64(n+1)*(1-alpha) - 1e-9))
		if rank > n {
			return 1, nil
		}
		return v[max(rank, 1)-1], nil
	}
	h := float64(n-1) * (1 - alpha)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return v[n-1], nil
	}
	return v[lo] + (h-float64(lo))*(v[lo+1]-v[lo]), nil
}

// setsFromProbs returns the hard sets {k : 1 − p_k ≤ q̂} of row-major [n, k] probabilities.
func setsFromProbs(probs []float32, k int, qHat float64) [][]int {
	sets := make([][]int, len(probs)/k)
	for i := range sets {
		set := []int{}
		for j, p := range probs[i*k : (i+1)*k] {
			if 1-float64(p) <= qHat {
				set = append(set, j)
			}
		}
		sets[i] = set
	}
	return sets
}

// PredictionSets returns the hard prediction set {k : s_k(x) ≤ q̂} (class indices, increasing) of each row
// of x (row-major, n·D values). Sets may be empty.
func (c *Calibrated) PredictionSets(backend compute.Backend, x []float32) ([][]int, error) {
	d := c.Clf.NumFeatures()
	if len(x) == 0 || len(x)%d != 0 {
		return nil, fmt.Errorf("conformal: input has %d values, not a positive number of rows of %d features", len(x), d)
	}
	probs, err := models.Probabilities(backend, c.Clf, x)
	if err != nil {
		return nil, fmt.Errorf("conformal: %w", err)
	}
	return setsFromProbs(probs, c.Clf.NumClasses(), c.QHat), nil
}

// Coverage summarises prediction sets on labelled test data.
type Coverage struct {
	// N is the number of test rows.
	N int
	// Coverage is the fraction of rows whose set contains the true label.
	Coverage float64
	// MeanSetSize is the mean number of classes per set.
	MeanSetSize float64
	// EmptyFraction is the fraction of rows with an empty set.
	EmptyFraction float64
}

// Evaluate computes the empirical coverage and mean set size of the prediction sets on test.
func (c *Calibrated) Evaluate(backend compute.Backend, test *data.Dataset) (Coverage, error) {
	if err := checkData(c.Clf, test, "test"); err != nil {
		return Coverage{}, err
	}
	sets, err := c.PredictionSets(backend, test.X)
	if err != nil {
		return Coverage{}, err
	}
	var covered, size, empty int
	for i, set := range sets {
		if slices.Contains(set, test.Y[i]) {
			covered++
		}
		size += len(set)
		if len(set) == 0 {
			empty++
		}
	}
	n := float64(len(sets))
	return Coverage{N: len(sets), Coverage: float64(covered) / n, MeanSetSize: float64(size) / n,
		EmptyFraction: float64(empty) / n}, nil
}

// InductiveSplit splits d as the authors' code did, without shuffling: the first round(trainRatio·N) rows
// (round half to even, as Julia's round) fit the model and the remaining rows calibrate it, both in d's
// row order. ConformalPrediction.jl v0.1.12 wrapped every model of the authors' experiments
// (ECCCo.jl experiments/models/train_models.jl:70-71) in an inductive classifier whose fit calls
// `train, calibration = partition(eachindex(y), conf_model.train_ratio)`
// (src/conformal_models/inductive_classification.jl:21, train_ratio = 0.5 at l.45), fits the model on
// the first part (l.91) and scores the second (l.94); MLJBase's partition does not shuffle unless asked.
// A training split in file order (data.Dataset.BalancedSplit keeps it, as CE.jl's train_test_split did)
// thus fits the model on the first half of the file: for German Credit, whose file is sorted by class,
// a half that is almost all "good".
func InductiveSplit(d *data.Dataset, trainRatio float64) (fit, cal *data.Dataset, err error) {
	if d == nil {
		return nil, nil, fmt.Errorf("conformal: nil data set")
	}
	if !(trainRatio > 0 && trainRatio < 1) {
		return nil, nil, fmt.Errorf("conformal: train ratio %v, must be in (0, 1)", trainRatio)
	}
	n := d.N()
	nFit := int(math.RoundToEven(trainRatio * float64(n)))
	if nFit < 1 || nFit > n-1 {
		return nil, nil, fmt.Errorf("conformal: cannot split %d rows into non-empty parts with train ratio %v", n, trainRatio)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx[:nFit]), d.Subset(idx[nFit:]), nil
}

// AuthorsTrainRatio is ConformalPrediction.jl's default train_ratio, 0.5 (InductiveSplit).
const AuthorsTrainRatio = 0.5

// SplitCalibration splits d at random into a fitting part and a calibration part holding
// round(calFraction·N) rows (the authors calibrate on half of the training split: calFraction = 0.5).
// The split is a deterministic function of seed (data.NewRand); both parts keep d's row order.
func SplitCalibration(d *data.Dataset, calFraction float64, seed uint64) (fit, cal *data.Dataset, err error) {
	if d == nil {
		return nil, nil, fmt.Errorf("conformal: nil data set")
	}
	if !(calFraction > 0 && calFraction < 1) {
		return nil, nil, fmt.Errorf("conformal: calibration fraction %v, must be in (0, 1)", calFraction)
	}
	n := d.N()
	nCal := int(math.Round(calFraction * float64(n)))
	if nCal < 1 || nCal > n-1 {
		return nil, nil, fmt.Errorf("conformal: cannot split %d rows into non-empty parts with fraction %v", n, calFraction)
	}
	perm := data.NewRand(seed).Perm(n)
	calIdx, fitIdx := slices.Clone(perm[:nCal]), slices.Clone(perm[nCal:])
	slices.Sort(calIdx)
	slices.Sort(fitIdx)
	return d.Subset(fitIdx), d.Subset(calIdx), nil
}
