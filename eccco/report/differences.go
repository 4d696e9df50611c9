package report

import (
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// unexplainedGroupsShown is how many groups of unexplained misses (data set × metric) the section names.
const unexplainedGroupsShown = 6

// knownDifferences is the appendix's account of what remains different from the published numbers after
// the authors'-code mode's switches (prose/differences.tmpl): each known difference with the number of
// misses the comparison puts down to it (compare.MissCause), and the largest groups of unexplained misses.
// Every number comes from the results the report is built from.
func (b *builder) knownDifferences() ([]Block, error) {
	byProv := switchesByProvenance()
	data := map[string]any{
		"Switches": len(experiment.Switches()), "Replayed": byProv[experiment.Replayed],
		"Inferred": byProv[experiment.Inferred], "Fitted": byProv[experiment.Fitted],
	}
	var rows []compare.ComparedCell
	if b.cmp != nil {
		rows = b.cmp.Rows
	}
	count := map[string]int{}
	misses := 0
	for _, c := range compare.MissCauses(rows) {
		count[c.Cause] = c.Cells
		misses += c.Cells
	}
	data["Misses"] = misses
	data["PriorBox"] = count[compare.CausePriorBox]
	data["Calibration"] = count[compare.CauseCalibration]
	data["REVISEImages"] = count[compare.CauseREVISEImages]
	data["ImageWeights"] = count[compare.CauseImageWeights]
	data["JEMValidity"] = count[compare.CauseJEMValidity]
	data["Collapse"] = count[compare.CauseREVISECollapse]
	data["Unexplained"] = count[compare.CauseUnexplained]
	data["Chance"] = count[compare.CauseChance]
	var groups []string
	for i, g := range compare.MissGroups(rows, compare.CauseUnexplained) {
		if i == unexplainedGroupsShown {
			break
		}
		groups = append(groups, fmt.Sprintf("%s %s: %d (%d above the published, %d below)", datasetTitle(g.Dataset), g.Metric, g.Cells, g.Above, g.Cells-g.Above))
	}
	data["UnexplainedGroups"] = groups
	data["CollapseValidity"] = b.collapseValidity()
	data["CPU"] = imageCellsOnAnotherCPU
	data["UnfaithSpread"] = ""
	if b.cmp != nil {
		for _, r := range b.cmp.SpreadRows() {
			if r.Metric == "unfaithfulness" && r.Cells > 0 {
				data["UnfaithSpread"] = fmt.Sprintf("%.2f", r.MedianRatio)
			}
		}
	}
	return prose("differences", data)
}

// imageCellsOnAnotherCPU is the one measurement of how far the image cells depend on the CPU that
// computes them (bench/README.md, "Again from a fresh clone, on the faster machine": the whole protocol
// from a fresh clone at commit 4c6cd18 on another AVX-512 machine, its image cells set against the
// committed ones). XLA's CPU plugin compiles for the CPU it runs on, so the image models train, and their
// searches round, differently from one CPU to another; pure Go's cells came back bit for bit.
var imageCellsOnAnotherCPU = struct {
	Commit                 string
	Changed, Cells, Over10 int
	MedianRelative         string
	// WithinBefore and WithinAt are the published cells within the tolerance (of Published), with the
	// committed image cells and with that machine's.
	WithinBefore, WithinAt, Published int
}{Commit: "4c6cd18", Changed: 604, Cells: 720, Over10: 42, MedianRelative: "9 × 10⁻⁴", WithinBefore: 3077, WithinAt: 3079, Published: 3456}

// switchesByProvenance counts the authors'-code mode's switches (experiment.Switches) by provenance.
func switchesByProvenance() map[experiment.Provenance]int {
	n := map[experiment.Provenance]int{}
	for _, sw := range experiment.Switches() {
		n[sw.Provenance]++
	}
	return n
}

// collapseValidity is the range of REVISE's validity on all counterfactuals of the linearly separable and
// circles sets (two decimals), "" where the results have neither.
func (b *builder) collapseValidity() string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range b.in.Results.Cells {
		if c.Generator == string(catalogue.REVISE) && c.Metric == "validity" && c.Subset == "all" && (c.Dataset == "linearly-separable" || c.Dataset == "circles") {
			lo, hi = math.Min(lo, c.Mean), math.Max(hi, c.Mean)
		}
	}
	if lo > hi {
		return ""
	}
	if r := fmt.Sprintf("%.2f", lo); r != fmt.Sprintf("%.2f", hi) {
		return r + " to " + fmt.Sprintf("%.2f", hi)
	}
	return fmt.Sprintf("%.2f", lo)
}

// knownDifferenceCount is how many known differences the appendix lists (the items of its list).
func knownDifferenceCount(blocks []Block) int {
	n := 0
	for _, bl := range blocks {
		if l, ok := bl.(*List); ok {
			n += len(l.Items)
		}
	}
	return n
}
