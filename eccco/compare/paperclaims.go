package compare

import (
	"math"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
)

// PaperClaim is one of the paper's claims about its results (Altmeyer et al., AAAI-24), quoted with where
// it stands, and the differences that test it per unit (TestClaim, ClaimRule). Every difference reads the
// "all" subset (all counterfactuals).
type PaperClaim struct {
	// ID names the claim; Quote is the paper's text, Where its place in the paper.
	ID, Quote, Where string
	// Test says in words which differences are tested; Limits what bounds the verdict beyond them.
	Test, Limits string
	// Figures are figure stems that bear on the claim, shown beside it where present.
	Figures []string
	// Units lists the units the claim is about among a source's data set × model pairs (nil: all of
	// them); Contrasts gives a unit's differences, ok false where a cell it needs is missing.
	Units     func(pairs [][2]string) [][2]string
	Contrasts func(ix *index, ds, model string) ([]Contrast, bool)
}

// DatasetOrder is a data set's place in the paper's order (data.Names); others after them.
func DatasetOrder(name string) int {
	if i := slices.Index(data.Names(), name); i >= 0 {
		return i
	}
	return 100
}

// NNTargetShare is the metric of the cells that GridShareCells makes: the share of a grid's
// counterfactuals read as their target by a 1-nearest-neighbour classifier on the training images.
const NNTargetShare = "read as the target (1-NN)"

// GridShareCells turns the shares of an appendix grid into cells that claim 9 tests: mean p, sd
// √(p(1 − p)) and one "run" per counterfactual, so that Welch's interval is the two-proportion one.
func GridShareCells(dataset, model, generator string, p float64, n int) Cell {
	return Cell{Dataset: dataset, Subset: "all", Model: model, Generator: generator, Metric: NNTargetShare,
		Mean: p, SD: math.Sqrt(p * (1 - p)), Runs: n}
}

// eccoFamily are the generators the paper calls variations of ECCCo in its main tables (ECCCo-L1, the
// appendix's discarded variant that penalises the unfaithfulness metric itself, is not one of them).
var eccoFamily = []catalogue.Name{catalogue.ECCCo, catalogue.ECCCoPlus, catalogue.ECCCoNoCP, catalogue.ECCCoNoEBM}

// mainGenerators are the generators of the paper's main tables.
var mainGenerators = []catalogue.Name{catalogue.ECCCo, catalogue.ECCCoPlus, catalogue.ECCCoNoCP, catalogue.ECCCoNoEBM, catalogue.REVISE, catalogue.Schut, catalogue.Wachter}

// term is one generator's metric on a model.
func term(model string, g catalogue.Name, metric string) Term { return Term{model, string(g), metric} }

// diff is a − b of one metric on the unit's model.
func diff(model string, a, b catalogue.Name, metric string, want Direction) Contrast {
	return Contrast{Label: string(a) + " − " + string(b) + " " + metric, Want: want,
		Terms: []Term{term(model, a, metric), term(model, b, metric)},
		F:     func(v []float64) float64 { return v[0] - v[1] }}
}

// needs reports whether ix has metric for every generator on ds × model.
func needs(ix *index, ds, model, metric string, gens ...catalogue.Name) bool {
	for _, g := range gens {
		if !ix.has(ds, model, g, metric) {
			return false
		}
	}
	return true
}

// pairsWhere keeps the pairs for which keep holds.
func pairsWhere(keep func(ds, model string) bool) func([][2]string) [][2]string {
	return func(ps [][2]string) [][2]string {
		var out [][2]string
		for _, p := range ps {
			if keep(p[0], p[1]) {
				out = append(out, p)
			}
		}
		return out
	}
}

// minOf is the difference min(first k terms) − min(the others).
func minOf(k int) func(v []float64) float64 {
	return func(v []float64) float64 { return slices.Min(v[:k]) - slices.Min(v[k:]) }
}

// plainOf pairs each model trained to learn plausibly with its plain counterpart.
var plainOf = map[string]string{"JEM": "MLP", "JEM Ensemble": "MLP Ensemble"}

// relativeGain is (Wachter − ECCCo) / Wachter implausibility, for terms {ECCCo, Wachter}.
func relativeGain(e, w float64) float64 { return (w - e) / w }

