package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
)

// Headline summarises the comparison with its counts (compare.Comparison.Counts), each as
// CountsMarkdown defines it: cells within the tolerance (rounding-aware, of them only by its floor, and
// strict), the same without the cells fixed by construction, the signs (ties apart), and the misses'
// significance against the share expected by chance.
func Headline(c compare.Comparison) string {
	if len(c.Rows) == 0 {
		return "no cell of these results has a published counterpart (data sets, models or generators that are not in the paper's tables)"
	}
	k := c.Counts()
	return fmt.Sprintf("%s; sign of ECCCo − Wachter (unfaithfulness): %s; of REVISE − Wachter (implausibility): %s; %s; %s",
		WithinText(k), SignText(k.Unfaith), SignText(k.Impl), MissesText(k.All), SignificanceText(k.All))
}

// WithinText words the cells within the tolerances, with and without the cells fixed by construction.
func WithinText(k compare.Counts) string {
	a, o := k.All, k.Open
	return fmt.Sprintf("%s within the paper's mean ± max(3 sd, 3h) (rounding-aware, h half the last printed decimal), %d of them only by the floor 3h; %s within mean ± 3 sd strictly; "+
		"without the %d cells fixed by construction: %s rounding-aware, %s strictly",
		cellShare(a.Within, a.Cells), a.FloorOnly, share(a.Strict, a.Cells), k.ByConstruction, cellShare(o.Within, o.Cells), share(o.Strict, o.Cells))
}

// DiscriminatingText words the cells whose tolerance can tell generators apart (compare.DiscriminatingRule)
// and how many of them are within.
func DiscriminatingText(t compare.Tally) string {
	other := t.Cells - t.Discriminating
	return fmt.Sprintf("only %d of the %d cells can tell the generators apart (their tolerance is narrower than the spread of the main tables' generators' published means), and of these %s are within; "+
		"the other %d (%d of them within) would agree as well with the generators' results swapped, so their agreement says nothing",
		t.Discriminating, t.Cells, share(t.WithinDiscriminating, t.Discriminating), other, t.Within-t.WithinDiscriminating)
}

// discriminatingNote is a metric's note in a data set's paragraph where some of its cells do not
// discriminate: "no cell discriminating" or "within 3 of its 5 discriminating cells" ("" where all do).
func discriminatingNote(g compare.WithinGroup) string {
	switch {
	case g.Discriminating == g.Cells:
		return ""
	case g.Discriminating == 0:
		return "no cell discriminating"
	}
	return fmt.Sprintf("within %d of its %d discriminating cells", g.WithinDiscriminating, g.Discriminating)
}

// cellShare is share naming cells: "k of n cells (p %)".
func cellShare(k, n int) string {
	return strings.Replace(share(k, n), fmt.Sprintf("of %d", n), fmt.Sprintf("of %d cells", n), 1)
}

// SignText words a sign tally: "28 of 28 agree, 6 ties (the paper prints 0.00)".
func SignText(t compare.SignTally) string {
	if t.Known == 0 {
		return "no pair"
	}
	s := fmt.Sprintf("%d of %d agree", t.Agree, t.Agree+t.Disagree)
	switch t.Ties {
	case 0:
	case 1:
		s += ", 1 tie (the paper prints 0.00)"
	default:
		s += fmt.Sprintf(", %d ties (the paper prints 0.00)", t.Ties)
	}
	return s
}

// MissesText words the misses' significance: "377 misses, all significant (Welch's |z| > 3; the least
// |z| 3.7)".
func MissesText(t compare.Tally) string {
	if t.Misses == 0 {
		return "no miss"
	}
	if math.IsNaN(t.MinMissZ) {
		return fmt.Sprintf("%d misses (no z: fewer than two runs)", t.Misses)
	}
	sig := fmt.Sprintf("%d of them", t.SignificantMisses)
	if t.SignificantMisses == t.Misses {
		sig = "all"
	}
	noun := "misses"
	if t.Misses == 1 {
		noun, sig = "miss", ""
		if t.SignificantMisses == 0 {
			sig = "not"
		}
	}
	return strings.Replace(fmt.Sprintf("%d %s, %s significant (Welch's |z| > %g; the least |z| %.1f)", t.Misses, noun, sig, compare.ZThreshold, t.MinMissZ), ",  ", ", ", 1)
}

