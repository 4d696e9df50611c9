package report

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/figures"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

// forestSubset is the subset whose cells the comparison's figures draw, per metric: the valid
// counterfactuals, as the paper's main tables, except for validity, which is 1 on both sides by
// construction there (compare.ByConstruction), so its figure draws all counterfactuals.
func forestSubset(metric string) string {
	if metric == "validity" {
		return "all"
	}
	return "valid"
}

// comparisonFigures draws one figure per metric of every compared cell against the published
// (figures.OursAgainstPublished) into the document's figures/ (PDF for LaTeX, PNG for Markdown), each
// captioned with what it plots, the band, the rule and the metric's cells within.
func (b *builder) comparisonFigures(s *Section) error {
	if b.d.Drawn == nil {
		b.d.Drawn = map[string][]byte{}
	}
	var figs []*Figure
	for _, m := range compare.Metrics {
		subset := forestSubset(m.Name)
		f, n, err := figures.OursAgainstPublished(b.cmp.Rows, m.Name, subset)
		if err != nil {
			continue // no compared cell of this metric and subset
		}
		pdf, err := f.PDF()
		if err != nil {
			return fmt.Errorf("report: drawing %s against the published: %w", m.Name, err)
		}
		png, err := f.PNG()
		if err != nil {
			return fmt.Errorf("report: drawing %s against the published: %w", m.Name, err)
		}
		stem := "figures/" + figures.ComparisonName(m.Name, subset)
		b.d.Drawn[stem+".pdf"], b.d.Drawn[stem+".png"] = pdf, png
		which := "valid counterfactuals (subset \"valid\", as the paper's main tables)"
		if subset == "all" {
			which = "all counterfactuals (subset \"all\": among the valid ones validity is 1 on both sides by construction)"
		}
		caption := Inline{B(m.Title + " against the published, " + which + ". ")}
		if len(figs) == 0 {
			caption = append(caption,
				T(fmt.Sprintf("Each point is one of our %d cells with a published counterpart (data set × model × generator), at its deviation %s, on a symmetric log scale (linear near 0, logarithmic beyond). ", n.Cells, compare.DeviationRule)),
				T("Rows are the data sets, each labelled with its cells within / its cells; colour is the generator's family, a square its ablation without conformal prediction (no CP) and a diamond without the energy term (no EBM). "),
				T(fmt.Sprintf("Shaded: ±%g, the band of the rounding-aware rule, ", compare.DeviationBand)), T(compare.ToleranceRule), T(". "))
		} else {
			caption = append(caption, T(fmt.Sprintf("Drawn as the first of these figures: one point per cell (%d cells), its deviation from the published mean in published sd, shaded ±%g: within. ", n.Cells, compare.DeviationBand)))
		}
		caption = append(caption, B(fmt.Sprintf("%s cells within", share(n.Rounding, n.Cells))), T(fmt.Sprintf("; %s strictly (3 sd as printed).", share(n.Strict, n.Cells))))
		figs = append(figs, &Figure{Name: figures.ComparisonName(m.Name, subset), File: stem + ".pdf", MarkdownFile: stem + ".png",
			Caption: caption, Width: 1, PrintWidth: float64(plot.TextWidth)})
	}
	if len(figs) == 0 {
		return nil
	}
	s.para(T(fmt.Sprintf("One figure per metric follows, each showing that metric's compared cells against the published: a cell's distance from the published mean in published standard deviations (floored at h, half the cell's last printed decimal: 0.005, or 0.0005 for Table 2's three-decimal cells), by data set, with the band of ±%g inside which a cell is within the rounding-aware tolerance. The counts on the rows and in the captions are counted as in the tables above (compare.WithinBy), but over the one subset drawn, not both.", compare.DeviationBand)))
	for _, f := range figs {
		s.add(f)
	}
	return nil
}
