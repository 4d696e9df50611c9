package compare

import (
	"math"
	"testing"
)

func TestSpreadRows(t *testing.T) {
	cell := func(g, metric string, sd float64, runs int) Cell {
		return Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: g, Metric: metric, Mean: 1, SD: sd, Runs: runs}
	}
	pub := func(g, metric string, sd float64) Published {
		return Published{Dataset: "moons", Subset: "all", Model: "MLP", Generator: g, Metric: metric, Mean: 1, SD: sd}
	}
	cells := []Cell{
		cell("Wachter", "unfaithfulness", 0.30, 50), // 0.30 / 0.06 = 5
		cell("ECCCo", "unfaithfulness", 0.12, 50),   // 0.12 / 0.04 = 3
		cell("REVISE", "unfaithfulness", 0.02, 50),  // 0.02 / 0.04 = 0.5
		cell("Schut", "unfaithfulness", 0.50, 50),   // published 0.01 < SpreadFloor: left out
		cell("Wachter", "cost", 0.07, 50),           // 0.07 / 0.07 = 1
		cell("ECCCo", "cost", 0.40, 1),              // one run: no sd to compare
	}
	pubs := []Published{pub("Wachter", "unfaithfulness", 0.06), pub("ECCCo", "unfaithfulness", 0.04),
		pub("REVISE", "unfaithfulness", 0.04), pub("Schut", "unfaithfulness", 0.01),
		pub("Wachter", "cost", 0.07), pub("ECCCo", "cost", 0.02)}
	rows := Compare(cells, pubs).SpreadRows()
	want := []SpreadRow{
		{Metric: "unfaithfulness", Cells: 3, MedianRatio: 3, Wider: 2},
		{Metric: "cost", Cells: 1, MedianRatio: 1, Wider: 0},
		{Metric: "all", Cells: 4, MedianRatio: 2, Wider: 2}, // median of 0.5, 1, 3, 5
	}
	if len(rows) != len(want) {
		t.Fatalf("rows = %+v, want %+v", rows, want)
	}
	for i := range want {
		g, w := rows[i], want[i]
		if g.Metric != w.Metric || g.Cells != w.Cells || g.Wider != w.Wider || math.Abs(g.MedianRatio-w.MedianRatio) > 1e-12 {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	if len(Compare(nil, pubs).SpreadRows()) != 0 {
		t.Error("no cells should give no spread rows")
	}
}
