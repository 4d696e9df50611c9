package compare

import (
	"math"
	"slices"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/internal/stats"
)

// Comparison holds ours against the paper's, cell by cell, and the headline numbers.
type Comparison struct {
	Rows []ComparedCell
	// Signs holds, per data set and model, whether ECCCo − Wachter (unfaithfulness) and REVISE − Wachter
	// (implausibility) have the same sign in ours and the paper's (all counterfactuals).
	Signs []SignAgreement
	// Ranks holds, per data set, model and metric, the Spearman rank correlation between ours and the
	// paper's ordering of the generators (all counterfactuals).
	Ranks []RankAgreement
	// Bounds holds the range of Ω our calibrated models allow valid counterfactuals (CompareWithBounds;
	// nil with Compare).
	Bounds benchmark.UncertaintyBounds
}

// ToleranceRule states how Within is decided; StrictRule how WithinStrict is.
const (
	ToleranceRule = "|ours − paper| ≤ max(3·sd, 3·h), h being half the last decimal the paper printed the cell with: the published mean and sd are rounded, so an sd printed as 0.00 may be up to 0.005 (h = 0.005, floor 0.015: the appendix tables' two decimals) and one printed as 0.000 up to 0.0005 (h = 0.0005, floor 0.0015: the three decimals of Table 2, MNIST's unfaithfulness and implausibility of valid counterfactuals)"
	StrictRule    = "|ours − paper| ≤ 3·sd with the published sd as printed"
	// floatSlack absorbs binary floating point in the comparison (0.23 − 0.2 is not exactly 0.03).
	floatSlack = 1e-9
)

// WithinStrict reports |ours − paper| ≤ 3·sd.
func WithinStrict(ours, paper, sd float64) bool {
	return math.Abs(ours-paper) <= 3*sd+floatSlack
}

// WithinRounding reports |ours − paper| ≤ Tolerance(sd, decimals) = max(3·sd, 3·HalfDecimal(decimals)):
// within the published cell allowing for the rounding of its sd to the decimals the paper printed it
// with (0: AppendixDecimals; ToleranceRule).
func WithinRounding(ours, paper, sd float64, decimals int) bool {
	return math.Abs(ours-paper) <= Tolerance(sd, decimals)+floatSlack
}

// RankAgreement is the Spearman ρ between ours and the paper's ranking of the generators of one data set,
// model and metric; Rho is NaN where it is undefined: fewer than three generators, one side all tied, or
// a published order that its own tolerance cannot tell apart (no cell of the group discriminates,
// DiscriminatingRule), where the published ranks are the rounding's.
type RankAgreement struct {
	Dataset, Model, Metric string
	Generators             int
	Rho                    float64
}

// ComparedCell is one cell of both.
type ComparedCell struct {
	Cell
	Paper, PaperSD float64
	// PaperDecimals is how many decimals the paper printed the published cell with (Published.Decimals:
	// 3 for Table 2's cells, 2 for the appendix's; 0 means AppendixDecimals); every rounding-aware rule
	// reads it.
	PaperDecimals int
	// Within is the rounding-aware check (WithinRounding, ToleranceRule); WithinStrict the strict one.
	Within, WithinStrict bool
	// OmegaImpossible is set on an uncertainty cell whose published Ω no valid counterfactual of our
	// calibrated model can have (OmegaImpossible; for an "all" cell, the published Ω of its "valid" twin):
	// the cell's miss comes from the calibration quantile q̂, not from the search.
	OmegaImpossible bool
	// Spread is the range (max − min) of the published means of the main tables' generators for the
	// cell's data set, subset, model and metric; Discriminating reports a tolerance narrower than it
	// (DiscriminatingRule).
	Spread         float64
	Discriminating bool
}

// DiscriminatingRule states when a cell's comparison can tell generators apart (ComparedCell.Discriminating).
const DiscriminatingRule = "a cell discriminates when its rounding-aware tolerance, max(3·sd, 3·h) with h half the cell's last printed decimal (0.015 at two decimals, 0.0015 at three), is narrower than the spread (max − min) of the published means of the generators of the paper's main tables (ECCCo, ECCCo+, ECCCo (no CP), ECCCo (no EBM), REVISE, Schut, Wachter) for its data set, subset, model and metric; where it is not, a result that swapped the generators would pass as well, so being within says nothing"

