package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// Markdown renders the comparison: a summary of each claim per source, then one line per data set ×
// model with ECCCo − Wachter unfaithfulness and implausibility, ECCCo's faithfulness rank and validity.
func ModesMarkdown(mc compare.ModeComparison) string {
	var sb strings.Builder
	sb.WriteString("# ECCCo's claims under each source\n\nWhere the paper's text and the authors' code disagree (eccco-go's two modes), does ECCCo's claim survive? Each claim is checked per data set × model on all counterfactuals of each source (`eccco modes`; compare.Claims); a source lacking a pair or a metric leaves it out of the count.\n\n")
	sb.WriteString("| claim |")
	for _, s := range mc.Sources {
		sb.WriteString(" " + s + " |")
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(mc.Sources)) + "\n")
	for k, claim := range compare.Claims {
		sb.WriteString("| " + claim + " |")
		for s := range mc.Sources {
			h, n := mc.Tally(s, k)
			sb.WriteString(" " + share(h, n) + " |")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\nPer data set × model (all counterfactuals): ECCCo − Wachter unfaithfulness / implausibility, ECCCo's unfaithfulness rank among the generators, ECCCo's validity.\n\n")
	sb.WriteString("| data set | model |")
	for _, s := range mc.Sources {
		sb.WriteString(" " + s + " |")
	}
	sb.WriteString("\n|---|---|" + strings.Repeat("---|", len(mc.Sources)) + "\n")
	for _, r := range mc.Rows {
		fmt.Fprintf(&sb, "| %s | %s |", r.Dataset, r.Model)
		for _, c := range r.Checks {
			if c == nil {
				sb.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&sb, " %s / %s, rank %d of %d, valid %s |", signed(c.UnfaithDiff, 2), fmtOrDash(c.ImplDiff, true), c.Rank, c.Generators, fmtOrDash(c.Validity, false))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

func fmtOrDash(v float64, sign bool) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case sign:
		return signed(v, 2)
	}
	return fmt.Sprintf("%.2f", v)
}

// CompareResultDirs reads the results.csv of each benchmark directory (named by names) and compares the
// claims in them (compare.CompareModes) and, when published is not "", in the published tables (added as
// a last source named "paper").
func CompareResultDirs(names, dirs []string, published string) (compare.ModeComparison, error) {
	if len(names) != len(dirs) {
		return compare.ModeComparison{}, fmt.Errorf("report: %d names for %d result directories", len(names), len(dirs))
	}
	var sets [][]compare.Cell
	for _, d := range dirs {
		rows, err := benchmark.ReadResults(d)
		if err != nil {
			return compare.ModeComparison{}, fmt.Errorf("report: comparing modes: %w", err)
		}
		cells := compare.Aggregate(rows)
		for k, missing := range compare.MissingForClaims(cells) {
			if len(missing) > 0 {
				return compare.ModeComparison{}, fmt.Errorf("report: comparing modes: %w: %s holds no results of %s, which the claim %q needs; run the benchmark with them (bench --generators)",
					experiment.ErrInvalid, d, strings.Join(missing, ", "), compare.Claims[k])
			}
		}
		sets = append(sets, cells)
	}
	if published != "" {
		pub, err := compare.ReadPublished(published)
		if err != nil {
			return compare.ModeComparison{}, err
		}
		names = append(slices.Clone(names), "paper")
		sets = append(sets, compare.PublishedCells(pub))
	}
	return compare.CompareModes(names, sets...)
}
