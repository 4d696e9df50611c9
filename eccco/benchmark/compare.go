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
	Rows []ComparedCell
	// Signs holds, per data set and model, whether ECCCo − Wachter (unfaithfulness) and REVISE − Wachter
	// (implausibility) have the same sign in ours and the paper's (all counterfactuals).
	Signs []SignAgreement
}

// ComparedCell is one cell of both.
type ComparedCell struct {
	Cell
	Paper, PaperSD float64
	// Within reports |ours − theirs| ≤ 3·sd_theirs (at least 0.005, the published rounding).
	Within bool
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
		tol := math.Max(3*p.SD, 0.005)
		cmp.Rows = append(cmp.Rows, ComparedCell{Cell: c, Paper: p.Mean, PaperSD: p.SD, Within: math.Abs(c.Mean-p.Mean) <= tol})
	}
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
		s.UnfaithAgrees = s.UnfaithKnown && sameSign(s.OursUnfaith, s.PaperUnfaith)
		s.OursImpl, ok1 = diff(oursOf, p[0], p[1], "REVISE", "implausibility")
		s.PaperImpl, ok2 = diff(pubOf, p[0], p[1], "REVISE", "implausibility")
		s.ImplKnown = ok1 && ok2
		s.ImplAgrees = s.ImplKnown && sameSign(s.OursImpl, s.PaperImpl)
		cmp.Signs = append(cmp.Signs, s)
	}
	return cmp
}

func sameSign(a, b float64) bool { return (a > 0 && b > 0) || (a < 0 && b < 0) || (a == 0 && b == 0) }

// Headline summarises the comparison: cells within 3 sd, and sign agreements.
func (c Comparison) Headline() string {
	within := 0
	for _, r := range c.Rows {
		if r.Within {
			within++
		}
	}
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
	share := 100 * float64(within) / float64(len(c.Rows))
	return fmt.Sprintf("%d of %d cells (%.0f %%) within the paper's mean ± 3 sd; sign of ECCCo − Wachter (unfaithfulness) agrees for %d of %d data set × model pairs, sign of REVISE − Wachter (implausibility) for %d of %d",
		within, len(c.Rows), share, ua, un, ia, in)
}

// Markdown renders the comparison report.
func (c Comparison) Markdown() string {
	var sb strings.Builder
	sb.WriteString("# Ours against the published results\n\n" + c.Headline() + ".\n\n")
	sb.WriteString("## Signs\n\n| Dataset | Model | ECCCo − Wachter unfaithfulness: ours | paper | agree | REVISE − Wachter implausibility: ours | paper | agree |\n|---|---|---|---|---|---|---|---|\n")
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
	sb.WriteString("\n## Cells\n\n| Dataset | Subset | Model | Generator | Metric | Ours | Paper | Within 3 sd |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range c.Rows {
		w := "yes"
		if !r.Within {
			w = "no"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %.3f ± %.3f | %.2f ± %.2f | %s |\n", r.Dataset, r.Subset, r.Model, r.Generator, r.Metric, r.Mean, r.SD, r.Paper, r.PaperSD, w)
	}
	return sb.String()
}