// Tolerance is the rounding-aware tolerance of a published cell printed to decimals (0: AppendixDecimals):
// max(3·sd, RoundingFloor(decimals)), 0.015 at two decimals and 0.0015 at three (ToleranceRule).
func Tolerance(sd float64, decimals int) float64 { return math.Max(3*sd, RoundingFloor(decimals)) }

// Tolerance is the cell's rounding-aware tolerance (Tolerance of its published sd and decimals).
func (r ComparedCell) Tolerance() float64 { return Tolerance(r.PaperSD, r.PaperDecimals) }

// SignAgreement is the sign check of one data set and model.
type SignAgreement struct {
	Dataset, Model            string
	OursUnfaith, PaperUnfaith float64 // ECCCo − Wachter, unfaithfulness
	OursImpl, PaperImpl       float64 // REVISE − Wachter, implausibility
	// UnfaithKnown and ImplKnown report whether both sides have the numbers; the Tie fields whether the
	// paper prints its difference as 0.00 (PrintedZero: no sign to agree with, counted apart); the Agrees
	// fields whether, where it is no tie, the signs agree.
	UnfaithKnown, ImplKnown   bool
	UnfaithTie, ImplTie       bool
	UnfaithAgrees, ImplAgrees bool
}

// Compare matches our cells with the published ones.
func Compare(cells []Cell, pub []Published) Comparison {
	return CompareWithBounds(cells, pub, nil)
}

// CompareWithBounds is Compare that also marks the uncertainty cells whose published Ω our calibration
// rules out (ComparedCell.OmegaImpossible; bounds from Runner.UncertaintyBounds; nil marks none).
func CompareWithBounds(cells []Cell, pub []Published, bounds benchmark.UncertaintyBounds) Comparison {
	type key struct{ d, s, m, g, metric string }
	pm := map[key]Published{}
	for _, p := range pub {
		pm[key{p.Dataset, p.Subset, p.Model, p.Generator, p.Metric}] = p
	}
	spreadKey := func(p Published) [4]string { return [4]string{p.Dataset, p.Subset, p.Model, p.Metric} }
	lo, hi := map[[4]string]float64{}, map[[4]string]float64{}
	for _, p := range pub {
		if !slices.Contains(mainGenerators, catalogue.Name(p.Generator)) || math.IsNaN(p.Mean) {
			continue
		}
		k := spreadKey(p)
		if v, ok := lo[k]; !ok || p.Mean < v {
			lo[k] = p.Mean
		}
		if v, ok := hi[k]; !ok || p.Mean > v {
			hi[k] = p.Mean
		}
	}
	ours := map[key]Cell{}
	var cmp Comparison
	for _, c := range cells {
		k := key{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric}
		ours[k] = c
		p, ok := pm[k]
		if !ok || math.IsNaN(c.Mean) {
			continue
		}
		row := ComparedCell{Cell: c, Paper: p.Mean, PaperSD: p.SD, PaperDecimals: p.Decimals,
			Within: WithinRounding(c.Mean, p.Mean, p.SD, p.Decimals), WithinStrict: WithinStrict(c.Mean, p.Mean, p.SD)}
		row.Spread = hi[spreadKey(p)] - lo[spreadKey(p)]
		row.Discriminating = row.Tolerance()+floatSlack < row.Spread
		if b, ok := bounds[benchmark.BoundKey{Dataset: c.Dataset, Model: c.Model}]; ok && c.Metric == "uncertainty" {
			// The "valid" twin holds the published Ω of the valid counterfactuals among this cell's.
			if v, ok := pm[key{c.Dataset, "valid", c.Model, c.Generator, c.Metric}]; ok {
				row.OmegaImpossible = OmegaImpossible(b, v.Mean, v.Decimals)
			}
		}
		cmp.Rows = append(cmp.Rows, row)
	}
	cmp.Bounds = bounds
	seen := map[[2]string]bool{}
	var pairs [][2]string
	for _, c := range cells {
		if c.Subset == "all" && !seen[[2]string{c.Dataset, c.Model}] {
			seen[[2]string{c.Dataset, c.Model}] = true
			pairs = append(pairs, [2]string{c.Dataset, c.Model})
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0]+pairs[i][1] < pairs[j][0]+pairs[j][1] })
	diff := func(src func(key) (float64, bool), d, m, g, metric string) (float64, bool) {
		a, ok1 := src(key{d, "all", m, g, metric})
		b, ok2 := src(key{d, "all", m, string(catalogue.Wachter), metric})
		return a - b, ok1 && ok2
	}
	oursOf := func(k key) (float64, bool) { c, ok := ours[k]; return c.Mean, ok && !math.IsNaN(c.Mean) }
	pubOf := func(k key) (float64, bool) { p, ok := pm[k]; return p.Mean, ok }
	for _, p := range pairs {
		s := SignAgreement{Dataset: p[0], Model: p[1]}
		var ok1, ok2 bool
		s.OursUnfaith, ok1 = diff(oursOf, p[0], p[1], string(catalogue.ECCCo), "unfaithfulness")
		s.PaperUnfaith, ok2 = diff(pubOf, p[0], p[1], string(catalogue.ECCCo), "unfaithfulness")
		s.UnfaithKnown = ok1 && ok2
		s.UnfaithTie = s.UnfaithKnown && PrintedZero(s.PaperUnfaith)
		s.UnfaithAgrees = s.UnfaithKnown && !s.UnfaithTie && sameSign(s.OursUnfaith, s.PaperUnfaith)
		s.OursImpl, ok1 = diff(oursOf, p[0], p[1], string(catalogue.REVISE), "implausibility")
		s.PaperImpl, ok2 = diff(pubOf, p[0], p[1], string(catalogue.REVISE), "implausibility")
		s.ImplKnown = ok1 && ok2
		s.ImplTie = s.ImplKnown && PrintedZero(s.PaperImpl)
		s.ImplAgrees = s.ImplKnown && !s.ImplTie && sameSign(s.OursImpl, s.PaperImpl)
		cmp.Signs = append(cmp.Signs, s)
	}
	cmp.Ranks = rankAgreements(cmp.Rows)
	return cmp
}

