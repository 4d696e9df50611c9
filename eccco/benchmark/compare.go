package benchmark

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Published is one number of the paper's result tables (published/results.csv: dataset, subset, model,
// generator, metric, mean, std, stars, bold).
type Published struct {
	Dataset, Subset, Model, Generator, Metric string
	Mean, SD                                  float64
}

// ReadPublished reads the paper's published numbers.
func ReadPublished(path string) ([]Published, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading published results: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(recs) < 1 || len(recs[0]) < 7 || recs[0][0] != "dataset" {
		return nil, fmt.Errorf("reading %s: not the published results table", path)
	}
	out := make([]Published, 0, len(recs)-1)
	for i, r := range recs[1:] {
		mean, err1 := strconv.ParseFloat(r[5], 64)
		sd, err2 := strconv.ParseFloat(r[6], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("reading %s, line %d: bad mean or std", path, i+2)
		}
		out = append(out, Published{r[0], r[1], r[2], r[3], r[4], mean, sd})
	}
	return out, nil
}

// Comparison holds ours against the paper's, cell by cell, and the headline numbers.
type Comparison struct {
	// Provenance says which settings and commit the results came from (e.g. the protocol, the results
	// directory and `git rev-parse --short HEAD`); the caller sets it after Compare, and Markdown prints it
	// at the top.
	Provenance string
	Rows       []ComparedCell
	// Signs holds, per data set and model, whether ECCCo − Wachter (unfaithfulness) and REVISE − Wachter
	// (implausibility) have the same sign in ours and the paper's (all counterfactuals).
	Signs []SignAgreement
	// Ranks holds, per data set, model and metric, the Spearman rank correlation between ours and the
	// paper's ordering of the generators (all counterfactuals).
	Ranks []RankAgreement
	// Bounds holds the range of Ω our calibrated models allow valid counterfactuals (CompareWithBounds;
	// nil with Compare).
	Bounds UncertaintyBounds
}

// ToleranceRule states how Within is decided; StrictRule how WithinStrict is.
const (
	ToleranceRule = "|ours − paper| ≤ max(3·sd, 3·0.005 = 0.015): the published sd are rounded to two decimals, so an sd printed as 0.00 may be up to 0.005"
	StrictRule    = "|ours − paper| ≤ 3·sd with the published sd as printed"
	// roundingFloor is 3 × half the last published decimal.
	roundingFloor = 3 * 0.005
	// floatSlack absorbs binary floating point in the comparison (0.23 − 0.2 is not exactly 0.03).
	floatSlack = 1e-9
)

// WithinStrict reports |ours − paper| ≤ 3·sd.
func WithinStrict(ours, paper, sd float64) bool {
	return math.Abs(ours-paper) <= 3*sd+floatSlack
}

// WithinRounding reports |ours − paper| ≤ max(3·sd, 0.015), allowing for the published sd's rounding.
func WithinRounding(ours, paper, sd float64) bool {
	return math.Abs(ours-paper) <= math.Max(3*sd, roundingFloor)+floatSlack
}

// RankAgreement is the Spearman ρ between ours and the paper's ranking of the generators of one data set,
// model and metric; Rho is NaN where it is undefined (fewer than three generators, or one side all tied).
type RankAgreement struct {
	Dataset, Model, Metric string
	Generators             int
	Rho                    float64
}

// ComparedCell is one cell of both.
type ComparedCell struct {
	Cell
	Paper, PaperSD float64
	// Within is the rounding-aware check (WithinRounding, ToleranceRule); WithinStrict the strict one.
	Within, WithinStrict bool
	// OmegaImpossible is set on an uncertainty cell whose published Ω no valid counterfactual of our
	// calibrated model can have (UncertaintyBound; for an "all" cell, the published Ω of its "valid" twin):
	// the cell's miss comes from the calibration quantile q̂, not from the search.
	OmegaImpossible bool
}

