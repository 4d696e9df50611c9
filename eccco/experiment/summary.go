package experiment

import (
	"fmt"
	"math"
	"strings"
)

// Summary is the mean of each metric over one explanation's counterfactuals (validity as a share), the
// line an explanation adds to a results table.
type Summary struct {
	Generator string
	N         int
	// Validity and Converged are shares in [0, 1].
	Validity, Converged                                           float64
	Unfaithfulness, Implausibility, Uncertainty, Cost, Redundancy float64
	MeanIterations                                                float64
	// PerSecond is counterfactuals searched per second.
	PerSecond float64
}

// Summary averages the explanation's metrics.
func (x *Explanation) Summary() Summary {
	s := Summary{Generator: x.Generator.Name, N: len(x.Scores)}
	if s.N == 0 {
		s.N = x.Factuals.N()
		nan := math.NaN()
		s.Validity, s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy = nan, nan, nan, nan, nan, nan
		return s
	}
	n := float64(s.N)
	for i, sc := range x.Scores {
		if sc.Valid {
			s.Validity++
		}
		if x.Result.Converged[i] {
			s.Converged++
		}
		s.MeanIterations += float64(x.Result.Iterations[i])
		s.Unfaithfulness += sc.Unfaithfulness
		s.Implausibility += sc.Implausibility
		s.Uncertainty += sc.Uncertainty
		s.Cost += sc.Cost
		s.Redundancy += sc.Redundancy
	}
	for _, v := range []*float64{&s.Validity, &s.Converged, &s.MeanIterations, &s.Unfaithfulness, &s.Implausibility, &s.Uncertainty, &s.Cost, &s.Redundancy} {
		*v /= n
	}
	if sec := x.Search.Seconds(); sec > 0 {
		s.PerSecond = n / sec
	}
	return s
}

// SummaryTable renders the summaries of explanations as a Markdown table (↓: lower is better, ↑: higher).
func SummaryTable(xs []*Explanation) string {
	var sb strings.Builder
	sb.WriteString("| Generator | n | Unfaithfulness ↓ | Implausibility ↓ | Uncertainty ↓ | Cost ↓ | Redundancy ↑ | Validity ↑ | Iterations |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	f := func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.3f", v)
	}
	for _, x := range xs {
		s := x.Summary()
		fmt.Fprintf(&sb, "| %s | %d | %s | %s | %s | %s | %s | %.0f %% | %.1f |\n", s.Generator, s.N, f(s.Unfaithfulness),
			f(s.Implausibility), f(s.Uncertainty), f(s.Cost), f(s.Redundancy), 100*s.Validity, s.MeanIterations)
	}
	return sb.String()
}
