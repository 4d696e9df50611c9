package compare

import (
	"math"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/internal/stats"
)

// SpreadFloor is the least published sd a cell needs to enter the spread comparison (SpreadRows): the
// published sd are rounded to two decimals, so one printed as 0.00 has no ratio and one printed as 0.01
// is known only to ± 50 %. The floor is absolute, whatever the decimals the cell was printed with: of
// Table 2's three-decimal cells only LeNet-5 Schut's implausibility (0.024) reaches it.
const SpreadFloor = 0.02

// SpreadRow compares the spread of our run means with the published one for one metric (or "all"): over
// the cells whose published sd is at least SpreadFloor, the median of our sd divided by the paper's, and
// how many of them vary more than twice as much as the paper's (SpreadRatio).
type SpreadRow struct {
	Metric      string
	Cells       int
	MedianRatio float64
	Wider       int // cells with our sd > 2 × the published sd
}

// SpreadRows returns one SpreadRow per metric (in the tables' order), then "all". A median below 1 means
// our run means vary less than the authors' did; a few times 1, that something random in our runs (for
// unfaithfulness, the SGLD samples drawn once per run instead of per counterfactual) is not averaged out
// as it was in theirs.
func (c Comparison) SpreadRows() []SpreadRow {
	by := map[string][]float64{}
	var all []float64
	for _, r := range c.Rows {
		if r.PaperSD < SpreadFloor-floatSlack || math.IsNaN(r.SD) || r.Runs < 2 {
			continue
		}
		x := r.SD / r.PaperSD
		by[r.Metric] = append(by[r.Metric], x)
		all = append(all, x)
	}
	row := func(m string, v []float64) SpreadRow {
		s := SpreadRow{Metric: m, Cells: len(v), MedianRatio: stats.MedianNonNaN(v)}
		for _, x := range v {
			if x > SpreadRatio {
				s.Wider++
			}
		}
		return s
	}
	names := make([]string, 0, len(by))
	for m := range by {
		names = append(names, m)
	}
	sort.Slice(names, func(i, j int) bool {
		if MetricIndex(names[i]) != MetricIndex(names[j]) {
			return MetricIndex(names[i]) < MetricIndex(names[j])
		}
		return names[i] < names[j]
	})
	out := make([]SpreadRow, 0, len(names)+1)
	for _, m := range names {
		out = append(out, row(m, by[m]))
	}
	if len(all) > 0 {
		out = append(out, row("all", all))
	}
	return out
}