// SignificanceText words the cells with |z| > 3 against the share expected by chance.
func SignificanceText(t compare.Tally) string {
	return fmt.Sprintf("%s have |z| > %g, where %.2f %% would by chance were both estimating the same means",
		cellShare(t.Significant, t.Cells), compare.ZThreshold, 100*compare.ChanceShare())
}

// CountsMarkdown defines and prints the counts of the headline (compare.Comparison.Counts).
func CountsMarkdown(c compare.Comparison) string {
	k := c.Counts()
	var sb strings.Builder
	sb.WriteString("## Counts\n\nEach count is defined once (package compare) and printed the same in the headline above, the report and the README:\n\n")
	fmt.Fprintf(&sb, "- **Within** (rounding-aware): %s.\n", compare.ToleranceRule)
	sb.WriteString("- **Only by the floor**: within the rounding-aware rule but not strictly, i.e. |ours − paper| > 3·sd and ≤ 3h, the rounding floor of the cell (compare.FloorOnly: 0.015 at two decimals, 0.0015 at three).\n")
	fmt.Fprintf(&sb, "- **Strict**: %s.\n", compare.StrictRule)
	fmt.Fprintf(&sb, "- **Both rounded** (a second rounding-aware rule, printed here only): %s.\n", compare.BothRoundedRule)
	fmt.Fprintf(&sb, "- **Fixed by construction**: %s; these cells agree whatever an implementation does, so the counts are also given without them.\n", compare.ByConstructionRule)
	sb.WriteString("- **Signs**: a difference the paper prints as 0.00 is a tie, counted apart from the agreements and disagreements.\n")
	fmt.Fprintf(&sb, "- **z**: %s. With |z| > %g a difference is significant; by chance alone %.2f %% of the cells would be.\n\n", compare.ZRule, compare.ZThreshold, 100*compare.ChanceShare())
	sb.WriteString("| Cells | Count | Within | of them only by the floor | Strict | Both rounded | Misses | Misses with \\|z\\| > 3 | Least \\|z\\| of a miss | Cells with \\|z\\| > 3 |\n|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(name string, t compare.Tally) {
		fmt.Fprintf(&sb, "| %s | %d | %s | %d | %s | %s | %d | %d | %.1f | %s |\n", name, t.Cells, share(t.Within, t.Cells), t.FloorOnly, share(t.Strict, t.Cells),
			share(t.BothRounded, t.Cells), t.Misses, t.SignificantMisses, t.MinMissZ, share(t.Significant, t.Cells))
	}
	row("all", k.All)
	row(fmt.Sprintf("without the %d fixed by construction", k.ByConstruction), k.Open)
	fmt.Fprintf(&sb, "\n| Sign | Pairs | Agree | Disagree | Ties (paper 0.00) |\n|---|---|---|---|---|\n")
	for _, s := range []struct {
		name string
		t    compare.SignTally
	}{{"ECCCo − Wachter, unfaithfulness", k.Unfaith}, {"REVISE − Wachter, implausibility", k.Impl}} {
		fmt.Fprintf(&sb, "| %s | %d | %d | %d | %d |\n", s.name, s.t.Known, s.t.Agree, s.t.Disagree, s.t.Ties)
	}
	return sb.String()
}

// summaryTable writes the within-tolerance shares grouped by group(row), in the order of less.
func summaryTable(sb *strings.Builder, title string, rows []compare.ComparedCell, group func(compare.ComparedCell) string, less func(a, b string) bool) {
	gs := compare.WithinBy(rows, group)
	sort.Slice(gs, func(i, j int) bool { return less(gs[i].Name, gs[j].Name) })
	fmt.Fprintf(sb, "| %s | Cells | Strict (3 sd) | Rounding-aware (max(3 sd, 3h)) |\n|---|---|---|---|\n", title)
	for _, g := range gs {
		fmt.Fprintf(sb, "| %s | %d | %s | %s |\n", g.Name, g.Cells, share(g.Strict, g.Cells), share(g.Rounding, g.Cells))
	}
	rounding, strict := compare.WithinCounts(rows)
	fmt.Fprintf(sb, "| all | %d | %s | %s |\n\n", len(rows), share(strict, len(rows)), share(rounding, len(rows)))
}

