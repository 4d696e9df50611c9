package compare

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
)

// DefaultAgreementTolerance is the tolerance of Agree that two backends are held to: two values agree
// when |a − b| ≤ 10⁻³ · max(1, |a|, |b|).
const DefaultAgreementTolerance = 1e-3

// MetricAgreement counts, for one column of the results, how many matched counterfactuals hold the same
// value in both benchmarks (Exact), how many agree within the tolerance (Within, Exact included), and the
// largest difference found (MaxAbs, at the counterfactual Worst).
type MetricAgreement struct {
	Metric                  string
	Compared, Exact, Within int
	MaxAbs                  float64
	Worst                   string
}

// Agreement sets two benchmarks side by side counterfactual by counterfactual: rows are matched by data
// set, model, generator, run, factual and target (and their order, where a factual was drawn twice). It is
// how results computed on two backends (pure Go and XLA) with the same models are compared: numerically
// they differ in the last bits of float32 sums, which a search of 100 steps may amplify.
type Agreement struct {
	Names [2]string
	// Matched counterfactuals are in both; OnlyA and OnlyB in one of them.
	Matched, OnlyA, OnlyB int
	// Tolerance: values a and b agree when |a − b| ≤ Tolerance · max(1, |a|, |b|).
	Tolerance float64
	// Metrics holds the six metrics, p(y⁺|x′), the iterations and convergence, in Header's order.
	Metrics []MetricAgreement
	// Cells counts the data set × model × generator × metric means (over the matched counterfactuals) that
	// agree within the tolerance, of CellsCompared; WorstCell is the one that differs most.
	Cells, CellsCompared int
	WorstCell            string
	WorstCellA           float64
	WorstCellB           float64
}

type agreeKey struct {
	dataset, model, generator string
	run, factual, target, nth int
}

// agreeColumns are the compared columns: name and value of a row.
var agreeColumns = []struct {
	name string
	get  func(benchmark.Row) float64
}{
	{"unfaithfulness", func(r benchmark.Row) float64 { return r.Unfaithfulness }},
	{"implausibility", func(r benchmark.Row) float64 { return r.Implausibility }},
	{"uncertainty", func(r benchmark.Row) float64 { return r.Uncertainty }},
	{"cost", func(r benchmark.Row) float64 { return r.Cost }},
	{"redundancy", func(r benchmark.Row) float64 { return r.Redundancy }},
	{"validity", func(r benchmark.Row) float64 { return b2f(r.Valid) }},
	{"probability", func(r benchmark.Row) float64 { return r.Probability }},
	{"iterations", func(r benchmark.Row) float64 { return float64(r.Iterations) }},
	{"converged", func(r benchmark.Row) float64 { return b2f(r.Converged) }},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// keyed maps each row to its key, and returns the keys in the rows' order.
func keyed(rows []benchmark.Row) (map[agreeKey]benchmark.Row, []agreeKey) {
	out := make(map[agreeKey]benchmark.Row, len(rows))
	order := make([]agreeKey, 0, len(rows))
	for _, r := range rows {
		k := agreeKey{r.Dataset, r.Model, r.Generator, r.Run, r.Factual, r.Target, 0}
		for {
			if _, dup := out[k]; !dup {
				break
			}
			k.nth++
		}
		out[k] = r
		order = append(order, k)
	}
	return out, order
}

// absDiff is |a − b|: 0 for two NaNs, +Inf for one.
func absDiff(a, b float64) float64 {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return math.Inf(1)
	}
	return math.Abs(a - b)
}

// agrees reports |a − b| ≤ tol · max(1, |a|, |b|); NaN agrees only with NaN.
func agrees(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// Agree compares two benchmarks' rows counterfactual by counterfactual with tolerance tol (0:
// DefaultAgreementTolerance). names label a and b in the Markdown.
func Agree(names [2]string, a, b []benchmark.Row, tol float64) Agreement {
	if tol <= 0 {
		tol = DefaultAgreementTolerance
	}
	ka, order := keyed(a)
	kb, _ := keyed(b)
	ag := Agreement{Names: names, Tolerance: tol}
	for k := range kb {
		if _, ok := ka[k]; !ok {
			ag.OnlyB++
		}
	}
	ag.Metrics = make([]MetricAgreement, len(agreeColumns))
	for i, c := range agreeColumns {
		ag.Metrics[i].Metric = c.name
	}
	type cellKey struct{ dataset, model, generator, metric string }
	sums := map[cellKey]*[3]float64{} // sum a, sum b, count
	for _, k := range order {
		ra := ka[k]
		rb, ok := kb[k]
		if !ok {
			ag.OnlyA++
			continue
		}
		ag.Matched++
		for i, c := range agreeColumns {
			va, vb := c.get(ra), c.get(rb)
			m := &ag.Metrics[i]
			m.Compared++
			if va == vb || (math.IsNaN(va) && math.IsNaN(vb)) {
				m.Exact++
			}
			if agrees(va, vb, tol) {
				m.Within++
			}
			if d := absDiff(va, vb); d > m.MaxAbs {
				m.MaxAbs = d
				m.Worst = fmt.Sprintf("%s %s %s, run %d, factual %d → %d: %s vs %s", k.dataset, k.model, k.generator, k.run, k.factual, k.target, benchmark.FormatFloat(va), benchmark.FormatFloat(vb))
			}
			if i < 6 { // the six metrics' cell means
				ck := cellKey{k.dataset, k.model, k.generator, c.name}
				s := sums[ck]
				if s == nil {
					s = &[3]float64{}
					sums[ck] = s
				}
				s[0] += va
				s[1] += vb
				s[2]++
			}
		}
	}
	worst := -1.0
	cks := slices.SortedFunc(maps.Keys(sums), func(x, y cellKey) int {
		return cmp.Or(cmp.Compare(x.dataset, y.dataset), cmp.Compare(x.model, y.model), cmp.Compare(x.generator, y.generator), cmp.Compare(x.metric, y.metric))
	})
	for _, ck := range cks {
		s := sums[ck]
		ma, mb := s[0]/s[2], s[1]/s[2]
		ag.CellsCompared++
		if agrees(ma, mb, tol) {
			ag.Cells++
		}
		d := absDiff(ma, mb) / max(1, math.Abs(ma), math.Abs(mb))
		if d > worst {
			worst = d
			ag.WorstCell = fmt.Sprintf("%s %s %s %s", ck.dataset, ck.model, ck.generator, ck.metric)
			ag.WorstCellA, ag.WorstCellB = ma, mb
		}
	}
	return ag
}
