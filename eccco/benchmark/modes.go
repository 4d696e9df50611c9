package benchmark

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Claims are the paper's headline claims about ECCCo, checked per data set × model on the "all" subset:
// it is more faithful than Wachter (lower unfaithfulness), more faithful than every generator outside the
// ECCCo family (Wachter, REVISE, Schut: those run), more plausible than Wachter (lower implausibility),
// and valid (validity ≥ 0.9).
var Claims = []string{"ECCCo more faithful than Wachter", "ECCCo more faithful than Wachter, REVISE and Schut",
	"ECCCo more plausible than Wachter", "ECCCo valid (≥ 0.9)"}

// ClaimCheck is what one source (a mode's results, or the published tables) says about the claims for a
// data set × model.
type ClaimCheck struct {
	// UnfaithDiff and ImplDiff are ECCCo − Wachter; Rank is ECCCo's unfaithfulness rank (1 = lowest) among
	// Generators; Validity is ECCCo's.
	UnfaithDiff, ImplDiff, Validity float64
	Rank, Generators                int
	// Holds has one entry per Claims (false also when a number is missing); Known says which were
	// checkable.
	Holds, Known []bool
}

// ModeRow compares the sources for one data set × model.
type ModeRow struct {
	Dataset, Model string
	// Checks has one entry per source of ModeComparison.Sources (nil where a source lacks the pair).
	Checks []*ClaimCheck
}

// ModeComparison sets two (or more) result sets side by side — e.g. the paper's equations and the
// authors' code — and, when given, the published tables, and counts where ECCCo's claims hold.
type ModeComparison struct {
	Sources []string
	Rows    []ModeRow
}

// CheckClaims evaluates Claims on cells for one data set and model ("all" subset). It returns nil when
// the cells hold no ECCCo or no Wachter unfaithfulness for the pair.
func CheckClaims(cells []Cell, dataset, model string) *ClaimCheck {
	mean := map[[2]string]float64{} // (generator, metric) → mean
	for _, c := range cells {
		if c.Dataset == dataset && c.Model == model && c.Subset == "all" && !math.IsNaN(c.Mean) {
			mean[[2]string{c.Generator, c.Metric}] = c.Mean
		}
	}
	eu, ok1 := mean[[2]string{"ECCCo", "unfaithfulness"}]
	wu, ok2 := mean[[2]string{"Wachter", "unfaithfulness"}]
	if !ok1 || !ok2 {
		return nil
	}
	ch := &ClaimCheck{UnfaithDiff: eu - wu, Rank: 1, Holds: make([]bool, len(Claims)), Known: make([]bool, len(Claims))}
	for k, v := range mean {
		if k[1] == "unfaithfulness" {
			ch.Generators++
			if v < eu {
				ch.Rank++
			}
		}
	}
	ch.Known[0], ch.Holds[0] = true, ch.UnfaithDiff < 0
	ch.Known[1], ch.Holds[1] = true, true
	for _, g := range []string{"Wachter", "REVISE", "Schut"} {
		if v, ok := mean[[2]string{g, "unfaithfulness"}]; ok && v <= eu {
			ch.Holds[1] = false
		}
	}
	ei, ok1 := mean[[2]string{"ECCCo", "implausibility"}]
	wi, ok2 := mean[[2]string{"Wachter", "implausibility"}]
	ch.ImplDiff = math.NaN()
	if ok1 && ok2 {
		ch.ImplDiff = ei - wi
		ch.Known[2], ch.Holds[2] = true, ch.ImplDiff < 0
	}
	ch.Validity = math.NaN()
	if v, ok := mean[[2]string{"ECCCo", "validity"}]; ok {
		ch.Validity = v
		ch.Known[3], ch.Holds[3] = true, v >= 0.9
	}
	return ch
}

// PublishedCells turns the published numbers into cells, so that CompareModes can set them beside ours.
func PublishedCells(pub []Published) []Cell {
	out := make([]Cell, 0, len(pub))
	for _, p := range pub {
		out = append(out, Cell{Dataset: p.Dataset, Subset: p.Subset, Model: p.Model, Generator: p.Generator,
			Metric: p.Metric, Mean: p.Mean, SD: p.SD})
	}
	return out
}

