package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
)

// logModel is a classifier of two inputs (a, b) with logits (0, log a + b): NaN where a < 0.
func logModel() models.Classifier {
	return models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		a := Slice(x, AxisRange(), AxisElem(0))
		b := Slice(x, AxisRange(), AxisElem(1))
		return Concatenate([]*Node{ZerosLike(a), Add(Log(a), b)}, -1)
	}, 2, 2)
}

// twoColumns writes a CSV of columns a, b, y and reads it with its schema.
func twoColumns(t *testing.T, lines ...string) *data.Table {
	t.Helper()
	s, err := data.ParseSchema([]byte(`{"target": "y", "classes": ["no", "yes"], "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "numeric"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("a,b,y\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := data.ReadTable(path, s)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestCustomNonFiniteModelOutput: a model whose output is NaN at some rows of the table is refused, naming
// those rows' CSV lines (the header is line 1), instead of predicting class 0 for them.
func TestCustomNonFiniteModelOutput(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	tb := twoColumns(t, "1,0,no", "2,1,yes", "-1,0,no", "3,-1,no", "-4,2,yes", "1,2,yes")
	_, err = OpenCustom(tb, logModel(), CustomOptions{Backend: b})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lines 4, 6 (data rows 2, 4)") || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("err = %v, want the model's NaN at lines 4, 6 (data rows 2, 4)", err)
	}
}

// TestCustomNonFiniteCounterfactual: a counterfactual at which the model's output is NaN is refused when
// scored, naming its data row, instead of being scored as predicted class 0.
func TestCustomNonFiniteCounterfactual(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	tb := twoColumns(t, "1,0,no", "2,1,yes", "0.5,-1,no", "3,1,yes")
	c, err := OpenCustom(tb, logModel(), CustomOptions{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Score(context.Background(), []int{0, 2}, []float32{2, 1, -1, 0}, 1)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "data row 2") || strings.Contains(err.Error(), "data row 0") {
		t.Errorf("err = %v, want the counterfactual of data row 2 refused", err)
	}
}

// TestCustomClassMismatchNamesLabel: a mistyped label ("Yes" beside "yes") gives the data a class the
// model lacks; the error names that label and its line, not only the counts.
func TestCustomClassMismatchNamesLabel(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	s, err := data.ParseSchema([]byte(`{"target": "y", "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "numeric"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, []byte("a,b,y\n1,0,no\n2,1,yes\n3,0,no\n1,1,Yes\n2,2,yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tb, err := data.ReadTable(path, s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenCustom(tb, logModel(), CustomOptions{Backend: b})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"Yes"`) || !strings.Contains(err.Error(), "line 5") {
		t.Errorf("err = %v, want the label \"Yes\" and its line 5 named", err)
	}
}

// TestParseGeneratorsTwiceNamesSpellings: a generator given twice under two spellings is refused naming
// both as the user typed them (it said "as \"Wachter\" and \"Wachter\"" for Wachter,wachter).
func TestParseGeneratorsTwiceNamesSpellings(t *testing.T) {
	_, err := ParseGenerators("Wachter", "wachter")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `generator "Wachter" is listed twice (as "Wachter" and "wachter")`) {
		t.Errorf("err = %v", err)
	}
}

// TestCustomUnreachedEnergyHint: rows that stopped at the step limit still far from their target (p <
// 0.05) are blamed on the energy term only for a generator that has one (ECCCo, not Wachter), and only
// when such rows exist; the hint names how many per generator.
func TestCustomUnreachedEnergyHint(t *testing.T) {
	tb := twoColumns(t, "0,0,no", "1,1,yes", "2,2,no")
	ex := func(gen string, p ...float64) *CustomExplanation {
		x := &CustomExplanation{Generator: gen}
		for i, v := range p {
			x.Rows = append(x.Rows, i)
			x.Targets = append(x.Targets, 1)
			x.Iterations = append(x.Iterations, 100)
			x.Scores = append(x.Scores, metrics.Scores{Probability: v, Valid: v >= 0.5})
		}
		return x
	}
	got := CustomUnreached(tb, 100, []*CustomExplanation{ex("ECCCo", 0.001, 0.3, 0.9), ex("Wachter", 0.0, 0.7, 0.9)})
	for _, want := range []string{"ECCCo: 2 of 3 did not reach", "Wachter: 1 of 3 did not reach", "by a generator with an energy term: ECCCo (1);", "--set energy=", "--set max-iter=400"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Wachter (") {
		t.Errorf("Wachter has no energy term, yet the hint names it:\n%s", got)
	}
	if got := CustomUnreached(tb, 100, []*CustomExplanation{ex("ECCCo", 0.3, 0.9)}); strings.Contains(got, "--set energy=") {
		t.Errorf("no row is far from its target, yet the energy hint is given:\n%s", got)
	}
}
