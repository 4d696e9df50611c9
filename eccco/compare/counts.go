package compare

import (
	"math"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/internal/stats"
)

// The counts of a comparison are defined here once; the comparison report, the report's summary and the
// headlines of README.md and paper/differences.md print them as Comparison.Counts returns them.
const (
	// BothRoundedRule states how WithinBothRounded is decided: a second rounding-aware rule that allows
	// for the rounding of the published mean as well as of its sd. It is printed beside ToleranceRule and
	// decides nothing else (not Within, not the misses).
	BothRoundedRule = "|ours − paper| ≤ 3·max(sd, h) + h, h being half the cell's last printed decimal (0.005 at the appendix's two decimals, 0.0005 at Table 2's three): the published mean and sd are both rounded"
	// ByConstructionRule says which cells are fixed by construction (ByConstruction).
	ByConstructionRule = "the validity of the valid counterfactuals (subset \"valid\"), 1 on both sides by definition"
	// ZRule states Welch's z of a cell (WelchZ).
	ZRule = "Welch's z = (ours − paper) / √(sd_ours·sd_ours/n_ours + s·s/n_paper) with s = max(sd_paper, h), the sd being those of the run means and n the runs (ours as run; the paper's 50, 10 for the image sets); the published sd is rounded, so one printed as 0.00 is taken as h = 0.005 and one printed as 0.000 (Table 2's three decimals) as 0.0005"
	// ZThreshold is the |z| above which a difference of the two means is significant.
	ZThreshold = 3.0
)

// WithinBothRounded reports |ours − paper| ≤ 3·max(sd, h) + h with h = HalfDecimal(decimals), the
// published cell printed to decimals (0: AppendixDecimals; BothRoundedRule).
func WithinBothRounded(ours, paper, sd float64, decimals int) bool {
	h := HalfDecimal(decimals)
	return math.Abs(ours-paper) <= 3*math.Max(sd, h)+h+floatSlack
}

// FloorOnly reports a cell within the rounding-aware tolerance only by its rounding floor,
// RoundingFloor of its decimals (0.015 at two, 0.0015 at three): |ours − paper| is more than 3·sd (the
// published sd as printed) and at most the floor.
func FloorOnly(r ComparedCell) bool { return r.Within && !r.WithinStrict }

// ByConstruction reports a cell whose value is fixed by construction on both sides (ByConstructionRule):
// it agrees whatever the implementation does, so it says nothing about the reproduction.
func ByConstruction(r ComparedCell) bool { return r.Subset == "valid" && r.Metric == "validity" }

// PublishedRuns is the number of runs behind a published cell: the paper's protocol
// (benchmark.PaperProtocol: 50, 10 for MNIST and Fashion-MNIST); 0 for a data set the paper does not have.
func PublishedRuns(dataset string) int {
	p, err := benchmark.PaperProtocol(dataset)
	if err != nil {
		return 0
	}
	return p.Runs
}

// WelchZ is the two-sample z of the difference of two means of run means (ZRule): oursSD and paperSD are
// the sd of the run means, oursRuns and paperRuns their numbers, paperDecimals the decimals the paper
// printed the cell with (0: AppendixDecimals). The published sd is floored at PublishedSDFloor (0.005 at
// two decimals, 0.0005 at three). NaN where a side has fewer than two runs; ±Inf where the difference is
// not zero and both sd are (never, with the floor).
func WelchZ(ours, oursSD float64, oursRuns int, paper, paperSD float64, paperDecimals, paperRuns int) float64 {
	if oursRuns < 2 || paperRuns < 2 || math.IsNaN(ours) || math.IsNaN(oursSD) {
		return math.NaN()
	}
	v := oursSD*oursSD/float64(oursRuns) + math.Pow(math.Max(paperSD, PublishedSDFloor(paperDecimals)), 2)/float64(paperRuns)
	return (ours - paper) / math.Sqrt(v)
}

// Z is a compared cell's Welch z (WelchZ, the paper's runs from PublishedRuns).
func (r ComparedCell) Z() float64 {
	return WelchZ(r.Mean, r.SD, r.Runs, r.Paper, r.PaperSD, r.PaperDecimals, PublishedRuns(r.Dataset))
}

// ChanceShare is the share of cells expected to have |z| > ZThreshold by chance alone, were ours and the
// paper's estimating the same means (two-sided, normal: 0.27 % for 3).
func ChanceShare() float64 { return math.Erfc(ZThreshold / math.Sqrt2) }

// Tally counts compared cells against the tolerances.
type Tally struct {
	Cells int
	// Within are the cells within the rounding-aware tolerance (WithinRounding), FloorOnly those of them
	// within only by its floor (FloorOnly), Strict those within 3·sd (WithinStrict); Within = Strict +
	// FloorOnly. BothRounded are the cells within BothRoundedRule.
	Within, FloorOnly, Strict, BothRounded int
	// Misses are the cells outside the rounding-aware tolerance.
	Misses int
	// Discriminating are the cells whose tolerance can tell generators apart (DiscriminatingRule),
	// WithinDiscriminating those of them within the tolerance; the others' agreement says nothing.
	Discriminating, WithinDiscriminating int
	// Significant are the cells with |z| > ZThreshold (WelchZ), SignificantMisses the misses among them.
	Significant, SignificantMisses int
	// MinMissZ is the least |z| of a miss (NaN without misses or z).
	MinMissZ float64
}

