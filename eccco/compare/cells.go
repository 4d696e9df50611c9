package compare

import (
	"math"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Metrics are the metrics of the paper's result tables in their order, with their column titles and
// whether higher is better (ECCCo.jl, paper/tables: the authors' table_*.tex).
var Metrics = []struct {
	Name   string
	Title  string
	Higher bool
	Of     func(r benchmark.Row) float64
}{
	{"unfaithfulness", "Unfaithfulness ↓", false, func(r benchmark.Row) float64 { return r.Unfaithfulness }},
	{"implausibility", "Implausibility ↓", false, func(r benchmark.Row) float64 { return r.Implausibility }},
	{"uncertainty", "Uncertainty ↓", false, func(r benchmark.Row) float64 { return r.Uncertainty }},
	{"cost", "Cost ↓", false, func(r benchmark.Row) float64 { return r.Cost }},
	{"redundancy", "Redundancy ↑", true, func(r benchmark.Row) float64 { return r.Redundancy }},
	{"validity", "Validity ↑", true, func(r benchmark.Row) float64 {
		if r.Valid {
			return 1
		}
		return 0
	}},
}

// MetricIndex is a metric's place in Metrics; unknown metrics come after all of them.
func MetricIndex(name string) int {
	for i, m := range Metrics {
		if m.Name == name {
			return i
		}
	}
	return len(Metrics)
}

// GeneratorIndex is a generator's place in the paper's tables (counterfactual.GeneratorNames); others
// come after all of them.
func GeneratorIndex(name string) int {
	for i, g := range counterfactual.GeneratorNames() {
		if g == name {
			return i
		}
	}
	return 1000
}

// Cell is one aggregated number: the mean over runs of the per-run means, and the sample sd of the run
// means, as the paper aggregates. Stars is 1 or 2 when the generator beats Wachter by more than 1 or 2
// pooled sd; Bold marks the best generator of its model for the metric.
type Cell struct {
	Dataset, Subset, Model, Generator, Metric string
	Mean, SD                                  float64
	Runs                                      int
	Stars                                     int
	Bold                                      bool
}

// Aggregate turns rows into cells for the subsets "all" and "valid" (only valid counterfactuals; runs
// without any are left out). Models are named by their titles ("MLP Ensemble").
func Aggregate(rows []benchmark.Row) []Cell {
	type key struct{ d, s, m, g, metric string }
	runMeans := map[key]map[int][2]float64{} // run → (sum, count)
	var order []key
	for _, r := range rows {
		model := ModelTitle(r.Model)
		for _, subset := range []string{"all", "valid"} {
			if subset == "valid" && !r.Valid {
				continue
			}
			for _, m := range Metrics {
				k := key{r.Dataset, subset, model, r.Generator, m.Name}
				if runMeans[k] == nil {
					runMeans[k] = map[int][2]float64{}
					order = append(order, k)
				}
				v := m.Of(r)
				if math.IsNaN(v) {
					continue
				}
				acc := runMeans[k][r.Run]
				runMeans[k][r.Run] = [2]float64{acc[0] + v, acc[1] + 1}
			}
		}
	}
	cells := make([]Cell, 0, len(order))
	index := map[key]int{}
	for _, k := range order {
		var means []float64
		runs := make([]int, 0, len(runMeans[k]))
		for run := range runMeans[k] {
			runs = append(runs, run)
		}
		sort.Ints(runs)
		for _, run := range runs {
			acc := runMeans[k][run]
			if acc[1] > 0 {
				means = append(means, acc[0]/acc[1])
			}
		}
		mean, sd := meanSD(means)
		index[k] = len(cells)
		cells = append(cells, Cell{Dataset: k.d, Subset: k.s, Model: k.m, Generator: k.g, Metric: k.metric, Mean: mean, SD: sd, Runs: len(means)})
	}
	// Stars against Wachter and bold for the best per (dataset, subset, model, metric).
	best := map[key]int{}
	for i, c := range cells {
		higher := metricHigher(c.Metric)
		if w, ok := index[key{c.Dataset, c.Subset, c.Model, "Wachter", c.Metric}]; ok && c.Generator != "Wachter" {
			wc := cells[w]
			pooled := math.Sqrt((c.SD*c.SD + wc.SD*wc.SD) / 2)
			gain := wc.Mean - c.Mean
			if higher {
				gain = -gain
			}
			switch {
			case gain > 2*pooled && gain > 0:
				cells[i].Stars = 2
			case gain > pooled && gain > 0:
				cells[i].Stars = 1
			}
		}
		bk := key{c.Dataset, c.Subset, c.Model, "", c.Metric}
		j, ok := best[bk]
		if math.IsNaN(c.Mean) {
			continue
		}
		if !ok || (higher && c.Mean > cells[j].Mean) || (!higher && c.Mean < cells[j].Mean) {
			best[bk] = i
		}
	}
	for _, i := range best {
		cells[i].Bold = true
	}
	return cells
}

func metricHigher(name string) bool {
	for _, m := range Metrics {
		if m.Name == name {
			return m.Higher
		}
	}
	return false
}

// ModelTitle is a model kind's title as the tables print it ("mlp-ensemble" → "MLP Ensemble"); any
// other name is returned as it is.
func ModelTitle(kind string) string {
	if k, err := models.ParseKind(kind); err == nil {
		return k.Title()
	}
	return kind
}

func meanSD(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	if len(v) == 1 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// ModelOrder orders the models of the result tables and of the modes comparison by title: JEM, JEM
// Ensemble, LeNet-5, MLP, MLP Ensemble, others after them.
func ModelOrder(title string) int {
	for i, k := range []models.Kind{models.KindJEM, models.KindJEMEnsemble, models.KindLeNet, models.KindMLP, models.KindMLPEnsemble} {
		if k.Title() == title {
			return i
		}
	}
	return 1000
}
