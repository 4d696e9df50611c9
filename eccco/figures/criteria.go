package figures

import (
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

// Criterion is one measured check of a figure against the claim the paper makes with it, computed by the
// figure's recipe from the data the figure draws. Captions print it (String); where Holds is false the
// figure contradicts the paper's claim by Value, and the caption says so.
type Criterion struct {
	// Claim is the paper's claim, in words (from its text or caption).
	Claim string
	// Measure says what Value is and when the claim holds (the threshold).
	Measure string
	// Value is the measured value.
	Value float64
	// Detail lists the values behind Value (per generator, per class), when there are several.
	Detail string
	// Holds reports whether Value meets the threshold.
	Holds bool
}

// String is the criterion as a caption prints it: "claim: measure = value (detail) — holds" or "— does
// not hold".
func (c Criterion) String() string {
	verdict := "holds"
	if !c.Holds {
		verdict = "does not hold"
	}
	detail := ""
	if c.Detail != "" {
		detail = " (" + c.Detail + ")"
	}
	return fmt.Sprintf("%s: %s = %s%s — %s", c.Claim, c.Measure, formatValue(c.Value), detail, verdict)
}

func formatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// AllHold reports whether every criterion holds (true for none).
func AllHold(cs []Criterion) bool {
	for _, c := range cs {
		if !c.Holds {
			return false
		}
	}
	return true
}

// FormatCriteria writes one criterion per line, each prefixed by indent.
func FormatCriteria(cs []Criterion, indent string) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(indent + c.String() + "\n")
	}
	return b.String()
}

// rowsOf splits row-major values into rows of d.
func rowsOf(x []float32, d int) [][]float32 {
	var out [][]float32
	for i := 0; i+d <= len(x); i += d {
		out = append(out, x[i:i+d])
	}
	return out
}

// dist2 is the squared Euclidean distance.
func dist2(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s
}

// NearestLabels is a 1-nearest-neighbour classifier on reference rows (Euclidean distance): for each row
// of x (n rows of d values) the label of the closest reference row, ties to the first. It is the
// figures' independent reader of an image or point: it uses the data alone, not the model the search
// explains.
func NearestLabels(refX []float32, refY []int, d int, x []float32) ([]int, error) {
	if d <= 0 || len(refX) != d*len(refY) || len(refY) == 0 || len(x)%d != 0 {
		return nil, fmt.Errorf("figures: nearest labels: %d reference values for %d labels of %d features, %d query values", len(refX), len(refY), d, len(x))
	}
	ref := rowsOf(refX, d)
	out := make([]int, len(x)/d)
	for i, q := range rowsOf(x, d) {
		best, arg := math.Inf(1), 0
		for j, r := range ref {
			if v := dist2(q, r); v < best {
				best, arg = v, j
			}
		}
		out[i] = refY[arg]
	}
	return out, nil
}

// MeanPairwiseDistance is the mean Euclidean distance over all pairs of rows (0 for fewer than two): the
// figures' measure of diversity.
func MeanPairwiseDistance(rows [][]float32) float64 {
	if len(rows) < 2 {
		return 0
	}
	s, n := 0.0, 0
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			s += math.Sqrt(dist2(rows[i], rows[j]))
			n++
		}
	}
	return s / float64(n)
}

// MeanDistanceTo is the mean Euclidean distance from x to the rows.
func MeanDistanceTo(x []float32, rows [][]float32) float64 {
	if len(rows) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, r := range rows {
		s += math.Sqrt(dist2(x, r))
	}
	return s / float64(len(rows))
}

// share is the fraction of hits among n (NaN for n = 0).
func share(hits, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(hits) / float64(n)
}

// ValidCount is the figures' validity criterion: every named counterfactual has p(y⁺|x′) ≥ 0.5
// (counterfactual.DefaultThreshold), except those listed in except, which the paper reports as not valid.
func ValidCount(claim string, names []string, p []float64, except ...string) Criterion {
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	valid, need, hit := 0, 0, 0
	var parts []string
	for i, n := range names {
		ok := p[i] >= 0.5
		if ok {
			valid++
		}
		if !skip[n] {
			need++
			if ok {
				hit++
			}
		}
		parts = append(parts, fmt.Sprintf("%s p = %.2f", n, p[i]))
	}
	measure := fmt.Sprintf("counterfactuals with p(y⁺|x′) ≥ 0.5, of %d", len(names))
	if len(except) > 0 {
		measure += fmt.Sprintf(" (all but %s needed)", strings.Join(except, ", "))
	}
	return Criterion{Claim: claim, Measure: measure, Value: float64(valid), Detail: strings.Join(parts, ", "), Holds: hit == need}
}