// PaperClaims are the claims tested, in the paper's order.
var PaperClaims = []PaperClaim{
	{
		ID:    "ECCCo more faithful than Wachter",
		Quote: "we provide extensive empirical evidence demonstrating that ECCCo faithfully explains model behaviour",
		Where: "Section 1 (Introduction), the contributions; tested as its central comparison, ECCCo against the baseline",
		Test:  "ECCCo − Wachter unfaithfulness, per data set × model",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCo, catalogue.Wachter, "unfaithfulness", Below)}, needs(ix, ds, model, "unfaithfulness", catalogue.ECCCo, catalogue.Wachter)
		},
	},
	{
		ID:    "ECCCo's variants the most faithful",
		Quote: "Across all models and datasets highlighted here, different variations of ECCCo consistently outperform other generators with respect to faithfulness, in many cases substantially.",
		Where: "Section 5.2 (Faithfulness), first paragraph after Table 1",
		Test:  "the least unfaithfulness of ECCCo, ECCCo+, ECCCo (no CP) and ECCCo (no EBM) − the least of REVISE, Schut and Wachter (those of them run)",
		Limits: "ECCCo-L1, which penalises the unfaithfulness metric itself, is left out, as the paper's main tables leave it out; " +
			"where a data set's results lack the ablations, ECCCo and ECCCo+ represent the family.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			var fam, oth []Term
			for _, g := range mainGenerators {
				if !ix.has(ds, model, g, "unfaithfulness") {
					continue
				}
				if slices.Contains(eccoFamily, g) {
					fam = append(fam, term(model, g, "unfaithfulness"))
				} else {
					oth = append(oth, term(model, g, "unfaithfulness"))
				}
			}
			if len(fam) == 0 || !ix.has(ds, model, catalogue.Wachter, "unfaithfulness") {
				return nil, false
			}
			return []Contrast{{Label: "min(ECCCo family) − min(others) unfaithfulness", Want: Below,
				Terms: append(fam, oth...), F: minOf(len(fam))}}, true
		},
	},
	{
		ID:     "The full objective the most faithful of the ablations",
		Quote:  "In most cases, however, the full objective yields the most faithful counterfactuals. This indicates that predictive uncertainty minimization plays an important role in achieving faithfulness.",
		Where:  "Section 5.2 (Faithfulness), second paragraph",
		Test:   "ECCCo − ECCCo (no CP) and ECCCo − ECCCo (no EBM) unfaithfulness, both",
		Limits: "Testable only where the ablations were run. In the paper's equations the conformal term Ω is 0 on every binary data set, so ECCCo and ECCCo (no CP) coincide there.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCo, catalogue.ECCCoNoCP, "unfaithfulness", Below), diff(model, catalogue.ECCCo, catalogue.ECCCoNoEBM, "unfaithfulness", Below)},
				needs(ix, ds, model, "unfaithfulness", catalogue.ECCCo, catalogue.ECCCoNoCP, catalogue.ECCCoNoEBM)
		},
	},
	{
		ID: "The energy term does the work",
		Quote: "We expected the former to play a more significant role in this context and that is typically what we find across all datasets. " +
			"The results in Table 1 indicate that faithfulness can be improved substantially by relying solely on the energy constraint (ECCCo (no CP)).",
		Where:   "Section 5.2 (Faithfulness), second paragraph; Figure 2 shows the same decomposition on one factual of a JEM",
		Test:    "ECCCo (no CP) − Wachter and ECCCo (no CP) − ECCCo (no EBM) unfaithfulness, both",
		Limits:  "Testable only where the ablations were run; Figure 2 is one factual on one model.",
		Figures: []string{"fig2-poc", "fig2-poc-authors"},
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCoNoCP, catalogue.Wachter, "unfaithfulness", Below), diff(model, catalogue.ECCCoNoCP, catalogue.ECCCoNoEBM, "unfaithfulness", Below)},
				needs(ix, ds, model, "unfaithfulness", catalogue.Wachter, catalogue.ECCCoNoCP, catalogue.ECCCoNoEBM)
		},
	},
	{
		ID:     "Latent search does not impede faithfulness",
		Quote:  "We also generally find that latent space search does not impede faithfulness for ECCCo. In most cases ECCCo+ is either on par with ECCCo or even outperforms it.",
		Where:  "Section 5.2 (Faithfulness), third paragraph",
		Test:   "ECCCo+ − ECCCo unfaithfulness: not materially above zero (its interval's upper end below 5 % of the metric)",
		Limits: "The paper names exceptions (the MNIST MLP); they count against the claim here.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCoPlus, catalogue.ECCCo, "unfaithfulness", NotAbove)}, needs(ix, ds, model, "unfaithfulness", catalogue.ECCCo, catalogue.ECCCoPlus)
		},
	},
	{
		ID:    "REVISE more faithful for the models that learned plausibly",
		Quote: "REVISE generates more faithful counterfactuals than the baseline for the JEM Ensemble in Table 1 and the LeNet-5 CNN in Table 2.",
		Where: "Section 5.2 (Faithfulness), fourth paragraph",
		Test:  "REVISE − Wachter unfaithfulness on the JEM Ensemble of California Housing and GMSC and on MNIST's LeNet-5",
		Units: pairsWhere(func(ds, model string) bool {
			return (model == "JEM Ensemble" && (ds == "california-housing" || ds == "gmsc")) || (model == "LeNet-5" && ds == "mnist")
		}),
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.REVISE, catalogue.Wachter, "unfaithfulness", Below)}, needs(ix, ds, model, "unfaithfulness", catalogue.REVISE, catalogue.Wachter)
		},
	},
	{
		ID:    "ECCCo+ approaches the best plausibility",
		Quote: "although REVISE generally performs best, ECCCo and in particular ECCCo+ often approach SOTA performance",
		Where: "Section 5.3 (Balancing Desiderata), second paragraph",
		Test:  "ECCCo+ − (Wachter + REVISE) / 2 implausibility: ECCCo+ closes at least half of the gap from Wachter to REVISE",
		Limits: "\"Approach\" is not defined in the paper; half the gap is our reading of it. Where REVISE is less plausible than Wachter, " +
			"the midpoint lies above Wachter and the test is weaker.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{{Label: "ECCCo+ − (Wachter + REVISE) / 2 implausibility", Want: Below,
					Terms: []Term{term(model, catalogue.ECCCoPlus, "implausibility"), term(model, catalogue.Wachter, "implausibility"), term(model, catalogue.REVISE, "implausibility")},
					F:     func(v []float64) float64 { return v[0] - (v[1]+v[2])/2 }}},
				needs(ix, ds, model, "implausibility", catalogue.ECCCoPlus, catalogue.Wachter, catalogue.REVISE)
		},
	},
	{
		ID:    "ECCCo+ second only to REVISE on vision",
		Quote: "For the vision datasets especially, we find that ECCCo+ is consistently second only to REVISE for all models and regularly substantially better than the baseline.",
		Where: "Section 5.3 (Balancing Desiderata), third paragraph",
		Test:  "on MNIST and Fashion-MNIST, ECCCo+ − the least implausibility of the other generators of the main tables but REVISE",
		Units: pairsWhere(func(ds, _ string) bool { return ds == "mnist" || ds == "fashion-mnist" }),
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			terms := []Term{term(model, catalogue.ECCCoPlus, "implausibility")}
			for _, g := range mainGenerators {
				if g != catalogue.ECCCoPlus && g != catalogue.REVISE && ix.has(ds, model, g, "implausibility") {
					terms = append(terms, term(model, g, "implausibility"))
				}
			}
			return []Contrast{{Label: "ECCCo+ − min(others but REVISE) implausibility", Want: Below, Terms: terms, F: minOf(1)}},
				len(terms) > 1 && ix.has(ds, model, catalogue.ECCCoPlus, "implausibility")
		},
	},
	{
		ID:    "ECCCo+ looks better than REVISE on MNIST",
		Quote: "Upon visual inspection of the generated images we actually find that ECCCo+ performs much better than REVISE (see appendix).",
		Where: "Section 5.3 (Balancing Desiderata), second paragraph; the appendix's MNIST figures",
		Test: "on MNIST, per model, the share of ECCCo+'s appendix grid that a 1-nearest-neighbour classifier on the training images reads as the target − REVISE's " +
			"(" + NNTargetShare + "; Welch's test of two proportions, each of the grid's 90 counterfactuals one draw)",
		Limits: "The eye is not measured; the nearest training image stands in for it. The shares come from the appendix grids of the authors'-code image models " +
			"(figures/gallery), so only that result set can test the claim; the paper's own tables put REVISE ahead on implausibility (SSIM), which the claim sets aside.",
		Figures: []string{"mnist-eccco-lenet", "mnist-revise-lenet"},
		Units:   pairsWhere(func(ds, _ string) bool { return ds == "mnist" }),
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			c := diff(model, catalogue.ECCCoPlus, catalogue.REVISE, NNTargetShare, Above)
			c.Relative = true
			return []Contrast{c}, needs(ix, ds, model, NNTargetShare, catalogue.ECCCoPlus, catalogue.REVISE)
		},
	},
	{
		ID:    "ECCCo reduces predictive uncertainty",
		Quote: "we firstly note that ECCCo typically reduces predictive uncertainty as intended",
		Where: "Section 5.4 (Additional Desiderata), first paragraph",
		Test:  "ECCCo − Wachter uncertainty (the conformal set size)",
		Limits: "Where both set sizes are 0 (the binary data sets, whose conformal sets hold one class for nearly every counterfactual), " +
			"no difference can count.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCo, catalogue.Wachter, "uncertainty", Below)}, needs(ix, ds, model, "uncertainty", catalogue.ECCCo, catalogue.Wachter)
		},
	},
	{
		ID:     "Closeness traded against plausibility and faithfulness",
		Quote:  "As evident from the additional tables in the appendix, the closeness desideratum tends to be negatively correlated with plausibility and faithfulness.",
		Where:  "Section 5.4 (Additional Desiderata), second paragraph",
		Test:   "ECCCo − Wachter cost: the more faithful generator farther from the factual than the one that only seeks closeness",
		Limits: "A correlation over generators is read as one difference, ECCCo against the baseline that minimises the distance alone.",
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{diff(model, catalogue.ECCCo, catalogue.Wachter, "cost", Above)}, needs(ix, ds, model, "cost", catalogue.ECCCo, catalogue.Wachter)
		},
	},
	{
		ID:    "Plausible if the model learned plausibly",
		Quote: "It produces plausible counterfactuals if and only if the model itself has learned plausible explanations for the data.",
		Where: "Section 5.3 (Balancing Desiderata), last paragraph; the \"if\" direction",
		Test: "per data set, the joint energy model against its plain counterpart (JEM against MLP, JEM Ensemble against MLP Ensemble): " +
			"ECCCo's relative gain in plausibility over Wachter, (Wachter − ECCCo) / Wachter implausibility, is larger on the joint energy model",
		Limits: "Whether a model \"learned plausibly\" is not measured; the model family stands in for it, as in the paper's own argument. " +
			"LeNet-5 has no plain counterpart and is left out.",
		Units: jemUnits,
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			plain := plainOf[model]
			return []Contrast{{Label: "gain on " + model + " − gain on " + plain, Want: Above, Relative: true,
					Terms: []Term{term(model, catalogue.ECCCo, "implausibility"), term(model, catalogue.Wachter, "implausibility"), term(plain, catalogue.ECCCo, "implausibility"), term(plain, catalogue.Wachter, "implausibility")},
					F:     func(v []float64) float64 { return relativeGain(v[0], v[1]) - relativeGain(v[2], v[3]) }}},
				needs(ix, ds, model, "implausibility", catalogue.ECCCo, catalogue.Wachter) && needs(ix, ds, plain, "implausibility", catalogue.ECCCo, catalogue.Wachter)
		},
	},
	{
		ID:    "Plausible only if the model learned plausibly",
		Quote: "It produces plausible counterfactuals if and only if the model itself has learned plausible explanations for the data.",
		Where: "Section 5.3 (Balancing Desiderata), last paragraph; the \"only if\" direction",
		Test:  "on the plain models (MLP, MLP Ensemble) of the data sets that have a joint energy model: ECCCo's relative gain in plausibility over Wachter is not materially above zero",
		Limits: "The model family stands in for whether a model learned plausibly; \"plausible\" is read as more plausible than the baseline. " +
			"The paper itself reports ECCCo improving plausibility on the MLP Ensembles of both tabular data sets, which this direction counts against.",
		Units: plainUnits,
		Contrasts: func(ix *index, ds, model string) ([]Contrast, bool) {
			return []Contrast{{Label: "gain on " + model, Want: NotAbove, Relative: true,
					Terms: []Term{term(model, catalogue.ECCCo, "implausibility"), term(model, catalogue.Wachter, "implausibility")},
					F:     func(v []float64) float64 { return relativeGain(v[0], v[1]) }}},
				needs(ix, ds, model, "implausibility", catalogue.ECCCo, catalogue.Wachter)
		},
	},
}

// jemUnits are the joint energy models with a plain counterpart among pairs.
func jemUnits(pairs [][2]string) [][2]string {
	var out [][2]string
	for _, p := range pairs {
		if plain, ok := plainOf[p[1]]; ok && slices.Contains(pairs, [2]string{p[0], plain}) {
			out = append(out, p)
		}
	}
	return out
}

// plainUnits are the plain models with a joint energy counterpart among pairs.
func plainUnits(pairs [][2]string) [][2]string {
	var out [][2]string
	for _, p := range pairs {
		for jem, plain := range plainOf {
			if p[1] == plain && slices.Contains(pairs, [2]string{p[0], jem}) {
				out = append(out, p)
			}
		}
	}
	return out
}

// units lists the units of claim c among pairs.
func (c PaperClaim) units(pairs [][2]string) [][2]string {
	if c.Units == nil {
		return pairs
	}
	return c.Units(pairs)
}
