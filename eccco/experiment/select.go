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

// oneFactual is the factual of RunRequest.One: the first test row labelled t.From that the model also
// predicts as that class (TestRowsOf), with target t.To.
func (e *Experiment) oneFactual(ctx context.Context, kind models.Kind, run int, t Transition) (*Factuals, error) {
	rows, err := e.TestRowsOf(ctx, kind, t.From, 1)
	if err != nil {
		return nil, err
	}
	return e.FactualRows(ctx, kind, run, rows, t.To)
}
