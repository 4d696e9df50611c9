package report

import (
	"math"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
)

// PaperClaim is one of the paper's claims about its results (Altmeyer et al., AAAI-24), quoted with where
// it stands, and a test that decides it per data set × model (or per data set × model pair) on a set of
// cells. Each test reads the "all" subset (every counterfactual), as compare.Claims and the signs do.
type PaperClaim struct {
	// ID names the claim in the document; Quote is the paper's sentence, Where its place in the paper.
	ID, Quote, Where string
	// Test says in words what is counted; Limits what bounds the verdict beyond the counts.
	Test, Limits string
	// Figures are figure stems (figures.Spec.Name) that bear on the claim, shown beside it when present.
	Figures []string
	// Eval counts the units (data set × model, or data set × model pair) where the claim holds and where it
	// could be checked on cells.
	Eval func(cells []compare.Cell) (holds, known int)
}

// Verdicts of a claim.
const (
	VerdictHolds   = "holds"
	VerdictPartly  = "partly"
	VerdictDoesNot = "does not"
	VerdictNone    = "not checkable"
)

// Verdict thresholds: a claim holds in a source when it holds for at least VerdictHoldsShare of the
// units checked, and does not when for less than VerdictPartlyShare.
const (
	VerdictHoldsShare  = 0.8
	VerdictPartlyShare = 0.5
)

// Verdict is the verdict of one source's count: holds (≥ 80 % of the units checked), partly (≥ 50 %),
// does not (fewer), not checkable (none checked).
func Verdict(holds, known int) string {
	switch {
	case known == 0:
		return VerdictNone
	case float64(holds) >= VerdictHoldsShare*float64(known):
		return VerdictHolds
	case float64(holds) >= VerdictPartlyShare*float64(known):
		return VerdictPartly
	}
	return VerdictDoesNot
}

// CombinedVerdict joins the verdicts of the sources that could check a claim: holds or does not only
// where every such source says so, partly otherwise.
func CombinedVerdict(vs ...string) string {
	var checked []string
	for _, v := range vs {
		if v != VerdictNone {
			checked = append(checked, v)
		}
	}
	if len(checked) == 0 {
		return VerdictNone
	}
	for _, v := range checked[1:] {
		if v != checked[0] {
			return VerdictPartly
		}
	}
	return checked[0]
}

// eccoFamily are the generators the paper calls variations of ECCCo in its main tables (ECCCo-L1, the
// appendix's discarded variant that penalises the unfaithfulness metric itself, is not one of them).
var eccoFamily = []string{"ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)"}

// cellMeans indexes the "all" cells by data set, model, generator and metric.
type cellMeans map[[4]string]float64

func meansOf(cells []compare.Cell) cellMeans {
	m := cellMeans{}
	for _, c := range cells {
		if c.Subset == "all" && !math.IsNaN(c.Mean) {
			m[[4]string{c.Dataset, c.Model, c.Generator, c.Metric}] = c.Mean
		}
	}
	return m
}

func (m cellMeans) get(ds, model, gen, metric string) (float64, bool) {
	v, ok := m[[4]string{ds, model, gen, metric}]
	return v, ok
}

// pairs lists the data set × model pairs of the cells in order.
func (m cellMeans) pairs() [][2]string {
	var ps [][2]string
	for k := range m {
		p := [2]string{k[0], k[1]}
		if !slices.Contains(ps, p) {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b [2]string) int {
		if a[0] != b[0] {
			return datasetOrder(a[0]) - datasetOrder(b[0])
		}
		return modelIndex(a[1]) - modelIndex(b[1])
	})
	return ps
}

// perPair counts the pairs where test is decidable (ok) and where it holds.
func perPair(cells []compare.Cell, test func(m cellMeans, ds, model string) (holds, ok bool)) (holds, known int) {
	m := meansOf(cells)
	for _, p := range m.pairs() {
		h, ok := test(m, p[0], p[1])
		if !ok {
			continue
		}
		known++
		if h {
			holds++
		}
	}
	return holds, known
}