// indexOf returns the panel index of each generator name.
func (s *Synthetic) indexOf() map[string]int {
	m := map[string]int{}
	for i, p := range s.Panels {
		m[p.Generator] = i
	}
	return m
}

// classRows returns the training rows of class k.
func (s *Synthetic) classRows(k int) [][]float32 {
	var out [][]float32
	for i, r := range rowsOf(s.Data.X, 2) {
		if s.Data.Y[i] == k {
			out = append(out, r)
		}
	}
	return out
}

// OmegaRange is max − min of the smooth set size Ω over the plane (Grid.SmoothSetSize).
func (s *Synthetic) OmegaRange() float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range s.Grid.SmoothSetSize {
		for _, v := range row {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi - lo
}

// omegaCause says why Ω is flat where it must be: with two classes the conformal scores 1 − p_k sum to
// 1, so Σₖ Cₖ = σ((q̂ − s_0)/T) + σ((q̂ − s_1)/T) ≤ 1 whenever q̂ ≤ 0.5, and Ω = max(0, Σₖ Cₖ − κ)
// with κ = 1 is 0 everywhere.
func (s *Synthetic) omegaCause() string {
	if len(s.ClassNames) == 2 && s.QHat <= 0.5 && s.OmegaRange() < minOmegaRange {
		return fmt.Sprintf("two classes and q̂ = %.2g ≤ 0.5: Σₖ Cₖ ≤ 1, so Ω = max(0, Σₖ Cₖ − 1) = 0 everywhere", s.QHat)
	}
	return fmt.Sprintf("q̂ = %.2g", s.QHat)
}

// Fig. 2's thresholds: two counterfactuals differ when their ends are at least minEndGap of the plane's
// width apart; Ω is visible when its range is at least minOmegaRange.
const (
	minEndGap     = 0.01
	minOmegaRange = 0.05
)

// POCCriteria measures Fig. 2 (fig:poc) against the paper's reading of it (Sect. 4): every counterfactual
// valid; ECCCo's counterfactual of lower energy than Wachter's and closer to the target class's data
// (energy-constrained, plausible; Wachter ends close to the factual); ECCCo (no EBM) away from Wachter's
// (it "avoids regions of high predictive uncertainty"); ECCCo converging in fewer steps than ECCCo (no
// CP). Generators missing from the panels are left out.
func (s *Synthetic) POCCriteria() []Criterion {
	at := s.indexOf()
	var names []string
	var p []float64
	for _, panel := range s.Panels {
		names = append(names, panel.Generator)
	}
	for _, r := range s.Results {
		p = append(p, float64(r.Result.Probability[0]))
	}
	out := []Criterion{ValidCount("every generator's counterfactual is valid", names, p)}
	end := func(i int) []float32 { return s.Results[i].Result.X[:2] }
	w, hasW := at[string(catalogue.Wachter)]
	ec, hasE := at[string(catalogue.ECCCo)]
	if hasW && hasE {
		var parts []string
		for i, n := range names {
			parts = append(parts, fmt.Sprintf("%s %.3g", n, s.EndEnergy[i]))
		}
		d := s.EndEnergy[ec] - s.EndEnergy[w]
		out = append(out, Criterion{Claim: "ECCCo's counterfactual is energy-constrained, Wachter's is not",
			Measure: "E(x′|y⁺) of ECCCo's counterfactual − Wachter's (< 0 holds)", Value: d, Detail: "E: " + strings.Join(parts, ", "), Holds: d < 0})
		target := s.classRows(s.To)
		parts = parts[:0]
		dist := make([]float64, len(names))
		for i, n := range names {
			dist[i] = MeanDistanceTo(end(i), target)
			parts = append(parts, fmt.Sprintf("%s %.3g", n, dist[i]))
		}
		ratio := dist[ec] / dist[w]
		out = append(out, Criterion{Claim: "ECCCo's counterfactual is plausible, Wachter's stays close to the factual",
			Measure: "ECCCo's mean distance to the target class's training data ÷ Wachter's (< 1 holds)", Value: ratio,
			Detail: "distances: " + strings.Join(parts, ", "), Holds: ratio < 1})
	}
	if ne, ok := at[string(catalogue.ECCCoNoEBM)]; ok && hasW {
		width := s.Grid.X[len(s.Grid.X)-1] - s.Grid.X[0]
		gap := math.Sqrt(dist2(end(ne), end(w))) / width
		out = append(out, Criterion{Claim: "ECCCo (no EBM) avoids the region of high predictive uncertainty, unlike Wachter",
			Measure: "distance between the ends of ECCCo (no EBM) and Wachter ÷ the plane's width (≥ 0.01 holds)", Value: gap,
			Detail: fmt.Sprintf("largest difference of their objectives' gradients over the plane %.3g; Ω's range over the plane %.3g; %s", fieldGap(s.Panels[ne], s.Panels[w]), s.OmegaRange(), s.omegaCause()), Holds: gap >= minEndGap})
	}
	if nc, ok := at[string(catalogue.ECCCoNoCP)]; ok && hasE {
		a, b := s.Results[ec].Result.Iterations[0], s.Results[nc].Result.Iterations[0]
		out = append(out, Criterion{Claim: "the set-size penalty makes ECCCo converge somewhat faster than ECCCo (no CP)",
			Measure: "ECCCo's steps − ECCCo (no CP)'s (< 0 holds)", Value: float64(a - b),
			Detail: fmt.Sprintf("%d and %d steps", a, b), Holds: a < b})
	}
	return out
}

// Thresholds of poc-gen: samples sit in their class when at least minInClass of them have a nearest
// training point of their class; they are spread when their mean pairwise distance is at least
// minSpread of the class data's.
const (
	minInClass = 0.9
	minSpread  = 0.5
)

// POCGenCriteria measures fig:poc-gen: the samples of each class lie in that class's data (the share
// whose nearest training point is of their class) and spread over it (their mean pairwise distance
// against the class data's, the smallest ratio over the classes).
func (s *Synthetic) POCGenCriteria() ([]Criterion, error) {
	hits, n := 0, 0
	minRatio := math.Inf(1)
	var parts []string
	for k, x := range s.Samples {
		if len(x) == 0 {
			continue
		}
		labels, err := NearestLabels(s.Data.X, s.Data.Y, 2, x)
		if err != nil {
			return nil, err
		}
		for _, l := range labels {
			if l == k {
				hits++
			}
		}
		n += len(labels)
		ratio := MeanPairwiseDistance(rowsOf(x, 2)) / MeanPairwiseDistance(s.classRows(k))
		minRatio = math.Min(minRatio, ratio)
		parts = append(parts, fmt.Sprintf("%s %.2f", className(s.ClassNames, k), ratio))
	}
	in := share(hits, n)
	return []Criterion{
		{Claim: "the conditional samples of each class sit in that class's data",
			Measure: "share of samples whose nearest training point is of their class (≥ 0.9 holds)", Value: in,
			Detail: fmt.Sprintf("%d of %d", hits, n), Holds: in >= minInClass},
		{Claim: "the samples give a sense of the class's distribution",
			Measure: "samples' mean pairwise distance ÷ the class data's, smallest over the classes (≥ 0.5 holds)", Value: minRatio,
			Detail: strings.Join(parts, ", "), Holds: minRatio >= minSpread},
	}, nil
}

// CPDiffCriteria measures fig:cp-diff: its centre panel, the smooth set size Ω, has a visible range.
func (s *Synthetic) CPDiffCriteria() []Criterion {
	r := s.OmegaRange()
	return []Criterion{{Claim: "the smooth set size (centre) shows where the prediction sets grow",
		Measure: "max − min of Ω over the plane (≥ 0.05 holds)", Value: r, Detail: s.omegaCause(), Holds: r >= minOmegaRange}}
}

func className(names []string, k int) string {
	if k >= 0 && k < len(names) && names[k] != "" {
		return names[k]
	}
	return fmt.Sprintf("class %d", k)
}

// POCChecked is POC with POCCriteria.
func (s *Synthetic) POCChecked() (Made, error) {
	f, err := s.POC()
	return Made{Figure: f, Criteria: s.POCCriteria()}, err
}

// POCGenChecked is POCGen with POCGenCriteria.
func (s *Synthetic) POCGenChecked() (Made, error) {
	f, err := s.POCGen()
	if err != nil {
		return Made{}, err
	}
	c, err := s.POCGenCriteria()
	return Made{Figure: f, Criteria: c}, err
}

// CPDiffChecked is CPDiff with CPDiffCriteria.
func (s *Synthetic) CPDiffChecked() (Made, error) {
	f, err := s.CPDiff()
	return Made{Figure: f, Criteria: s.CPDiffCriteria()}, err
}

// fieldGap is the largest |difference| between two panels' vector fields over their grid points (NaN
// without fields).
func fieldGap(a, b plot.GeneratorPanel) float64 {
	if a.Field == nil || b.Field == nil || len(a.Field.Vectors) != len(b.Field.Vectors) {
		return math.NaN()
	}
	m := 0.0
	for i, v := range a.Field.Vectors {
		m = math.Max(m, math.Abs(float64(v-b.Field.Vectors[i])))
	}
	return m
}
