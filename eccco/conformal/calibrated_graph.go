package conformal

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// SmoothSetSize builds Ω per row, shape [B], of the inputs x [B, D] with the calibrated q̂ and the
// options' T and κ (and the empty-set rule when Options.EmptySetRule is set). It is differentiable in x.
func (c *Calibrated) SmoothSetSize(x *Node) *Node {
	return c.smoothFromLogits(c.OmegaLogits(x, nil))
}

// stackedClassifier is an ensemble whose members can be evaluated side by side (models.Model).
type stackedClassifier interface {
	NumMembers() int
	StackedLogits(x *Node) *Node // [M, B, D] → [M, B, K]
}

// OmegaLogits are the logits Ω is computed from for inputs x [B, D]: logits (the classifier's, computed
// from x when nil), or, with Options.MeanMemberProbabilities and an ensemble, log of the mean of its
// members' probabilities, whose softmax is that mean.
func (c *Calibrated) OmegaLogits(x, logits *Node) *Node {
	if c.Opts.MeanMemberProbabilities {
		if s, ok := c.Clf.(stackedClassifier); ok && s.NumMembers() > 1 {
			members := s.StackedLogits(BroadcastPrefix(x, s.NumMembers()))
			return Log(ReduceMean(Softmax(members, -1), 0))
		}
	}
	if logits == nil {
		logits = c.Clf.Logits(x)
	}
	return logits
}

func (c *Calibrated) smoothFromLogits(logits *Node) *Node {
	if c.Opts.EmptySetRule {
		return SmoothSetSizeEmptyRule(logits, c.QHat, c.Opts.Temperature, c.Opts.Kappa)
	}
	return SmoothSetSize(logits, c.QHat, c.Opts.Temperature, c.Opts.Kappa)
}

// GatedSmoothSetSize is SmoothSetSize with the ECCCo code's gating (see GateBelowHalf): Ω = 0 for rows
// whose probability of the target class (indices [B]) is below 0.5. A compatibility switch, not the
// paper's formula.
func (c *Calibrated) GatedSmoothSetSize(x, target *Node) *Node {
	logits := c.Clf.Logits(x)
	return GateBelowHalf(c.smoothFromLogits(c.OmegaLogits(x, logits)), logits, target)
}

// ConfigurableLoss builds the configurable classification loss per row, shape [B], of the inputs x
// [B, D] for target class indices [B], with the calibrated q̂ and the options' temperature (see the
// package function ConfigurableLoss). It is differentiable in x.
func (c *Calibrated) ConfigurableLoss(x, target *Node, opts LossOptions) *Node {
	return ConfigurableLoss(c.Clf.Logits(x), target, c.QHat, c.Opts.Temperature, opts)
}

// Grid holds conformal quantities of a 2-D classifier on a regular n×n grid: the data behind the ECCCo
// appendix figure "Prediction set size (left), smooth set size loss (centre) and configurable
// classification loss (right)". Matrices are indexed [iy][ix], the point (X[ix], Y[iy]).
type Grid struct {
	// X and Y are the n grid coordinates along the first and second feature, increasing.
	X, Y []float64
	// Target is the class the configurable loss was computed for.
	Target int
	// SetSize is the hard prediction set size.
	SetSize [][]float64
	// SmoothSetSize is Ω (with the calibrated options).
	SmoothSetSize [][]float64
	// Loss is the configurable classification loss for Target.
	Loss [][]float64
}

// GridValues evaluates the hard set size, Ω and the configurable loss (for class target, with lossOpts)
// on an n×n grid spanning xRange × yRange (endpoints included). The classifier must take 2 features.
func GridValues(backend compute.Backend, c *Calibrated, xRange, yRange [2]float64, n, target int, lossOpts LossOptions) (*Grid, error) {
	switch {
	case c == nil:
		return nil, fmt.Errorf("conformal: nil calibrated classifier")
	case c.Clf.NumFeatures() != 2:
		return nil, fmt.Errorf("conformal: grid values need a 2-feature classifier, this one has %d", c.Clf.NumFeatures())
	case n < 2:
		return nil, fmt.Errorf("conformal: grid size %d, need at least 2", n)
	case target < 0 || target >= c.Clf.NumClasses():
		return nil, fmt.Errorf("conformal: target class %d outside [0, %d)", target, c.Clf.NumClasses())
	case !(xRange[0] < xRange[1]) || !(yRange[0] < yRange[1]):
		return nil, fmt.Errorf("conformal: empty grid range %v × %v", xRange, yRange)
	case c.Opts.Validate() != nil:
		return nil, c.Opts.Validate()
	}
	if m := lossOpts.Matrix; m != nil {
		if err := checkMatrix(m, c.Clf.NumClasses()); err != nil {
			return nil, err
		}
	}
	if lossOpts.Form != LossStutz && lossOpts.Form != LossLogOdds {
		return nil, fmt.Errorf("conformal: unknown loss form %d", lossOpts.Form)
	}
	lin := func(r [2]float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = r[0] + (r[1]-r[0])*float64(i)/float64(n-1)
		}
		return v
	}
	g := &Grid{X: lin(xRange), Y: lin(yRange), Target: target}
	pts := make([]float32, 0, 2*n*n)
	for _, y := range g.Y {
		for _, x := range g.X {
			pts = append(pts, float32(x), float32(y))
		}
	}
	k := c.Clf.NumClasses()
	out, width, err := models.Outputs(backend, c.Clf, pts, func(clf models.Classifier, x *Node) *Node {
		logits := clf.Logits(x)
		targets := Const(x.Graph(), make([]int32, x.Shape().Dimensions[0]))
		if target != 0 {
			targets = AddScalar(targets, int32(target))
		}
		cols := []*Node{
			Softmax(logits, -1),
			ExpandAxes(c.smoothFromLogits(logits), -1),
			ExpandAxes(ConfigurableLoss(logits, targets, c.QHat, c.Opts.Temperature, lossOpts), -1),
		}
		return ConvertDType(Concatenate(cols, -1), dtypes.Float32)
	})
	if err != nil {
		return nil, fmt.Errorf("conformal: %w", err)
	}
	if width != k+2 {
		return nil, fmt.Errorf("conformal: internal error: grid graph returned %d columns, want %d", width, k+2)
	}
	g.SetSize, g.SmoothSetSize, g.Loss = make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for iy := range n {
		g.SetSize[iy], g.SmoothSetSize[iy], g.Loss[iy] = make([]float64, n), make([]float64, n), make([]float64, n)
		for ix := range n {
			row := out[(iy*n+ix)*width : (iy*n+ix+1)*width]
			g.SetSize[iy][ix] = float64(len(setsFromProbs(row[:k], k, c.QHat)[0]))
			g.SmoothSetSize[iy][ix] = float64(row[k])
			g.Loss[iy][ix] = float64(row[k+1])
		}
	}
	return g, nil
}

func checkMatrix(m [][]float64, k int) error {
	if len(m) != k {
		return fmt.Errorf("conformal: loss matrix has %d rows, want %d", len(m), k)
	}
	for i, row := range m {
		if len(row) != k {
			return fmt.Errorf("conformal: loss matrix row %d has %d entries, want %d", i, len(row), k)
		}
	}
	return nil
}
