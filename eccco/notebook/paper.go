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
		d := compare.Printed(r.PaperDecimals) // the paper's cell at the decimals it was printed with
		fmt.Fprintf(&b, "| %s | %s | %.2f ± %.2f | %.*f ± %.*f | %s |\n", r.Model, r.Generator, r.Mean, r.SD, d, r.Paper, d, r.PaperSD, w)
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

// Claims is a Markdown table of the paper's claims (compare.PaperClaims) for each model of a data set,
// tested on our cells and on the published ones by the report's rule (compare.ClaimRule; Welch on cells,
// since cells carry no run means): a unit holds where its differences count for the claim, and does not
// where one counts against it or they are too small or not significant. Claims a model cannot be tested
// on (a generator or metric missing) are left out.
func Claims(ours []compare.Cell, pub []compare.Published, dataset string, models []string) string {
	srcs := []compare.ClaimSource{{Name: "ours", Cells: ours, Ours: true}, compare.PublishedSource(pub)}
	f := compare.TestClaims(srcs)
	word := func(o compare.Outcome) string {
		switch o {
		case compare.For:
			return "holds"
		case compare.Against:
			return "**does not hold**: the opposite"
		case compare.Neither:
			return "**does not hold**: too small or not significant"
		}
		return "–"
	}
	outcome := func(fd compare.ClaimFinding, m string) (compare.Outcome, bool) {
		for _, u := range fd.Units {
			if u.Dataset == dataset && u.Model == m {
				return u.Outcome, true
			}
		}
		return compare.Unmeasured, false
	}
	var b strings.Builder
	b.WriteString("| model | claim | ours | paper |\n|---|---|---|---|\n")
	for _, m := range models {
		for _, c := range f.Claims {
			o, ok1 := outcome(c.Findings[0], m)
			p, ok2 := outcome(c.Findings[1], m)
			if (!ok1 || o == compare.Unmeasured) && (!ok2 || p == compare.Unmeasured) {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m, c.ID, word(o), word(p))
		}
	}
	return b.String()
}