// rankAgreements computes Spearman ρ per data set × model × metric over the generators both sides have
// (subset "all").
func rankAgreements(rows []ComparedCell) []RankAgreement {
	type key struct{ d, m, metric string }
	groups := map[key][]ComparedCell{}
	var keys []key
	for _, r := range rows {
		if r.Subset != "all" {
			continue
		}
		k := key{r.Dataset, r.Model, r.Metric}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.d != b.d {
			return a.d < b.d
		}
		if a.m != b.m {
			return a.m < b.m
		}
		return MetricIndex(a.metric) < MetricIndex(b.metric) || MetricIndex(a.metric) == MetricIndex(b.metric) && a.metric < b.metric
	})
	out := make([]RankAgreement, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		ours, paper := make([]float64, len(g)), make([]float64, len(g))
		for i, r := range g {
			ours[i], paper[i] = r.Mean, r.Paper
		}
		rho := math.NaN()
		disc := slices.ContainsFunc(g, func(r ComparedCell) bool { return r.Discriminating })
		if len(g) >= 3 && disc {
			rho = Spearman(ours, paper)
		}
		out = append(out, RankAgreement{Dataset: k.d, Model: k.m, Metric: k.metric, Generators: len(g), Rho: rho})
	}
	return out
}

// Spearman is the rank correlation of x and y: the Pearson correlation of their ranks, tied values taking
// the average of the ranks they span. It is NaN for fewer than two pairs or where either side is all tied.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	rx, ry := averageRanks(x), averageRanks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// averageRanks ranks v from 1 (smallest); ties share the average of their ranks.
func averageRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

func sameSign(a, b float64) bool { return (a > 0 && b > 0) || (a < 0 && b < 0) || (a == 0 && b == 0) }

// WithinCounts counts the rows within the rounding-aware and the strict tolerance.
func WithinCounts(rows []ComparedCell) (rounding, strict int) {
	for _, r := range rows {
		if r.Within {
			rounding++
		}
		if r.WithinStrict {
			strict++
		}
	}
	return rounding, strict
}

// MedianRho is the median Spearman ρ of a metric over the data set × model pairs where ρ is defined, and
// how many those are.
func (c Comparison) MedianRho(metric string) (rho float64, pairs int) {
	var v []float64
	for _, r := range c.Ranks {
		if r.Metric == metric && !math.IsNaN(r.Rho) {
			v = append(v, r.Rho)
		}
	}
	return stats.MedianNonNaN(v), len(v)
}