// ComparisonMarkdown renders the comparison with the published numbers (comparison.md); provenance says
// where the results came from ("" for not recorded) and is printed at the top.
func ComparisonMarkdown(c compare.Comparison, provenance string) string {
	return comparisonMarkdown(c, provenance, "")
}

// comparisonMarkdown is ComparisonMarkdown with a note after the provenance ("" for none).
func comparisonMarkdown(c compare.Comparison, provenance, note string) string {
	var sb strings.Builder
	sb.WriteString(comparisonTitle + "\n")
	if provenance != "" {
		sb.WriteString("Results from: " + provenance + "\n\n")
	} else {
		sb.WriteString("Results from: not recorded (the caller passed no settings or commit).\n\n")
	}
	if note != "" {
		sb.WriteString(note + "\n\n")
	}
	sb.WriteString(Headline(c) + ".\n\n")
	if len(c.Rows) > 0 {
		sb.WriteString(CountsMarkdown(c) + "\n")
	}
	sb.WriteString("## Summary\n\nA cell is within the paper's numbers when, rounding-aware, " + compare.ToleranceRule +
		"; strictly, when " + compare.StrictRule + ". The headline's first share and the column \"Within\" of the cells use the rounding-aware rule.\n\n")
	summaryTable(&sb, "Metric", c.Rows, func(r compare.ComparedCell) string { return r.Metric }, func(a, b string) bool {
		if compare.MetricIndex(a) != compare.MetricIndex(b) {
			return compare.MetricIndex(a) < compare.MetricIndex(b)
		}
		return a < b
	})
	summaryTable(&sb, "Dataset", c.Rows, func(r compare.ComparedCell) string { return r.Dataset }, func(a, b string) bool { return a < b })

	metrics := c.RankMetrics()
	sb.WriteString("## Rank agreement of the generators\n\nSpearman ρ between ours and the paper's ordering of the generators (all counterfactuals, the generators both have; ties take average ranks), per data set × model × metric; – where ρ is undefined (fewer than three generators, one side all tied, or no cell of the published group that its tolerance can tell apart from the others, compare.DiscriminatingRule).\n\n")
	sb.WriteString("| Metric | Pairs with ρ | Median ρ |\n|---|---|---|\n")
	for _, m := range metrics {
		r, n := c.MedianRho(m)
		fmt.Fprintf(&sb, "| %s | %d | %s |\n", m, n, rho(r))
	}
	if len(metrics) > 0 {
		sb.WriteString("\n| Dataset | Model | Generators |")
		for _, m := range metrics {
			sb.WriteString(" " + m + " |")
		}
		sb.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(metrics)) + "\n")
		type pair struct{ d, m string }
		byPair := map[pair]map[string]compare.RankAgreement{}
		var pairs []pair
		for _, r := range c.Ranks {
			p := pair{r.Dataset, r.Model}
			if byPair[p] == nil {
				byPair[p] = map[string]compare.RankAgreement{}
				pairs = append(pairs, p)
			}
			byPair[p][r.Metric] = r
		}
		for _, p := range pairs {
			n := 0
			for _, r := range byPair[p] {
				n = max(n, r.Generators)
			}
			fmt.Fprintf(&sb, "| %s | %s | %d |", p.d, p.m, n)
			for _, m := range metrics {
				r, ok := byPair[p][m]
				if !ok {
					sb.WriteString(" – |")
					continue
				}
				sb.WriteString(" " + rho(r.Rho) + " |")
			}
			sb.WriteString("\n")
		}
	}

	sb.WriteString("\n## Signs\n\nA tie is a difference the paper prints as 0.00: it has no sign to agree with.\n\n| Dataset | Model | ECCCo − Wachter unfaithfulness: ours | paper | agree | REVISE − Wachter implausibility: ours | paper | agree |\n|---|---|---|---|---|---|---|---|\n")
	yn := func(ok, app, tie bool) string {
		if !app {
			return "–"
		}
		if tie {
			return "tie"
		}
		if ok {
			return "yes"
		}
		return "**no**"
	}
	for _, s := range c.Signs {
		fmt.Fprintf(&sb, "| %s | %s | %+.3f | %+.3f | %s | %+.3f | %+.3f | %s |\n", s.Dataset, s.Model, s.OursUnfaith, s.PaperUnfaith,
			yn(s.UnfaithAgrees, s.UnfaithKnown, s.UnfaithTie), s.OursImpl, s.PaperImpl, yn(s.ImplAgrees, s.ImplKnown, s.ImplTie))
	}
	if d := Disagreements(c); len(d) > 0 {
		sb.WriteString("\nWhere the signs disagree:\n\n")
		for _, line := range d {
			sb.WriteString("- " + line + "\n")
		}
	}
	spreadSection(&sb, c)
	if lines := missesByCause(c.Rows); len(lines) > 0 {
		sb.WriteString("\n## Misses by likely cause\n\nEvery cell outside the rounding-aware tolerance, by its likely cause (compare.MissCause, in this order: chance, where the difference of the two means is not significant, Welch's |z| ≤ 3; a known difference of the authors' code or of our models; otherwise unexplained). A wide spread of single runs is no cause: it does not cover a difference of two means of many runs. The column \"Likely cause\" of the cells names it per cell.\n\n| Likely cause | Cells | Share of the misses |\n|---|---|---|\n")
		for _, l := range lines {
			sb.WriteString(l + "\n")
		}
	}
	calibrationSection(&sb, c)
	sb.WriteString("\n## Cells\n\n| Dataset | Subset | Model | Generator | Metric | Ours | Paper | Within (rounding-aware) | Within 3 sd (strict) | z | Likely cause |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, r := range c.Rows {
		within := yesNo(r.Within)
		if compare.FloorOnly(r) {
			within = "yes, by the floor"
		}
		if compare.ByConstruction(r) {
			within += " (by construction)"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %.3f ± %.3f | %.*f ± %.*f | %s | %s | %s | %s |\n", r.Dataset, r.Subset, r.Model, r.Generator, r.Metric, r.Mean, r.SD, compare.Printed(r.PaperDecimals), r.Paper, compare.Printed(r.PaperDecimals), r.PaperSD, within, yesNo(r.WithinStrict), zText(r.Z()), compare.MissCause(r))
	}
	return sb.String()
}

