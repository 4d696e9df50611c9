package experiment

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/models"
)

// TestRowsOf returns up to n test rows labelled class that the model of the kind also predicts as class
// (a clean factual to turn into another class), in test-split order. Fewer than n are returned when the
// test split has fewer; none is ErrInvalid.
func (e *Experiment) TestRowsOf(ctx context.Context, kind models.Kind, class, n int) ([]int, error) {
	test := e.split.Test
	if class < 0 || class >= test.K() || n < 1 {
		return nil, fmt.Errorf("%w: %d rows of class %d (%s has classes 0 … %d)", ErrInvalid, n, class, e.dataset, test.K()-1)
	}
	m, err := e.Model(ctx, kind)
	if err != nil {
		return nil, err
	}
	var cand []int
	var x []float32
	for i, y := range test.Y {
		if y == class {
			cand = append(cand, i)
			x = append(x, test.Row(i)...)
		}
	}
	if len(cand) == 0 {
		return nil, fmt.Errorf("%w: no test row of class %d in %s", ErrInvalid, class, e.dataset)
	}
	pred, err := models.KeptPredict(e.graphs, e.backend, m, x)
	if err != nil {
		return nil, fmt.Errorf("predicting the test rows of class %d: %w", class, err)
	}
	var out []int
	for i, p := range pred {
		if p == class {
			out = append(out, cand[i])
			if len(out) == n {
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the %s predicts no test row of class %d as that class", ErrInvalid, kind, class)
	}
	return out, nil
}

// RunOneOf prepares run 1 for one factual: the first test row labelled from that the model also predicts
// as from (TestRowsOf), with target to, explained by gens (names, any case; ParseGenerators). The paper's
// single-factual figures and the notebooks use it; the run's paths and metrics are set on it before
// explaining.
func (e *Experiment) RunOneOf(ctx context.Context, kind models.Kind, from, to int, gens ...string) (*Run, *Factuals, []Generator, error) {
	g, err := ParseGenerators(gens...)
	if err != nil {
		return nil, nil, nil, err
	}
	r, f, err := e.RunOne(ctx, kind, from, to, g...)
	return r, f, g, err
}

// RunOne is RunOneOf for generators given as values (with their overrides, Generator.Set).
func (e *Experiment) RunOne(ctx context.Context, kind models.Kind, from, to int, g ...Generator) (*Run, *Factuals, error) {
	if err := CheckGenerators(g); err != nil {
		return nil, nil, err
	}
	rows, err := e.TestRowsOf(ctx, kind, from, 1)
	if err != nil {
		return nil, nil, err
	}
	f, err := e.FactualRows(ctx, kind, 1, rows, to)
	if err != nil {
		return nil, nil, err
	}
	r, err := e.RunFor(ctx, kind, 1, f, g...)
	if err != nil {
		return nil, nil, err
	}
	return r, f, nil
}