// PaperClaims are the claims the report checks, in the paper's order.
var PaperClaims = []PaperClaim{
	{
		ID:    "ECCCo more faithful than Wachter",
		Quote: "we provide extensive empirical evidence demonstrating that ECCCo faithfully explains model behaviour",
		Where: "Section 1 (Introduction), the contributions; tested as its central comparison, ECCCo against the baseline",
		Test:  "data set × model pairs where ECCCo's unfaithfulness is below Wachter's",
		Limits: "A difference of means is counted whatever its size; the paper's own tables put ECCCo below Wachter in most pairs, " +
			"so this claim is the easiest to reproduce.",
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				e, ok1 := m.get(ds, model, "ECCCo", "unfaithfulness")
				w, ok2 := m.get(ds, model, "Wachter", "unfaithfulness")
				return e < w, ok1 && ok2
			})
		},
	},
	{
		ID:    "ECCCo's variants the most faithful",
		Quote: "Across all models and datasets highlighted here, different variations of ECCCo consistently outperform other generators with respect to faithfulness, in many cases substantially.",
		Where: "Section 5.2 (Faithfulness), first paragraph after Table 1",
		Test:  "pairs where the lowest unfaithfulness among the generators of the paper's main tables belongs to ECCCo, ECCCo+, ECCCo (no CP) or ECCCo (no EBM)",
		Limits: "ECCCo-L1, which penalises the unfaithfulness metric itself, is left out, as the paper's main tables leave it out; " +
			"where a data set's results lack the ablations, only ECCCo and ECCCo+ represent the family.",
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				best, bestGen := math.Inf(1), ""
				for _, g := range []string{"ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "REVISE", "Schut", "Wachter"} {
					if v, ok := m.get(ds, model, g, "unfaithfulness"); ok && v < best {
						best, bestGen = v, g
					}
				}
				_, hasW := m.get(ds, model, "Wachter", "unfaithfulness")
				return slices.Contains(eccoFamily, bestGen), bestGen != "" && hasW
			})
		},
	},
	{
		ID:     "The full objective the most faithful of the ablations",
		Quote:  "constraining both energy and predictive uncertainty typically yields the most faithful counterfactuals",
		Where:  "Section 5.2 (Faithfulness), second paragraph",
		Test:   "pairs where ECCCo's unfaithfulness is below both ablations', ECCCo (no CP) and ECCCo (no EBM)",
		Limits: "Checkable only where the ablations were run.",
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				e, ok1 := m.get(ds, model, "ECCCo", "unfaithfulness")
				cp, ok2 := m.get(ds, model, "ECCCo (no CP)", "unfaithfulness")
				ebm, ok3 := m.get(ds, model, "ECCCo (no EBM)", "unfaithfulness")
				return e < cp && e < ebm, ok1 && ok2 && ok3
			})
		},
	},
	{
		ID: "The energy term does the work (Fig. 2's decomposition)",
		Quote: "faithfulness can be improved substantially by relying solely on the energy constraint (ECCCo (no CP)) … " +
			"We expected the former to play a more significant role in this context and that is typically what we find across all datasets.",
		Where:   "Section 5.2 (Faithfulness), second paragraph; Figure 2 shows the same decomposition on a JEM",
		Test:    "pairs where ECCCo (no CP) is more faithful than Wachter and more faithful than ECCCo (no EBM)",
		Limits:  "Figure 2 is one factual on one model; the count is over the benchmark's pairs that ran both ablations.",
		Figures: []string{"fig2-poc"},
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				cp, ok1 := m.get(ds, model, "ECCCo (no CP)", "unfaithfulness")
				ebm, ok2 := m.get(ds, model, "ECCCo (no EBM)", "unfaithfulness")
				w, ok3 := m.get(ds, model, "Wachter", "unfaithfulness")
				return cp < w && cp < ebm, ok1 && ok2 && ok3
			})
		},
	},
	{
		ID:    "ECCCo+ approaches the best plausibility",
		Quote: "although REVISE generally performs best, ECCCo and in particular ECCCo+ often approach SOTA performance",
		Where: "Section 5.3 (Balancing Desiderata), second paragraph",
		Test: "pairs where ECCCo+ closes at least half of the implausibility gap from Wachter to REVISE " +
			"(where REVISE is not more plausible than Wachter: where ECCCo+ is at least as plausible as Wachter)",
		Limits: "\"Approach\" is not defined in the paper; half the gap is our reading of it.",
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				e, ok1 := m.get(ds, model, "ECCCo+", "implausibility")
				r, ok2 := m.get(ds, model, "REVISE", "implausibility")
				w, ok3 := m.get(ds, model, "Wachter", "implausibility")
				if !(ok1 && ok2 && ok3) {
					return false, false
				}
				if r >= w {
					return e <= w, true
				}
				return w-e >= 0.5*(w-r), true
			})
		},
	},
	{
		ID:    "Plausible exactly when the model learned plausibly",
		Quote: "It produces plausible counterfactuals if and only if the model itself has learned plausible explanations for the data.",
		Where: "Section 5.3 (Balancing Desiderata), last paragraph",
		Test: "per data set, JEM against MLP and JEM Ensemble against MLP Ensemble: pairs where ECCCo's relative gain in plausibility over " +
			"Wachter, (Wachter − ECCCo) / Wachter implausibility, is larger for the joint energy model, which the paper says is trained to learn plausible representations",
		Limits: "Whether a model \"learned plausibly\" is not measured; the model family stands in for it, as in the paper's own argument. " +
			"LeNet-5 has no plain counterpart and is left out.",
		Eval: func(cells []compare.Cell) (int, int) {
			m := meansOf(cells)
			holds, known := 0, 0
			gain := func(ds, model string) (float64, bool) {
				e, ok1 := m.get(ds, model, "ECCCo", "implausibility")
				w, ok2 := m.get(ds, model, "Wachter", "implausibility")
				if !ok1 || !ok2 || w == 0 {
					return 0, false
				}
				return (w - e) / w, true
			}
			var dss []string
			for _, p := range m.pairs() {
				if !slices.Contains(dss, p[0]) {
					dss = append(dss, p[0])
				}
			}
			for _, ds := range dss {
				for _, pr := range [][2]string{{"JEM", "MLP"}, {"JEM Ensemble", "MLP Ensemble"}} {
					j, ok1 := gain(ds, pr[0])
					p, ok2 := gain(ds, pr[1])
					if ok1 && ok2 {
						known++
						if j > p {
							holds++
						}
					}
				}
			}
			return holds, known
		},
	},
	{
		ID:    "ECCCo+ looks better than REVISE on MNIST",
		Quote: "Upon visual inspection of the generated images we actually find that ECCCo+ performs much better than REVISE (see appendix).",
		Where: "Section 5.3 (Balancing Desiderata), second paragraph; the appendix's MNIST figures",
		Test:  "MNIST models where ECCCo+'s implausibility (the structural dissimilarity to the target class's images) is below REVISE's",
		Limits: "The claim is visual and the metric is not: the paper's own tables put REVISE ahead on this metric. " +
			"The appendix's grids give a measured stand-in for the eye: the share of each grid's 90 counterfactuals that a 1-nearest-neighbour classifier on the training images reads as the target (their captions).",
		Figures: []string{"mnist-eccco-lenet", "mnist-revise-lenet"},
		Eval: func(cells []compare.Cell) (int, int) {
			return perPair(cells, func(m cellMeans, ds, model string) (bool, bool) {
				if ds != "mnist" {
					return false, false
				}
				e, ok1 := m.get(ds, model, "ECCCo+", "implausibility")
				r, ok2 := m.get(ds, model, "REVISE", "implausibility")
				return e < r, ok1 && ok2
			})
		},
	},
}

