package notebook

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
)

// Published reads the paper's published cells (paper/published-results.csv of this repository).
func Published() ([]compare.Published, error) {
	return compare.ReadPublished(Path("paper", "published-results.csv"))
}

// Beside is a Markdown table of one data set's metric: for each model and generator our mean ± sd
// beside the paper's, and whether ours is within the paper's numbers (compare.ToleranceRule); then a
// line that counts the cells within. Cells of ours without a published twin are left out.
func Beside(c compare.Comparison, dataset, metric string) string {
	var rows []compare.ComparedCell
	for _, r := range c.Rows {
		if r.Dataset == dataset && r.Metric == metric && r.Subset == "all" && !math.IsNaN(r.Paper) {
			rows = append(rows, r)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := compare.ModelOrder(rows[i].Model), compare.ModelOrder(rows[j].Model); a != b {
			return a < b
		}
		return compare.GeneratorIndex(rows[i].Generator) < compare.GeneratorIndex(rows[j].Generator)
	})
	if len(rows) == 0 {
		return fmt.Sprintf("*No published %s cells of %s.*", metric, dataset)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s, %s** (all counterfactuals)\n\n| model | generator | ours | paper | within |\n|---|---|---:|---:|---|\n", dataset, metric)
	within := 0
	for _, r := range rows {
		w := "no"
		if r.Within {
			w, within = "yes", within+1
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f ± %.2f | %.2f ± %.2f | %s |\n", r.Model, r.Generator, r.Mean, r.SD, r.Paper, r.PaperSD, w)
	}
	fmt.Fprintf(&b, "\n**%d of %d** cells within the paper's numbers (%s).\n", within, len(rows), compare.ToleranceRule)
	return b.String()
}

// BesideCells returns the cells of one data set and metric twice, ours and the published ones, with the
// model renamed "MODEL (ours)" and "MODEL (paper)", for figures.BenchmarkChart: one chart that sets the
// two side by side. Only pairs present in both are kept.
func BesideCells(ours []compare.Cell, pub []compare.Published, dataset, metric string) []compare.Cell {
	key := func(model, gen string) string { return model + "\x00" + gen }
	paper := map[string]compare.Cell{}
	for _, c := range compare.PublishedCells(pub) {
		if c.Dataset == dataset && c.Metric == metric && c.Subset == "all" {
			paper[key(c.Model, c.Generator)] = c
		}
	}
	var out []compare.Cell
	for _, c := range ours {
		if c.Dataset != dataset || c.Metric != metric || c.Subset != "all" {
			continue
		}
		p, ok := paper[key(c.Model, c.Generator)]
		if !ok {
			continue
		}
		o := c
		o.Model = c.Model + " (ours)"
		p.Model = c.Model + " (paper)"
		out = append(out, o, p)
	}
	return out
}

// Claims is a Markdown table of the paper's claims about ECCCo (compare.Claims) for each model of a data
// set, checked on our cells and on the published ones.
func Claims(ours []compare.Cell, pub []compare.Published, dataset string, models []string) string {
	paper := compare.PublishedCells(pub)
	var b strings.Builder
	b.WriteString("| model | claim | ours | paper |\n|---|---|---|---|\n")
	mark := func(c *compare.ClaimCheck, i int) string {
		switch {
		case c == nil || !c.Known[i]:
			return "–"
		case c.Holds[i]:
			return "holds"
		}
		return "**does not hold**"
	}
	for _, m := range models {
		o, p := compare.CheckClaims(ours, dataset, m), compare.CheckClaims(paper, dataset, m)
		for i, claim := range compare.Claims {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m, claim, mark(o, i), mark(p, i))
		}
	}
	return b.String()
}
