package notebook

import (
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func TestChanges(t *testing.T) {
	s, err := data.ParseSchema([]byte(`{"target": "y", "features": [{"name": "age", "type": "numeric"},
		{"name": "job", "type": "categorical", "categories": ["a", "b"]}, {"name": "size", "type": "ordinal", "levels": ["S", "M"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	x := &experiment.CustomExplanation{Generator: "Wachter", Rows: []int{7}, Targets: []int{1},
		Factuals: []float32{30, 1, 0, 0}, Counterfactuals: []float32{32.5, 0, 1, 0}, Scores: []metrics.Scores{{Valid: true}}}
	got := Changes(s, []string{"no", "yes"}, x)
	want := "| Wachter | 7 | yes | true | age: 30 → 32.5; job: a → b |\n"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("Changes =\n%s\nwant a last line\n%s", got, want)
	}
}