// RankMetrics lists the metrics of c.Ranks in the paper's order (others after them, alphabetically).
func (c Comparison) RankMetrics() []string {
	var ms []string
	seen := map[string]bool{}
	for _, r := range c.Ranks {
		if !seen[r.Metric] {
			seen[r.Metric] = true
			ms = append(ms, r.Metric)
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		if MetricIndex(ms[i]) != MetricIndex(ms[j]) {
			return MetricIndex(ms[i]) < MetricIndex(ms[j])
		}
		return ms[i] < ms[j]
	})
	return ms
}

// CalibrationRow is one line of the calibration evidence: a model's bound beside the published and our Ω
// of valid counterfactuals (least and largest over the generators; NaN where there is none) and how many
// of its uncertainty misses the bound explains.
type CalibrationRow struct {
	benchmark.BoundKey
	benchmark.UncertaintyBound
	PaperMin, PaperMax, OursMin, OursMax float64
	Misses, PutDown                      int
}

// CalibrationRows lists the models with a bound, by data set and model.
func (c Comparison) CalibrationRows() []CalibrationRow {
	keys := c.Bounds.SortedKeys()
	out := make([]CalibrationRow, 0, len(keys))
	for _, k := range keys {
		cr := CalibrationRow{BoundKey: k, UncertaintyBound: c.Bounds[k], PaperMin: math.Inf(1), PaperMax: math.Inf(-1), OursMin: math.Inf(1), OursMax: math.Inf(-1)}
		for _, r := range c.Rows {
			if r.Dataset != k.Dataset || r.Model != k.Model || r.Metric != "uncertainty" {
				continue
			}
			if r.Subset == "valid" {
				cr.PaperMin, cr.PaperMax = min(cr.PaperMin, r.Paper), max(cr.PaperMax, r.Paper)
				cr.OursMin, cr.OursMax = min(cr.OursMin, r.Mean), max(cr.OursMax, r.Mean)
			}
			if !r.Within {
				cr.Misses++
				if MissCause(r) == CauseCalibration {
					cr.PutDown++
				}
			}
		}
		for _, v := range []*float64{&cr.PaperMin, &cr.PaperMax, &cr.OursMin, &cr.OursMax} {
			if math.IsInf(*v, 0) {
				*v = math.NaN()
			}
		}
		out = append(out, cr)
	}
	return out
}

// OmegaImpossible reports whether a published Ω, printed to decimals (0: AppendixDecimals), cannot be the
// mean of Ω over valid counterfactuals of a model with bound b: it lies outside [b.Min, b.Max] by more
// than its rounding, HalfDecimal (a published Ω printed as 2.91 lies in [2.905, 2.915]).
func OmegaImpossible(b benchmark.UncertaintyBound, paper float64, decimals int) bool {
	h := HalfDecimal(decimals)
	return paper < b.Min-h-floatSlack || paper > b.Max+h+floatSlack
}

// BoundRuns lists the data sets and models of cells with the most runs any of their cells holds: what
// benchmark.Runner.UncertaintyBounds needs to bound them.
func BoundRuns(cells []Cell) map[benchmark.BoundKey]int {
	runs := map[benchmark.BoundKey]int{}
	for _, c := range cells {
		k := benchmark.BoundKey{Dataset: c.Dataset, Model: c.Model}
		runs[k] = max(runs[k], c.Runs)
	}
	return runs
}

// WithinGroup counts the rows of one group (a metric, a data set, …) within the rounding-aware and the
// strict tolerance.
type WithinGroup struct {
	Name                    string
	Cells, Rounding, Strict int
	// Discriminating counts the group's cells whose tolerance can tell generators apart
	// (DiscriminatingRule), WithinDiscriminating those of them within the tolerance.
	Discriminating, WithinDiscriminating int
}

// WithinBy groups rows by key and counts each group's rows within the tolerances (WithinCounts), the
// groups in the order their first rows come.
func WithinBy(rows []ComparedCell, key func(ComparedCell) string) []WithinGroup {
	var names []string
	by := map[string][]ComparedCell{}
	for _, r := range rows {
		k := key(r)
		if _, ok := by[k]; !ok {
			names = append(names, k)
		}
		by[k] = append(by[k], r)
	}
	out := make([]WithinGroup, len(names))
	for i, n := range names {
		out[i] = WithinGroup{Name: n, Cells: len(by[n])}
		out[i].Rounding, out[i].Strict = WithinCounts(by[n])
		for _, r := range by[n] {
			if r.Discriminating {
				out[i].Discriminating++
				if r.Within {
					out[i].WithinDiscriminating++
				}
			}
		}
	}
	return out
}