// zText formats a z with one decimal and the minus sign; "–" for NaN.
func zText(z float64) string {
	if math.IsNaN(z) {
		return "–"
	}
	return strings.Replace(fmt.Sprintf("%.1f", z), "-", "−", 1)
}

// Disagreements gives one sentence per data set × model whose sign of ECCCo − Wachter (unfaithfulness)
// or REVISE − Wachter (implausibility) differs from the paper's.
func Disagreements(c compare.Comparison) []string {
	var out []string
	for _, s := range c.Signs {
		if s.UnfaithKnown && !s.UnfaithTie && !s.UnfaithAgrees {
			out = append(out, disagreement(s.Dataset, s.Model, string(catalogue.ECCCo), "faithful", s.OursUnfaith, s.PaperUnfaith))
		}
		if s.ImplKnown && !s.ImplTie && !s.ImplAgrees {
			out = append(out, disagreement(s.Dataset, s.Model, string(catalogue.REVISE), "plausible", s.OursImpl, s.PaperImpl))
		}
	}
	return out
}

// disagreement words one sign disagreement; diff is generator − Wachter of a lower-is-better metric, so a
// positive difference makes the generator less `quality` than Wachter.
func disagreement(dataset, model, gen, quality string, ours, paper float64) string {
	rel := func(d float64) string {
		switch {
		case d > 0:
			return "less " + quality + " than"
		case d < 0:
			return "more " + quality + " than"
		}
		return "as " + quality + " as"
	}
	has := signed(paper, 2)
	if paper == 0 {
		has = "them equal (0.00)"
	}
	return fmt.Sprintf("%s %s: %s is %s Wachter here (%s) where the paper has %s.", dataset, model, gen, rel(ours), signed(ours, 3), has)
}

