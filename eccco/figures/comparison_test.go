package figures

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

// Hand-made cells: moons has one cell within (0.21 vs 0.20 ± 0.01) and one out (0.50 vs 0.20 ± 0.01);
// circles one within only by the floor (0.21 vs 0.20 ± 0.00). The figure's rows are in the paper's order,
// labelled with those counts, and each point sits at (ours − paper) / max(sd, 0.005).
func TestOursAgainstPublished(t *testing.T) {
	cells := []compare.Cell{
		{Dataset: "circles", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "cost", Mean: 0.21, SD: 0.01, Runs: 50},
		{Dataset: "moons", Subset: "valid", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 0.21, SD: 0.01, Runs: 50},
		{Dataset: "moons", Subset: "valid", Model: "MLP", Generator: "ECCCo (no CP)", Metric: "cost", Mean: 0.50, SD: 0.01, Runs: 50},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 9, SD: 0.01, Runs: 50},
	}
	pub := []compare.Published{
		{Dataset: "circles", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "cost", Mean: 0.20, SD: 0},
		{Dataset: "moons", Subset: "valid", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 0.20, SD: 0.01},
		{Dataset: "moons", Subset: "valid", Model: "MLP", Generator: "ECCCo (no CP)", Metric: "cost", Mean: 0.20, SD: 0.01},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 0.20, SD: 0.01},
	}
	f, n, err := OursAgainstPublishedFrom(cells, pub, "cost", "valid")
	if err != nil {
		t.Fatal(err)
	}
	if n.Cells != 3 || n.Rounding != 2 || n.Strict != 1 {
		t.Errorf("counts %+v, want 2 of 3 within, 1 strictly", n)
	}
	p := f.Panels[0]
	labels := map[float64]string{}
	for _, tk := range p.Plot.Y.Tick.Marker.Ticks(p.Plot.Y.Min, p.Plot.Y.Max) {
		labels[tk.Value] = tk.Label
	}
	if labels[1] != "Moons  1/2" || labels[0] != "Circles  1/1" {
		t.Errorf("row labels %v", labels)
	}
	want := map[string]float64{"ECCCo": 2, "ECCCo (no CP)": 30, "Wachter": 1}
	for _, l := range p.Layers[1:] {
		fl := l.(*plot.ForestLayer)
		if len(fl.XYs) != 1 || abs(fl.XYs[0].X-want[fl.Series.Name]) > 1e-9 {
			t.Errorf("%s at %v, want %v", fl.Series.Name, fl.XYs, want[fl.Series.Name])
		}
	}
	// ECCCo and its ablation share a colour, the ablation a square; the legend keys ECCCo, Wachter, (no CP).
	var eccco, nocp plot.ForestSeries
	for _, l := range p.Layers[1:] {
		s := l.(*plot.ForestLayer).Series
		switch s.Name {
		case "ECCCo":
			eccco = s
		case "ECCCo (no CP)":
			nocp = s
		}
	}
	if eccco.Color != nocp.Color || nocp.Shape != plot.Square || eccco.Shape != plot.Circle {
		t.Errorf("ECCCo %+v, ECCCo (no CP) %+v", eccco, nocp)
	}
	if len(f.Legend) != 3 || f.Legend[0].Label != "ECCCo" || f.Legend[2].Label != "(no CP)" {
		t.Errorf("legend %v", f.Legend)
	}
	if _, _, err := OursAgainstPublishedFrom(cells, pub, "validity", "valid"); err == nil {
		t.Error("a metric without cells drew a figure")
	}
	dir := t.TempDir()
	files, err := WriteOursAgainstPublished(dir, compare.Compare(cells, pub).Rows, "valid")
	if err != nil || len(files) != 2 || files[0] != filepath.Join(dir, "ours-vs-paper-valid-cost.pdf") {
		t.Fatalf("wrote %v, %v", files, err)
	}
	for _, p := range files {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