// SignAgreement is the sign check of one data set and model.
type SignAgreement struct {
	Dataset, Model            string
	OursUnfaith, PaperUnfaith float64 // ECCCo − Wachter, unfaithfulness
	OursImpl, PaperImpl       float64 // REVISE − Wachter, implausibility
	// UnfaithKnown and ImplKnown report whether both sides have the numbers; the Agrees fields whether
	// the signs agree.
	UnfaithKnown, ImplKnown   bool
	UnfaithAgrees, ImplAgrees bool
}

// Compare matches our cells with the published ones.
func Compare(cells []Cell, pub []Published) Comparison {
	return CompareWithBounds(cells, pub, nil)
}

// CompareWithBounds is Compare that also marks the uncertainty cells whose published Ω our calibration
// rules out (ComparedCell.OmegaImpossible; bounds from Runner.UncertaintyBounds; nil marks none).
func CompareWithBounds(cells []Cell, pub []Published, bounds UncertaintyBounds) Comparison {
	type key struct{ d, s, m, g, metric string }
	pm := map[key]Published{}
	for _, p := range pub {
		pm[key{p.Dataset, p.Subset, p.Model, p.Generator, p.Metric}] = p
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
		row := ComparedCell{Cell: c, Paper: p.Mean, PaperSD: p.SD,
			Within: WithinRounding(c.Mean, p.Mean, p.SD), WithinStrict: WithinStrict(c.Mean, p.Mean, p.SD)}
		if b, ok := bounds[BoundKey{c.Dataset, c.Model}]; ok && c.Metric == "uncertainty" {
			// The "valid" twin holds the published Ω of the valid counterfactuals among this cell's.
			if v, ok := pm[key{c.Dataset, "valid", c.Model, c.Generator, c.Metric}]; ok {
				row.OmegaImpossible = b.omegaImpossible(v.Mean)
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
		b, ok2 := src(key{d, "all", m, "Wachter", metric})
		return a - b, ok1 && ok2
	}
	oursOf := func(k key) (float64, bool) { c, ok := ours[k]; return c.Mean, ok && !math.IsNaN(c.Mean) }
	pubOf := func(k key) (float64, bool) { p, ok := pm[k]; return p.Mean, ok }
	for _, p := range pairs {
		s := SignAgreement{Dataset: p[0], Model: p[1]}
		var ok1, ok2 bool
		s.OursUnfaith, ok1 = diff(oursOf, p[0], p[1], "ECCCo", "unfaithfulness")
		s.PaperUnfaith, ok2 = diff(pubOf, p[0], p[1], "ECCCo", "unfaithfulness")
		s.UnfaithKnown = ok1 && ok2
		s.UnfaithAgrees = s.UnfaithKnown && agreesAtTwoDecimals(s.OursUnfaith, s.PaperUnfaith)
		s.OursImpl, ok1 = diff(oursOf, p[0], p[1], "REVISE", "implausibility")
		s.PaperImpl, ok2 = diff(pubOf, p[0], p[1], "REVISE", "implausibility")
		s.ImplKnown = ok1 && ok2
		s.ImplAgrees = s.ImplKnown && agreesAtTwoDecimals(s.OursImpl, s.PaperImpl)
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
		return metricRank(a.metric) < metricRank(b.metric) || metricRank(a.metric) == metricRank(b.metric) && a.metric < b.metric
	})
	out := make([]RankAgreement, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		ours, paper := make([]float64, len(g)), make([]float64, len(g))
		for i, r := range g {
			ours[i], paper[i] = r.Mean, r.Paper
		}
		rho := math.NaN()
		if len(g) >= 3 {
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

// metricOrder is the paper's order of the metrics; others follow alphabetically.
var metricOrder = []string{"unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "validity"}

func metricRank(m string) int {
	for i, n := range metricOrder {
		if n == m {
			return i
		}
	}
	return len(metricOrder)
}

// median of the non-NaN values; NaN if there are none.
func median(v []float64) float64 {
	var w []float64
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	if len(w) == 0 {
		return math.NaN()
	}
	sort.Float64s(w)
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

// signed formats x with an explicit sign, the minus as "−".
func signed(x float64, prec int) string {
	return strings.Replace(strconv.FormatFloat(x, 'f', prec, 64), "-", "−", 1)
}

func withSign(x float64, prec int) string {
	s := signed(x, prec)
	if !strings.HasPrefix(s, "−") {
		s = "+" + s
	}
	return s
}

// Disagreements gives one sentence per data set × model whose sign of ECCCo − Wachter (unfaithfulness)
// or REVISE − Wachter (implausibility) differs from the paper's.
func (c Comparison) Disagreements() []string {
	var out []string
	for _, s := range c.Signs {
		if s.UnfaithKnown && !s.UnfaithAgrees {
			out = append(out, disagreement(s.Dataset, s.Model, "ECCCo", "faithful", s.OursUnfaith, s.PaperUnfaith))
		}
		if s.ImplKnown && !s.ImplAgrees {
			out = append(out, disagreement(s.Dataset, s.Model, "REVISE", "plausible", s.OursImpl, s.PaperImpl))
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
	has := withSign(paper, 2)
	if paper == 0 {
		has = "them equal (0.00)"
	}
	return fmt.Sprintf("%s %s: %s is %s Wachter here (%s) where the paper has %s.", dataset, model, gen, rel(ours), withSign(ours, 3), has)
}

// agreesAtTwoDecimals reports whether our difference has the paper's sign; where the paper prints the
// two as equal (0.00 at its two decimals), ours agrees when it too rounds to 0.00.
func agreesAtTwoDecimals(ours, paper float64) bool {
	if paper == 0 && math.Abs(ours) < 0.005 {
		return true
	}
	return sameSign(ours, paper)
}

func sameSign(a, b float64) bool { return (a > 0 && b > 0) || (a < 0 && b < 0) || (a == 0 && b == 0) }

// share is a count as "k of n (p %)".
func share(k, n int) string {
	if n == 0 {
		return "0 of 0"
	}
	return fmt.Sprintf("%d of %d (%.0f %%)", k, n, 100*float64(k)/float64(n))
}

// withinCounts counts the rows within the rounding-aware and the strict tolerance.
func withinCounts(rows []ComparedCell) (rounding, strict int) {
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
	return median(v), len(v)
}

// rankMetrics lists the metrics of c.Ranks in the paper's order.
func (c Comparison) rankMetrics() []string {
	var ms []string
	seen := map[string]bool{}
	for _, r := range c.Ranks {
		if !seen[r.Metric] {
			seen[r.Metric] = true
			ms = append(ms, r.Metric)
		}
	}
	sort.Slice(ms, func(i, j int) bool {
		if metricRank(ms[i]) != metricRank(ms[j]) {
			return metricRank(ms[i]) < metricRank(ms[j])
		}
		return ms[i] < ms[j]
	})
	return ms
}

// Headline summarises the comparison: cells within the tolerance (rounding-aware and strict), and sign
// agreements.
func (c Comparison) Headline() string {
	var ua, un, ia, in int
	for _, s := range c.Signs {
		if s.UnfaithKnown {
			un++
			if s.UnfaithAgrees {
				ua++
			}
		}
		if s.ImplKnown {
			in++
			if s.ImplAgrees {
				ia++
			}
		}
	}
	if len(c.Rows) == 0 {
		return "no cell of these results has a published counterpart (data sets, models or generators that are not in the paper's tables)"
	}
	rounding, strict := withinCounts(c.Rows)
	n := float64(len(c.Rows))
	return fmt.Sprintf("%d of %d cells (%.0f %%) within the paper's mean ± max(3 sd, 0.015) (rounding-aware), %d (%.0f %%) within mean ± 3 sd strictly; sign of ECCCo − Wachter (unfaithfulness) agrees for %d of %d data set × model pairs, sign of REVISE − Wachter (implausibility) for %d of %d",
		rounding, len(c.Rows), 100*float64(rounding)/n, strict, 100*float64(strict)/n, ua, un, ia, in)
}

// summaryTable writes the within-tolerance shares grouped by group(row), in the order of order.
func summaryTable(sb *strings.Builder, title string, rows []ComparedCell, group func(ComparedCell) string, less func(a, b string) bool) {
	by := map[string][]ComparedCell{}
	var names []string
	for _, r := range rows {
		g := group(r)
		if _, ok := by[g]; !ok {
			names = append(names, g)
		}
		by[g] = append(by[g], r)
	}
	sort.Slice(names, func(i, j int) bool { return less(names[i], names[j]) })
	fmt.Fprintf(sb, "| %s | Cells | Strict (3 sd) | Rounding-aware (max(3 sd, 0.015)) |\n|---|---|---|---|\n", title)
	for _, n := range names {
		rounding, strict := withinCounts(by[n])
		fmt.Fprintf(sb, "| %s | %d | %s | %s |\n", n, len(by[n]), share(strict, len(by[n])), share(rounding, len(by[n])))
	}
	rounding, strict := withinCounts(rows)
	fmt.Fprintf(sb, "| all | %d | %s | %s |\n\n", len(rows), share(strict, len(rows)), share(rounding, len(rows)))
}

// Markdown renders the comparison report.
func (c Comparison) Markdown() string {
	var sb strings.Builder
	sb.WriteString("# Ours against the published results\n\n")
	if c.Provenance != "" {
		sb.WriteString("Results from: " + c.Provenance + "\n\n")
	} else {
		sb.WriteString("Results from: not recorded (the caller passed no settings or commit).\n\n")
	}
	sb.WriteString(c.Headline() + ".\n\n")
	sb.WriteString("## Summary\n\nA cell is within the paper's numbers when, rounding-aware, " + ToleranceRule +
		"; strictly, when " + StrictRule + ". The headline's first share and the column \"Within\" of the cells use the rounding-aware rule.\n\n")
	summaryTable(&sb, "Metric", c.Rows, func(r ComparedCell) string { return r.Metric }, func(a, b string) bool {
		if metricRank(a) != metricRank(b) {
			return metricRank(a) < metricRank(b)
		}
		return a < b
	})
	summaryTable(&sb, "Dataset", c.Rows, func(r ComparedCell) string { return r.Dataset }, func(a, b string) bool { return a < b })

	metrics := c.rankMetrics()
	sb.WriteString("## Rank agreement of the generators\n\nSpearman ρ between ours and the paper's ordering of the generators (all counterfactuals, the generators both have; ties take average ranks), per data set × model × metric; – where ρ is undefined (fewer than three generators, or one side all tied).\n\n")
	sb.WriteString("| Metric | Pairs with ρ | Median ρ |\n|---|---|---|\n")
	for _, m := range metrics {
		rho, n := c.MedianRho(m)
		fmt.Fprintf(&sb, "| %s | %d | %s |\n", m, n, fmtRho(rho))
	}
	if len(metrics) > 0 {
		sb.WriteString("\n| Dataset | Model | Generators |")
		for _, m := range metrics {
			sb.WriteString(" " + m + " |")
		}
		sb.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(metrics)) + "\n")
		type pair struct{ d, m string }
		byPair := map[pair]map[string]RankAgreement{}
		var pairs []pair
		for _, r := range c.Ranks {
			p := pair{r.Dataset, r.Model}
			if byPair[p] == nil {
				byPair[p] = map[string]RankAgreement{}
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
				sb.WriteString(" " + fmtRho(r.Rho) + " |")
			}
			sb.WriteString("\n")
		}
	}

	sb.WriteString("\n## Signs\n\n| Dataset | Model | ECCCo − Wachter unfaithfulness: ours | paper | agree | REVISE − Wachter implausibility: ours | paper | agree |\n|---|---|---|---|---|---|---|---|\n")
	yn := func(ok, app bool) string {
		if !app {
			return "–"
		}
		if ok {
			return "yes"
		}
		return "**no**"
	}
	for _, s := range c.Signs {
		fmt.Fprintf(&sb, "| %s | %s | %+.3f | %+.3f | %s | %+.3f | %+.3f | %s |\n", s.Dataset, s.Model, s.OursUnfaith, s.PaperUnfaith,
			yn(s.UnfaithAgrees, s.UnfaithKnown), s.OursImpl, s.PaperImpl, yn(s.ImplAgrees, s.ImplKnown))
	}
	if d := c.Disagreements(); len(d) > 0 {
		sb.WriteString("\nWhere the signs disagree:\n\n")
		for _, line := range d {
			sb.WriteString("- " + line + "\n")
		}
	}
	c.spreadSection(&sb)
	if lines := missesByCause(c.Rows); len(lines) > 0 {
		sb.WriteString("\n## Misses by likely cause\n\nEvery cell outside the rounding-aware tolerance, by its likely cause (benchmark.MissCause, in this order: a spread of our run means wider than twice the published sd that covers the difference; a known difference of the authors' code or of our models; otherwise unexplained). The column \"Likely cause\" of the cells names it per cell.\n\n| Likely cause | Cells | Share of the misses |\n|---|---|---|\n")
		for _, l := range lines {
			sb.WriteString(l + "\n")
		}
	}
	c.calibrationSection(&sb)
	sb.WriteString("\n## Cells\n\n| Dataset | Subset | Model | Generator | Metric | Ours | Paper | Within (rounding-aware) | Within 3 sd (strict) | Likely cause |\n|---|---|---|---|---|---|---|---|---|---|\n")
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, r := range c.Rows {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %.3f ± %.3f | %.2f ± %.2f | %s | %s | %s |\n", r.Dataset, r.Subset, r.Model, r.Generator, r.Metric, r.Mean, r.SD, r.Paper, r.PaperSD, yesNo(r.Within), yesNo(r.WithinStrict), MissCause(r))
	}
	return sb.String()
}

func fmtRho(r float64) string {
	if math.IsNaN(r) {
		return "–"
	}
	return signed(r, 2)
}

// CalibrationRow is one line of the calibration evidence: a model's bound beside the published and our Ω
// of valid counterfactuals (least and largest over the generators; NaN where there is none) and how many
// of its uncertainty misses the bound explains.
type CalibrationRow struct {
	BoundKey
	UncertaintyBound
	PaperMin, PaperMax, OursMin, OursMax float64
	Misses, PutDown                      int
}

// CalibrationRows lists the models with a bound, by data set and model.
func (c Comparison) CalibrationRows() []CalibrationRow {
	keys := c.Bounds.sortedKeys()
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

// QHatText renders q̂: one value, or the range over the runs that were read.
func (b UncertaintyBound) QHatText() string {
	if b.QHatMax != b.QHatMin {
		return fmt.Sprintf("%.4f–%.4f (%d runs)", b.QHatMin, b.QHatMax, b.Runs)
	}
	return fmt.Sprintf("%.4f", b.QHatMin)
}

// calibrationSection renders CalibrationRows: the evidence behind CauseCalibration.
func (c Comparison) calibrationSection(sb *strings.Builder) {
	rows := c.CalibrationRows()
	if len(rows) == 0 {
		return
	}
	sb.WriteString("\n## Calibration and the uncertainty metric\n\n" + CalibrationExplained + "\n\n" +
		"| Dataset | Model | q̂ | Ω of any valid counterfactual | published Ω (valid) | ours (valid) | uncertainty misses put down to q̂ |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(sb, "| %s | %s | %s | %.2f–%.2f | %s | %s | %d of %d |\n", r.Dataset, r.Model, r.QHatText(), r.Min, r.Max,
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
