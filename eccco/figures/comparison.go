package figures

import (
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

// ComparisonName is the file stem of a metric's figure of ours against the published (OursAgainstPublished).
func ComparisonName(metric, subset string) string { return "ours-vs-paper-" + subset + "-" + metric }

// ComparisonXLabel is the x axis of OursAgainstPublished (compare.DeviationRule).
const ComparisonXLabel = "(ours − paper) / max(paper's sd, h), symmetric log scale"

// OursAgainstPublished draws one metric of a comparison (subset "valid" or "all") as a forest: one row
// per data set (in the paper's order, labelled with its cells within of its cells, compare.WithinBy's
// rounding-aware count), each cell a point at its compare.Deviation, coloured by generator (in the
// paper's order), over the band ±compare.DeviationBand, inside which a cell is within the rounding-aware
// tolerance. rows are compare.Compare's (or CompareWithBounds's) Rows; it returns the figure and the
// metric's count.
func OursAgainstPublished(rows []compare.ComparedCell, metric, subset string) (plot.Figure, compare.WithinGroup, error) {
	var sel []compare.ComparedCell
	for _, r := range rows {
		if r.Metric == metric && r.Subset == subset {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return plot.Figure{}, compare.WithinGroup{}, fmt.Errorf("figures: no compared %s cells of subset %q", metric, subset)
	}
	total := compare.WithinBy(sel, func(compare.ComparedCell) string { return metric })[0]
	counts := map[string]compare.WithinGroup{}
	for _, g := range compare.WithinBy(sel, func(r compare.ComparedCell) string { return r.Dataset }) {
		counts[g.Name] = g
	}
	var datasets, gens []string
	for _, r := range sel {
		if !slices.Contains(datasets, r.Dataset) {
			datasets = append(datasets, r.Dataset)
		}
		if !slices.Contains(gens, r.Generator) {
			gens = append(gens, r.Generator)
		}
	}
	order := func(name string) int {
		if i := slices.Index(data.Names(), name); i >= 0 {
			return i
		}
		return len(data.Names())
	}
	sort.SliceStable(datasets, func(i, j int) bool { return order(datasets[i]) < order(datasets[j]) })
	sort.SliceStable(gens, func(i, j int) bool { return compare.GeneratorIndex(gens[i]) < compare.GeneratorIndex(gens[j]) })
	series, legend := generatorStyles(gens)
	var frows []plot.ForestRow
	for _, ds := range datasets {
		title := ds
		if info, err := data.Lookup(ds); err == nil {
			title = info.Title
		}
		g := counts[ds]
		fr := plot.ForestRow{Label: fmt.Sprintf("%s  %d/%d", title, g.Rounding, g.Cells)}
		for _, r := range sel {
			if r.Dataset == ds {
				fr.Points = append(fr.Points, plot.ForestPoint{Series: r.Generator, Value: r.Deviation()})
			}
		}
		frows = append(frows, fr)
	}
	f, err := plot.Forest(metricTitle(metric)+": "+ComparisonXLabel, frows, series, compare.DeviationBand)
	if err != nil {
		return plot.Figure{}, total, err
	}
	f.Legend = legend
	return f, total, nil
}

// generatorColors are the colours of the generators' families in the comparison figures: ECCCo and its
// ablations blue, ECCCo+ purple, ECCCo-L1 green, REVISE orange, Schut pink, Wachter grey.
var generatorColors = map[string]color.Color{
	string(catalogue.ECCCo): plot.ClassColor(0), string(catalogue.ECCCoPlus): plot.ClassColor(3), string(catalogue.ECCCoL1): plot.ClassColor(2),
	string(catalogue.REVISE): plot.ClassColor(1), string(catalogue.Schut): plot.ClassColor(6), string(catalogue.Wachter): color.NRGBA{0x80, 0x80, 0x80, 0xFF},
}

// ablations are the suffixes of the ablated generators and their shapes (the full generator a circle).
var ablations = []struct {
	suffix string
	shape  plot.Shape
}{{" (no CP)", plot.Square}, {" (no EBM)", plot.Diamond}}

// generatorStyles gives each generator its family's colour (generatorColors; others the series cycle)
// and its ablation's shape, and a legend on one line: the families, then a grey key per ablation shape.
func generatorStyles(gens []string) ([]plot.ForestSeries, []plot.LegendEntry) {
	var series []plot.ForestSeries
	var legend []plot.LegendEntry
	var families []string
	usedShape := map[plot.Shape]bool{}
	for _, g := range gens {
		base, shape := g, plot.Circle
		for _, a := range ablations {
			if strings.HasSuffix(g, a.suffix) {
				base, shape = strings.TrimSuffix(g, a.suffix), a.shape
			}
		}
		if !slices.Contains(families, base) {
			families = append(families, base)
		}
		c, ok := generatorColors[base]
		if !ok {
			c = plot.SeriesColor(len(generatorColors) + slices.Index(families, base))
		}
		series = append(series, plot.ForestSeries{Name: g, Color: c, Shape: shape})
		usedShape[shape] = true
	}
	sort.SliceStable(families, func(i, j int) bool { return compare.GeneratorIndex(families[i]) < compare.GeneratorIndex(families[j]) })
	for _, f := range families {
		for _, s := range series {
			if s.Name == f || strings.HasPrefix(s.Name, f+" (") {
				legend = append(legend, plot.ForestKey(f, plot.ForestSeries{Name: f, Color: s.Color, Shape: plot.Circle}))
				break
			}
		}
	}
	for _, a := range ablations {
		if usedShape[a.shape] {
			legend = append(legend, plot.ForestKey(strings.TrimSpace(a.suffix), plot.ForestSeries{Name: a.suffix, Color: color.NRGBA{0xB0, 0xB0, 0xB0, 0xFF}, Shape: a.shape}))
		}
	}
	return series, legend
}

// metricTitle is the metric's column title in the paper's tables ("Unfaithfulness ↓").
func metricTitle(metric string) string {
	for _, m := range compare.Metrics {
		if m.Name == metric {
			return m.Title
		}
	}
	return metric
}

// OursAgainstPublishedFrom is OursAgainstPublished of compare.Compare(cells, pub).
func OursAgainstPublishedFrom(cells []compare.Cell, pub []compare.Published, metric, subset string) (plot.Figure, compare.WithinGroup, error) {
	return OursAgainstPublished(compare.Compare(cells, pub).Rows, metric, subset)
}

// WriteOursAgainstPublished writes, for every metric of compare.Metrics that rows hold in subset, its
// OursAgainstPublished figure as dir/ComparisonName(metric, subset).pdf and .png, and returns the paths.
func WriteOursAgainstPublished(dir string, rows []compare.ComparedCell, subset string) ([]string, error) {
	var written []string
	for _, m := range compare.Metrics {
		has := slices.ContainsFunc(rows, func(r compare.ComparedCell) bool { return r.Metric == m.Name && r.Subset == subset })
		if !has {
			continue
		}
		f, _, err := OursAgainstPublished(rows, m.Name, subset)
		if err != nil {
			return written, err
		}
		for _, ext := range []string{".pdf", ".png"} {
			p := filepath.Join(dir, ComparisonName(m.Name, subset)+ext)
			if err := f.Write(p); err != nil {
				return written, err
			}
			written = append(written, p)
		}
	}
	return written, nil
}