// qhatText renders q̂: one value, or the range over the runs that were read.
func qhatText(b benchmark.UncertaintyBound) string {
	if b.QHatMax != b.QHatMin {
		return fmt.Sprintf("%.4f–%.4f (%d runs)", b.QHatMin, b.QHatMax, b.Runs)
	}
	return fmt.Sprintf("%.4f", b.QHatMin)
}

// calibrationSection renders CalibrationRows: the evidence behind CauseCalibration.
func calibrationSection(sb *strings.Builder, c compare.Comparison) {
	rows := c.CalibrationRows()
	if len(rows) == 0 {
		return
	}
	sb.WriteString("\n## Calibration and the uncertainty metric\n\n" + CalibrationExplained + "\n\n" +
		"| Dataset | Model | q̂ | Ω of any valid counterfactual | published Ω (valid) | ours (valid) | uncertainty misses put down to q̂ |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(sb, "| %s | %s | %s | %.2f–%.2f | %s | %s | %d of %d |\n", r.Dataset, r.Model, qhatText(r.UncertaintyBound), r.Min, r.Max,
			span(r.PaperMin, r.PaperMax), span(r.OursMin, r.OursMax), r.PutDown, r.Misses)
	}
}

// CalibrationExplained says what the calibration table shows (the comparison and the report print it).
const CalibrationExplained = "Ω depends on a counterfactual only through its class probabilities, and on the model only through q̂, the (1 − α) quantile of its " +
	"calibration scores. For each model the table gives q̂ and the least and largest Ω that any valid counterfactual (p(y⁺|x′) ≥ 0.5) " +
	"can have with it (conformal.ValidOmegaRange, over every probability vector), beside the published and our Ω of valid counterfactuals " +
	"(the generators' cells, least–largest). A published Ω outside our range cannot be reached by any search with our model: " +
	"those cells, and their \"all\" twins, name the calibration as their likely cause. q̂ is read from the saved models " +
	"(never retrained; checked against the weights' fingerprints wherever a manifest recorded them) on the calibration rows each run used; " +
	"for the authors' trained models (the data sets whose manifest names them) it is the quantile of the calibration scores stored with them."

// span renders lo–hi, or – when nothing was seen.
func span(lo, hi float64) string {
	if math.IsNaN(lo) {
		return "–"
	}
	return fmt.Sprintf("%.2f–%.2f", lo, hi)
}

// spreadSection writes the spread table (nothing when no cell qualifies).
func spreadSection(sb *strings.Builder, c compare.Comparison) {
	rows := c.SpreadRows()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(sb, "\n## Spread of the run means\n\nOur sd of the run means against the published sd, over the cells whose published sd is at least %.2f (smaller ones are rounded too coarsely for a ratio): the median ratio, and the cells whose runs vary more than %g × the paper's. The authors drew the unfaithfulness metric's SGLD samples (and the ECCCo-L1 family's own) for every counterfactual; `--set sampling=per-run` (the default) draws one set per class and run, whose randomness the run means keep (`eccco bench --set sampling=per-counterfactual` draws both for every counterfactual, as the authors did).\n\n| Metric | Cells | Median ours / paper | Ours > %g × paper |\n|---|---|---|---|\n", compare.SpreadFloor, compare.SpreadRatio, compare.SpreadRatio)
	for _, r := range rows {
		fmt.Fprintf(sb, "| %s | %d | %.2f | %s |\n", r.Metric, r.Cells, r.MedianRatio, share(r.Wider, r.Cells))
	}
}

// missesByCause renders MissCauses as Markdown table rows.
func missesByCause(rows []compare.ComparedCell) []string {
	causes := compare.MissCauses(rows)
	misses := 0
	for _, c := range causes {
		misses += c.Cells
	}
	out := make([]string, 0, len(causes))
	for _, c := range causes {
		out = append(out, fmt.Sprintf("| %s | %d | %.0f %% |", c.Cause, c.Cells, 100*float64(c.Cells)/float64(misses)))
	}
	return out
}