// TallyOf counts rows.
func TallyOf(rows []ComparedCell) Tally {
	t := Tally{Cells: len(rows), MinMissZ: math.NaN()}
	for _, r := range rows {
		if r.Within {
			t.Within++
		} else {
			t.Misses++
		}
		if FloorOnly(r) {
			t.FloorOnly++
		}
		if r.WithinStrict {
			t.Strict++
		}
		if r.Discriminating {
			t.Discriminating++
			if r.Within {
				t.WithinDiscriminating++
			}
		}
		if WithinBothRounded(r.Mean, r.Paper, r.PaperSD, r.PaperDecimals) {
			t.BothRounded++
		}
		z := math.Abs(r.Z())
		if z > ZThreshold {
			t.Significant++
		}
		if !r.Within {
			if z > ZThreshold {
				t.SignificantMisses++
			}
			if !math.IsNaN(z) && (math.IsNaN(t.MinMissZ) || z < t.MinMissZ) {
				t.MinMissZ = z
			}
		}
	}
	return t
}

// SignTally counts the sign comparisons of one difference over the data set × model pairs where both
// sides have it (Known): Ties where the paper prints the difference as 0.00 (no sign to agree with),
// Agree and Disagree the others.
type SignTally struct {
	Known, Agree, Disagree, Ties int
}

// Counts are a comparison's headline counts.
type Counts struct {
	// All counts every compared cell; Open those not fixed by construction (ByConstruction), which are
	// ByConstruction fewer.
	All, Open      Tally
	ByConstruction int
	// Unfaith is the sign of ECCCo − Wachter (unfaithfulness), Impl that of REVISE − Wachter
	// (implausibility).
	Unfaith, Impl SignTally
}

// Counts returns the comparison's headline counts.
func (c Comparison) Counts() Counts {
	var open []ComparedCell
	for _, r := range c.Rows {
		if !ByConstruction(r) {
			open = append(open, r)
		}
	}
	out := Counts{All: TallyOf(c.Rows), Open: TallyOf(open), ByConstruction: len(c.Rows) - len(open)}
	for _, s := range c.Signs {
		TallySign(&out.Unfaith, s.UnfaithKnown, s.UnfaithTie, s.UnfaithAgrees)
		TallySign(&out.Impl, s.ImplKnown, s.ImplTie, s.ImplAgrees)
	}
	return out
}

// TallySign adds one pair's sign comparison to t: nothing where the pair is not known on both sides, a tie
// where the paper prints the difference as 0.00, else an agreement or a disagreement.
func TallySign(t *SignTally, known, tie, agrees bool) {
	switch {
	case !known:
	case tie:
		t.Known++
		t.Ties++
	case agrees:
		t.Known++
		t.Agree++
	default:
		t.Known++
		t.Disagree++
	}
}

// PrintedZero reports a published difference that prints as 0.00 at the paper's two decimals (a tie). The
// differences it is asked about are of cells of all counterfactuals, which the paper prints to two
// decimals only (AppendixDecimals; Table 2's three-decimal cells are valid counterfactuals').
func PrintedZero(d float64) bool { return math.Abs(d) < HalfDecimal(AppendixDecimals)-floatSlack }

// OffsetRule states when a metric of a data set is offset from the paper's systematically (Offsets).
const OffsetRule = "a metric of a data set is offset systematically where, over its cells of all counterfactuals, at least 80 % of ours − paper have one sign and their median is at least the coarsest rounding floor of those cells in size (0.015: the paper prints its cells of all counterfactuals to two decimals)"

// Offset is the shift of one metric of a data set's "all" cells from the published ones.
type Offset struct {
	Metric string
	// Cells are the metric's compared cells of subset "all"; Above and Below those where ours is above or
	// below the paper's; Median the median of ours − paper.
	Cells, Above, Below int
	Median              float64
	// GenLow and GenHigh are the least and largest of the generators' own medians of ours − paper: how far
	// the shift differs between generators, which is what it can do to a difference between them.
	GenLow, GenHigh float64
}

// Offsets lists the systematic offsets (OffsetRule) of rows, one data set's compared cells, in the order
// of Metrics.
func Offsets(rows []ComparedCell) []Offset {
	var out []Offset
	for _, m := range Metrics {
		var d []float64
		byGen := map[string][]float64{}
		o := Offset{Metric: m.Name}
		floor := 0.0
		for _, r := range rows {
			if r.Subset != "all" || r.Metric != m.Name {
				continue
			}
			floor = math.Max(floor, RoundingFloor(r.PaperDecimals))
			x := r.Mean - r.Paper
			d = append(d, x)
			byGen[r.Generator] = append(byGen[r.Generator], x)
			switch {
			case x > floatSlack:
				o.Above++
			case x < -floatSlack:
				o.Below++
			}
		}
		o.Cells = len(d)
		if o.Cells == 0 {
			continue
		}
		o.Median = stats.MedianNonNaN(d)
		if 5*max(o.Above, o.Below) < 4*o.Cells || math.Abs(o.Median) < floor-floatSlack {
			continue
		}
		o.GenLow, o.GenHigh = math.Inf(1), math.Inf(-1)
		for _, v := range byGen {
			g := stats.MedianNonNaN(v)
			o.GenLow, o.GenHigh = math.Min(o.GenLow, g), math.Max(o.GenHigh, g)
		}
		out = append(out, o)
	}
	return out
}
