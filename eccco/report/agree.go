package report

import (
	"fmt"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
)

import ()

// AgreementMarkdown renders an agreement of two benchmarks (compare.Agree): one line per column, the cell
// means, and what was not matched.
func AgreementMarkdown(ag compare.Agreement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s against %s, counterfactual by counterfactual\n\n", ag.Names[0], ag.Names[1])
	fmt.Fprintf(&b, "%d counterfactuals in both (%d only in %s, %d only in %s). Two values agree when "+
		"|a − b| ≤ %g · max(1, |a|, |b|).\n\n", ag.Matched, ag.OnlyA, ag.Names[0], ag.OnlyB, ag.Names[1], ag.Tolerance)
	b.WriteString("| column | compared | identical | within tolerance | largest difference | where |\n|---|---|---|---|---|---|\n")
	for _, m := range ag.Metrics {
		fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d (%s) | %.3g | %s |\n", m.Metric, m.Compared, m.Exact, pctDown(m.Exact, m.Compared),
			m.Within, pctDown(m.Within, m.Compared), m.MaxAbs, m.Worst)
	}
	fmt.Fprintf(&b, "\nCell means (data set × model × generator × metric, over the matched counterfactuals): %d of %d (%s) "+
		"agree within the tolerance", ag.Cells, ag.CellsCompared, pctDown(ag.Cells, ag.CellsCompared))
	if ag.WorstCell != "" {
		fmt.Fprintf(&b, "; the largest relative difference is %s: %s vs %s", ag.WorstCell, benchmark.FormatFloat(ag.WorstCellA), benchmark.FormatFloat(ag.WorstCellB))
	}
	b.WriteString(".\n")
	return b.String()
}
