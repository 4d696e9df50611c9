package compare

import (
	"maps"
	"math"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
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

// GeneratorIndex is a generator's place in the paper's tables (catalogue.Names); others come after all
// of them.
func GeneratorIndex(name string) int {
	for i, g := range catalogue.Names() {
		if string(g) == name {
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

// RunMean is one run's mean of one metric over a cell's counterfactuals: the number the paper averages
// over runs. N counts the counterfactuals with a value (a NaN metric is left out); with N = 0 the run is
// recorded but has no mean (Mean NaN) and does not count towards the cell.
type RunMean struct {
	Dataset, Subset, Model, Generator, Metric string
	Run                                       int
	N                                         int
	Mean                                      float64
}

type cellKey struct{ d, s, m, g, metric string }

func (r RunMean) key() cellKey { return cellKey{r.Dataset, r.Subset, r.Model, r.Generator, r.Metric} }
func (c Cell) key() cellKey    { return cellKey{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric} }

// RunMeans computes the per-run means of every cell of rows for the subsets "all" and "valid" (only
// valid counterfactuals; runs without any are left out): the cells in the order they first appear in
// rows, runs ascending within a cell. Models are named by their titles ("MLP Ensemble").
func RunMeans(rows []benchmark.Row) []RunMean {
	runSums := map[cellKey]map[int][2]float64{} // run → (sum, count)
	var order []cellKey
	for _, r := range rows {
		model := ModelTitle(r.Model)
		for _, subset := range []string{"all", "valid"} {
			if subset == "valid" && !r.Valid {
				continue
			}
			for _, m := range Metrics {
				k := cellKey{r.Dataset, subset, model, r.Generator, m.Name}
				if runSums[k] == nil {
					runSums[k] = map[int][2]float64{}
					order = append(order, k)
				}
				acc := runSums[k][r.Run]
				if v := m.Of(r); !math.IsNaN(v) {
					acc = [2]float64{acc[0] + v, acc[1] + 1}
				}
				runSums[k][r.Run] = acc
			}
		}
	}
	var out []RunMean
	for _, k := range order {
		runs := slices.Sorted(maps.Keys(runSums[k]))
		for _, run := range runs {
			acc := runSums[k][run]
			mean := math.NaN()
			if acc[1] > 0 {
				mean = acc[0] / acc[1]
			}
			out = append(out, RunMean{Dataset: k.d, Subset: k.s, Model: k.m, Generator: k.g, Metric: k.metric, Run: run, N: int(acc[1]), Mean: mean})
		}
	}
	return out
}

// Aggregate turns rows into cells for the subsets "all" and "valid" (only valid counterfactuals; runs
// without any are left out): AggregateRunMeans of RunMeans. Models are named by their titles ("MLP
// Ensemble").
func Aggregate(rows []benchmark.Row) []Cell { return AggregateRunMeans(RunMeans(rows)) }

// AggregateRunMeans turns per-run means into cells, in the order the cells first appear in rms: the mean
// of the runs' means (runs with N = 0 left out) and their sample sd, the stars and bold marks as Mark sets
// them. It is how the archived run means (paper/results/run-means.csv.gz) rebuild a table set's cells.
func AggregateRunMeans(rms []RunMean) []Cell {
	means := map[cellKey][]float64{}
	var order []cellKey
	for _, r := range rms {
		k := r.key()
		if _, ok := means[k]; !ok {
			means[k] = []float64{}
			order = append(order, k)
		}
		if r.N > 0 {
			means[k] = append(means[k], r.Mean)
		}
	}
	cells := make([]Cell, 0, len(order))
	for _, k := range order {
		mean, sd := meanSD(means[k])
		cells = append(cells, Cell{Dataset: k.d, Subset: k.s, Model: k.m, Generator: k.g, Metric: k.metric, Mean: mean, SD: sd, Runs: len(means[k])})
	}
	Mark(cells)
	return cells
}

// Mark sets every cell's Stars and Bold from the cells' means and sds: Stars is 1 or 2 when the generator
// beats Wachter of its data set, subset, model and metric by more than 1 or 2 pooled sd; Bold marks the
// best generator of each data set, subset, model and metric (the first of equal ones). Cells joined from
// two sources (a rerun of some generators and cells kept from an earlier run) are marked together.
func Mark(cells []Cell) {
	index := map[cellKey]int{}
	for i, c := range cells {
		index[c.key()] = i
	}
	best := map[cellKey]int{}
	for i, c := range cells {
		higher := metricHigher(c.Metric)
		cells[i].Stars, cells[i].Bold = 0, false
		if w, ok := index[cellKey{c.Dataset, c.Subset, c.Model, string(catalogue.Wachter), c.Metric}]; ok && c.Generator != string(catalogue.Wachter) {
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
		bk := cellKey{c.Dataset, c.Subset, c.Model, "", c.Metric}
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
