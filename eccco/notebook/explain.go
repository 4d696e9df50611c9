package notebook

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Validity is the threshold γ of a valid counterfactual: p(y⁺|x′) ≥ 0.5, as metrics.Scores.Valid.
const Validity = 0.5

// OneFactual explains the first clean test row of class from into class to by each generator, on the
// factual that figures.Transformation draws (the same rows, run 1, the same seeds), and returns the
// explanations in generator order. A notebook prints their probabilities beside the figure, so that its
// prose can quote the numbers the reader sees.
func OneFactual(ctx context.Context, e *experiment.Experiment, kind models.Kind, from, to int, gens ...string) ([]*experiment.Explanation, error) {
	g, err := experiment.ParseGenerators(gens...)
	if err != nil {
		return nil, err
	}
	return OneFactualOf(ctx, e, kind, from, to, g...)
}

// OneFactualOf is OneFactual for generators given as values, with their overrides
// (experiment.Generator.Set; e.g. figures.MotivGenerators).
func OneFactualOf(ctx context.Context, e *experiment.Experiment, kind models.Kind, from, to int, g ...experiment.Generator) ([]*experiment.Explanation, error) {
	r, err := e.Run(ctx, experiment.RunRequest{Kind: kind, Run: 1, One: &experiment.Transition{From: from, To: to}, Generators: g})
	if err != nil {
		return nil, err
	}
	var out []*experiment.Explanation
	for _, gen := range g {
		x, err := r.Explain(ctx, gen)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// EndTable is a Markdown table of the first counterfactual x′ of each explanation (all of the same
// factual and target y⁺, as OneFactual and figures.SyntheticData make them): its generator, p(y⁺|x′),
// whether it is valid (p ≥ Validity), the energy E(x′|y⁺) = −logit_y⁺(x′), the smooth set size Ω(x′) of
// the model calibrated for run 1, the largest Ω along the search path when the path was recorded, and
// the L1 distance from the factual; then a line that counts the valid ones. It computes each value
// itself (metrics need not have been computed).
func EndTable(ctx context.Context, e *experiment.Experiment, kind models.Kind, xs []*experiment.Explanation) (string, error) {
	m, err := e.Model(ctx, kind)
	if err != nil {
		return "", err
	}
	c, err := e.Calibrated(kind, 1)
	if err != nil {
		return "", err
	}
	omega := func(x []float32) (float64, error) {
		p, err := models.Probabilities(e.Backend(), m, x)
		if err != nil {
			return 0, err
		}
		pf := make([]float64, len(p))
		for i := range p {
			pf[i] = float64(p[i])
		}
		return conformal.OmegaOf(pf, c.QHat, c.Opts.Temperature, c.Opts.Kappa, c.Opts.EmptySetRule), nil
	}
	var b strings.Builder
	b.WriteString("| generator | p(y⁺ &#124; x′) | valid | E(x′ &#124; y⁺) | Ω(x′) | largest Ω on the path | L1 from the factual |\n|---|---:|---|---:|---:|---:|---:|\n")
	valid := 0
	for _, x := range xs {
		d := len(x.Factuals.X) / x.Factuals.N()
		end, y := x.Result.X[:d], x.Factuals.Targets[0]
		p := float64(x.Result.Probability[0])
		if p >= Validity {
			valid++
		}
		en, err := counterfactual.MeanEnergy(e.Backend(), m, end, []int{y})
		if err != nil {
			return "", err
		}
		om, err := omega(end)
		if err != nil {
			return "", err
		}
		path := "–"
		if len(x.Result.Paths) > 0 {
			top := 0.0
			steps := x.Result.Paths[0]
			for i := 0; i+d <= len(steps); i += d {
				o, err := omega(steps[i : i+d])
				if err != nil {
					return "", err
				}
				top = math.Max(top, o)
			}
			path = fmt.Sprintf("%.3f", top)
		}
		var l1 float64
		for i := range end {
			l1 += math.Abs(float64(end[i] - x.Factuals.X[i]))
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %.2f | %.3f | %s | %.2f |\n", x.Generator.Name, p, yesNo(p >= Validity), en, om, path, l1)
	}
	fmt.Fprintf(&b, "\n**%d of %d** counterfactuals are valid (p ≥ %.1f).\n", valid, len(xs), Validity)
	return b.String(), nil
}

// Named returns the explanation of the generator called name, or nil.
func Named(xs []*experiment.Explanation, name string) *experiment.Explanation {
	for _, x := range xs {
		if x.Generator.Name == name {
			return x
		}
	}
	return nil
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// EndDistance is the Euclidean distance between the first counterfactuals of two explanations (0 when
// the searches ended at the same point).
func EndDistance(a, b *experiment.Explanation) float64 {
	var s float64
	for i := range a.Result.X[:len(a.Result.X)/a.Factuals.N()] {
		d := float64(a.Result.X[i] - b.Result.X[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// Leaders is a Markdown list that names, for each of the paper's metrics, the generator with the best
// mean in the explanations (lowest unfaithfulness, implausibility, uncertainty and cost; highest
// validity), with its value and the runner-up's (generators whose means are exactly equal are named
// together as tied): the sentence a notebook writes under a SummaryTable, computed from the same numbers.
func Leaders(xs []*experiment.Explanation) string {
	if len(xs) < 2 {
		return ""
	}
	sums := make([]experiment.Summary, len(xs))
	for i, x := range xs {
		sums[i] = x.Summary()
	}
	metrics := []struct {
		name   string
		lowest bool
		v      func(s experiment.Summary) float64
	}{
		{"unfaithfulness", true, func(s experiment.Summary) float64 { return s.Unfaithfulness }},
		{"implausibility", true, func(s experiment.Summary) float64 { return s.Implausibility }},
		{"uncertainty", true, func(s experiment.Summary) float64 { return s.Uncertainty }},
		{"cost", true, func(s experiment.Summary) float64 { return s.Cost }},
		{"validity", false, func(s experiment.Summary) float64 { return s.Validity }},
	}
	var b strings.Builder
	for _, m := range metrics {
		order := make([]int, len(sums))
		for i := range order {
			order[i] = i
		}
		better := func(a, c float64) bool {
			if m.lowest {
				return a < c
			}
			return a > c
		}
		for i := 1; i < len(order); i++ { // insertion sort: a handful of generators
			for j := i; j > 0 && better(m.v(sums[order[j]]), m.v(sums[order[j-1]])); j-- {
				order[j], order[j-1] = order[j-1], order[j]
			}
		}
		word := "lowest"
		if !m.lowest {
			word = "highest"
		}
		best := m.v(sums[order[0]])
		var tied []string
		for _, i := range order {
			if m.v(sums[i]) == best {
				tied = append(tied, "**"+sums[i].Generator+"**")
			}
		}
		switch {
		case len(tied) == len(order):
			fmt.Fprintf(&b, "- %s: all %d tied (%.3f)\n", m.name, len(tied), best)
		case len(tied) > 1:
			next := sums[order[len(tied)]]
			fmt.Fprintf(&b, "- %s %s: %s, tied (%.3f; next %s, %.3f)\n", word, m.name, strings.Join(tied, ", "), best, next.Generator, m.v(next))
		default:
			next := sums[order[1]]
			fmt.Fprintf(&b, "- %s %s: %s (%.3f; next %s, %.3f)\n", word, m.name, tied[0], best, next.Generator, m.v(next))
		}
	}
	return b.String()
}
