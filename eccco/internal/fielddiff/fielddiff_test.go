package fielddiff

import (
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	var d List
	d.Value("seed", 1, 42)
	d.Value("epochs", 100, 100)
	d.Text("mode", "", "paper")
	d.Text("kind", "mlp", "mlp")
	d.Printed("generators", map[string]float64{"ECCCo": 0.1}, map[string]float64{"ECCCo": 0.2})
	d.Printed("factuals", int64(100), 100)
	want := List{`seed 1 ≠ 42`, `mode "" ≠ "paper"`, `generators map[ECCCo:0.1] ≠ map[ECCCo:0.2]`}
	if !slices.Equal(d, want) {
		t.Errorf("got %q, want %q", d, want)
	}
}
