package compare

import (
	"fmt"
	"math"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
)

// Claims are the paper's headline claims about ECCCo, checked per data set × model on the "all" subset:
// it is more faithful than Wachter (lower unfaithfulness), more faithful than every generator outside the
// ECCCo family (Wachter, REVISE and Schut; not checked where one of them was not run), more plausible
// than Wachter (lower implausibility), and valid (validity ≥ 0.9).
var Claims = []string{"ECCCo more faithful than Wachter", "ECCCo more faithful than Wachter, REVISE and Schut",
	"ECCCo more plausible than Wachter", "ECCCo valid (≥ 0.9)"}

// ClaimNeeds lists, per claim of Claims, the generators whose results it compares.
var ClaimNeeds = [][]catalogue.Name{
	{catalogue.ECCCo, catalogue.Wachter}, {catalogue.ECCCo, catalogue.Wachter, catalogue.REVISE, catalogue.Schut},
	{catalogue.ECCCo, catalogue.Wachter}, {catalogue.ECCCo},
}

// MissingForClaims lists, per claim of Claims, the generators it needs that cells hold no results of
// (nil where it has them all).
func MissingForClaims(cells []Cell) [][]string {
	have := map[string]bool{}
	for _, c := range cells {
		have[c.Generator] = true
	}
	out := make([][]string, len(Claims))
	for k, gens := range ClaimNeeds {
		for _, g := range gens {
			if !have[string(g)] {
				out[k] = append(out[k], string(g))
			}
		}
	}
	return out
}

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
	at := func(g catalogue.Name, metric string) (float64, bool) {
		v, ok := mean[[2]string{string(g), metric}]
		return v, ok
	}
	eu, ok1 := at(catalogue.ECCCo, "unfaithfulness")
	wu, ok2 := at(catalogue.Wachter, "unfaithfulness")
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
	for _, g := range ClaimNeeds[1] {
		v, ok := at(g, "unfaithfulness")
		if !ok {
			ch.Known[1], ch.Holds[1] = false, false // a claim about Schut is not checked without Schut
			break
		}
		if g != catalogue.ECCCo && v <= eu {
			ch.Holds[1] = false
		}
	}
	ei, ok1 := at(catalogue.ECCCo, "implausibility")
	wi, ok2 := at(catalogue.Wachter, "implausibility")
	ch.ImplDiff = math.NaN()
	if ok1 && ok2 {
		ch.ImplDiff = ei - wi
		ch.Known[2], ch.Holds[2] = true, ch.ImplDiff < 0
	}
	ch.Validity = math.NaN()
	if v, ok := at(catalogue.ECCCo, "validity"); ok {
		ch.Validity = v
		ch.Known[3], ch.Holds[3] = true, v >= 0.9
	}
	return ch
}

// CompareModes checks the claims in each source (named by names, cells by sets) for every data set ×
// model that the first source holds.
func CompareModes(names []string, sets ...[]Cell) (ModeComparison, error) {
	if len(names) != len(sets) || len(sets) < 2 {
		return ModeComparison{}, fmt.Errorf("compare: comparing modes needs at least two named result sets (%d names, %d sets)", len(names), len(sets))
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
		return ModelOrder(a.Model) < ModelOrder(b.Model)
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