// ClaimSource is a set of cells a claim is checked on: a mode's results or the published tables.
type ClaimSource struct {
	Name  string
	Cells []compare.Cell
	// Ours is false for the published tables, whose count is shown but does not enter the verdict.
	Ours bool
}

// ClaimResult is a claim checked on every source.
type ClaimResult struct {
	Claim PaperClaim
	// Holds, Known and Verdicts have one entry per source.
	Holds, Known []int
	Verdicts     []string
	// Verdict combines the verdicts of our sources (CombinedVerdict).
	Verdict string
}

// CheckPaperClaims checks every PaperClaim on every source.
func CheckPaperClaims(sources []ClaimSource) []ClaimResult {
	var out []ClaimResult
	for _, c := range PaperClaims {
		r := ClaimResult{Claim: c}
		var ours []string
		for _, s := range sources {
			h, k := c.Eval(s.Cells)
			v := Verdict(h, k)
			r.Holds, r.Known, r.Verdicts = append(r.Holds, h), append(r.Known, k), append(r.Verdicts, v)
			if s.Ours {
				ours = append(ours, v)
			}
		}
		r.Verdict = CombinedVerdict(ours...)
		out = append(out, r)
	}
	return out
}

// verdictTitle capitalises a verdict for a table cell.
func verdictTitle(v string) string {
	if v == "" {
		return v
	}
	return strings.ToUpper(v[:1]) + v[1:]
}