// CompareModes checks the claims in each source (named by names, cells by sets) for every data set ×
// model that the first source holds.
func CompareModes(names []string, sets ...[]Cell) (ModeComparison, error) {
	if len(names) != len(sets) || len(sets) < 2 {
		return ModeComparison{}, fmt.Errorf("benchmark: comparing modes needs at least two named result sets (%d names, %d sets)", len(names), len(sets))
	}
	mc := ModeComparison{Sources: names}
	seen := map[[2]string]bool{}
	for _, c := range sets[0] {
		p := [2]string{c.Dataset, c.Model}
		if c.Subset != "all" || seen[p] {
			continue
		}
		seen[p] = true
		row := ModeRow{Dataset: c.Dataset, Model: c.Model}
		for _, s := range sets {
			row.Checks = append(row.Checks, CheckClaims(s, c.Dataset, c.Model))
		}
		if row.Checks[0] != nil {
			mc.Rows = append(mc.Rows, row)
		}
	}
	sort.SliceStable(mc.Rows, func(i, j int) bool {
		a, b := mc.Rows[i], mc.Rows[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		return modelOrder(a.Model) < modelOrder(b.Model)
	})
	return mc, nil
}

// Tally counts, for source s and claim k, the pairs where the claim holds and where it was checkable.
func (mc ModeComparison) Tally(s, k int) (holds, known int) {
	for _, r := range mc.Rows {
		if c := r.Checks[s]; c != nil && c.Known[k] {
			known++
			if c.Holds[k] {
				holds++
			}
		}
	}
	return holds, known
}

// Markdown renders the comparison: a summary of each claim per source, then one line per data set ×
// model with ECCCo − Wachter unfaithfulness and implausibility, ECCCo's faithfulness rank and validity.
func (mc ModeComparison) Markdown() string {
	var sb strings.Builder
	sb.WriteString("# ECCCo's claims under each source\n\nWhere the paper's text and the authors' code disagree (eccco-go's two modes), does ECCCo's claim survive? Each claim is checked per data set × model on all counterfactuals of each source (`eccco modes`; benchmark.Claims); a source lacking a pair or a metric leaves it out of the count.\n\n")
	sb.WriteString("| claim |")
	for _, s := range mc.Sources {
		sb.WriteString(" " + s + " |")
	}
	sb.WriteString("\n|---|" + strings.Repeat("---|", len(mc.Sources)) + "\n")
	for k, claim := range Claims {
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
			fmt.Fprintf(&sb, " %s / %s, rank %d of %d, valid %s |", withSign(c.UnfaithDiff, 2), fmtOrDash(c.ImplDiff, true), c.Rank, c.Generators, fmtOrDash(c.Validity, false))
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
		return withSign(v, 2)
	}
	return fmt.Sprintf("%.2f", v)
}

// CompareResultDirs reads the results.csv of each benchmark directory (named by names) and compares the
// claims in them and, when published is not "", in the published tables (added as a last source named
// "paper").
func CompareResultDirs(names, dirs []string, published string) (ModeComparison, error) {
	if len(names) != len(dirs) {
		return ModeComparison{}, fmt.Errorf("benchmark: %d names for %d result directories", len(names), len(dirs))
	}
	var sets [][]Cell
	for _, d := range dirs {
		rows, err := ReadCSV(filepath.Join(d, "results.csv"))
		if err != nil {
			return ModeComparison{}, fmt.Errorf("benchmark: comparing modes: %w", err)
		}
		sets = append(sets, Aggregate(rows))
	}
	if published != "" {
		pub, err := ReadPublished(published)
		if err != nil {
			return ModeComparison{}, err
		}
		names = append(slices.Clone(names), "paper")
		sets = append(sets, PublishedCells(pub))
	}
	return CompareModes(names, sets...)
}
