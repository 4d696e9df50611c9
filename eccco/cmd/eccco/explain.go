package main

import (
	"context"
	"fmt"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"io"
	"math"
	"os"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if hasSchemaFlag(args) {
		// The former spelling of explain-onnx: it still works, and says so (never a silent change of meaning).
		fmt.Fprintln(stderr, "eccco: 'eccco explain --schema …' is now 'eccco explain-onnx' (the same flags); this spelling will be removed")
		return runExplainONNX(ctx, args, stdout, stderr)
	}
	fs := newFlagSet("explain", "explain --data NAME --model KIND|DIR --generator G[,G…] [--index i | --n N] [--run r] [--target t] [--mode paper|authors-code] [--set k=v] [flags]\n\nThe paper's data sets and models; your own ONNX model and CSV: eccco explain-onnx (eccco explain-onnx -h lists its flags).", stderr)
	dataset := fs.String("data", "", "data set (see 'eccco data list')")
	var mf modelFlag
	registerModel(fs, &mf, models.KindMLP)
	genNames := fs.String("generator", string(catalogue.ECCCo), "generator(s), comma-separated: "+strings.Join(catalogue.Strings(), ", "))
	index := fs.Int("index", -1, "explain this test row (default: the first factual of the run)")
	n := fs.Int("n", 1, "explain the first N factuals of the run at once (batched) and print their metrics")
	runIdx := fs.Int("run", 1, "which run's factuals and targets (the benchmark's: the same seed gives the same rows in 'eccco bench')")
	target := fs.Int("target", -1, "target class (default: the run's random class other than the predicted one)")
	png := fs.String("png", "", "for images: write a factual | counterfactual grid to this PNG file")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSampling, experiment.SetSearch, experiment.SetGenerator, experiment.SetSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("explain: unexpected arguments %v", fs.Args())
	}
	if err := positive(map[string]int{"n": *n, "run": *runIdx}); err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if *n > benchmark.MaxFactuals || *runIdx > benchmark.MaxRuns {
		return fmt.Errorf("explain: %w: --n %d, --run %d: at most %d factuals and run %d", experiment.ErrInvalid, *n, *runIdx, benchmark.MaxFactuals, benchmark.MaxRuns)
	}
	if *png != "" {
		if _, err := os.Stat(*png); err == nil {
			return fmt.Errorf("explain: %w: --png %s exists; choose another path (nothing is overwritten)", experiment.ErrInvalid, *png)
		}
	}
	if *index >= 0 && *n != 1 {
		return fmt.Errorf("explain: %w: --index and --n exclude each other", experiment.ErrInvalid)
	}
	gens, err := experiment.ParseGenerators(splitList(*genNames)...)
	if err != nil {
		return fmt.Errorf("explain: --generator: %w", err)
	}
	kind := mf.kind
	e, err := ef.open(*dataset, stderr)
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if gens, err = experiment.WithOverrides(gens, ef.overrides.Generator); err != nil {
		return fmt.Errorf("explain: --set: %w", err)
	}
	if mf.dir != "" {
		m, err := mf.model(ctx, e)
		if err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		kind = m.Spec().Kind
	}
	var f *experiment.Factuals
	if *index >= 0 {
		f, err = e.FactualRows(ctx, kind, *runIdx, []int{*index}, *target)
	} else {
		if f, err = e.Factuals(ctx, kind, *runIdx, *n); err == nil && *target >= 0 {
			f, err = e.FactualRows(ctx, kind, *runIdx, f.Rows, *target)
		}
	}
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	r, err := e.Run(ctx, experiment.RunRequest{Kind: kind, Run: *runIdx, Factuals: f, Generators: gens})
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	r.MaxIterations = ef.overrides.MaxIterations // 0: counterfactual.DefaultMaxIterations
	r.Stop = ef.overrides.Stop                   // nil: the mode's rule
	var xs []*experiment.Explanation
	for _, g := range gens {
		x, err := r.Explain(ctx, g)
		if err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		xs = append(xs, x)
	}
	test := e.Split().Test
	if f.N() == 1 {
		for _, x := range xs {
			printOne(stdout, test, e.Split().Standardizer, x)
		}
	} else {
		fmt.Fprintf(stdout, "%s %s, run %d: %d factuals (%s mode, seed %d)\n\n", e.Dataset(), kind.Title(), *runIdx, f.N(), e.Mode(), e.Seed())
		fmt.Fprint(stdout, experiment.SummaryTable(xs))
		for _, x := range xs {
			s := x.Summary()
			fmt.Fprintf(stdout, "%s: %d counterfactuals in %.2f s (%.1f per second), converged %.0f %%\n", s.Generator, s.N, x.Search.Seconds(), s.PerSecond, 100*s.Converged)
		}
	}
	if *png != "" {
		if test.Image == nil {
			return fmt.Errorf("explain: %w: --png needs an image data set", experiment.ErrInvalid)
		}
		d := test.D()
		grid := &plot.ImageGrid{Height: test.Image.Height, Width: test.Image.Width, ColTitles: []string{"factual"}}
		for _, x := range xs {
			grid.ColTitles = append(grid.ColTitles, x.Generator.Name)
		}
		for i := range f.N() {
			row := [][]float32{f.X[i*d : (i+1)*d]}
			for _, x := range xs {
				row = append(row, x.Result.X[i*d:(i+1)*d])
			}
			grid.Cells = append(grid.Cells, row)
		}
		fig, err := grid.Figure()
		if err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		if err := fig.WritePNG(*png); err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s (per row: factual, then each generator's counterfactual)\n", *png)
	}
	return nil
}

// printOne prints one counterfactual: the factual, the counterfactual and what changed; for standardised
// data also the factual and the counterfactual in the data's original units.
func printOne(w io.Writer, test *data.Dataset, std *data.Standardizer, x *experiment.Explanation) {
	f, res := x.Factuals, x.Result
	cls := func(k int) string { return fmt.Sprintf("%d (%s)", k, test.ClassNames[k]) }
	fmt.Fprintf(w, "%s: test row %d, predicted %s, target %s\n", x.Generator.Name, f.Rows[0], cls(f.Predicted[0]), cls(f.Targets[0]))
	status := "converged"
	if !res.Converged[0] {
		status = "stopped at the iteration limit"
	}
	valid := "not valid"
	if x.Scores[0].Valid {
		valid = "valid"
	}
	fmt.Fprintf(w, "%d iterations, %s; p(y⁺|x′) = %.4f (%s)\n", res.Iterations[0], status, res.Probability[0], valid)
	s := x.Scores[0]
	fmt.Fprintf(w, "unfaithfulness %.4f, implausibility %.4f, uncertainty %.4f, cost %.4f, redundancy %.4f\n",
		s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy)
	d := test.D()
	changed := 0
	if test.Image != nil {
		for j := range d {
			if math.Abs(float64(res.X[j]-f.X[j])) > 1e-5 {
				changed++
			}
		}
		fmt.Fprintf(w, "%d of %d pixels changed\n\n", changed, d)
		return
	}
	// For a standardised data set, the factual and the counterfactual also in the data's units.
	var fx, cx []float32
	if std != nil {
		fx, cx = append([]float32(nil), f.X[:d]...), append([]float32(nil), res.X[:d]...)
		std.InverseRows(fx)
		std.InverseRows(cx)
		for j := range d { // a standardised value's round trip leaves ±1e-7·scale where the data has 0
			for _, v := range []*float32{&fx[j], &cx[j]} {
				if math.Abs(float64(*v)) < 1e-5*std.Scale[j] {
					*v = 0
				}
			}
		}
	}
	head := fmt.Sprintf("%-24s %12s %12s %12s", "feature", "factual", "counterfact.", "change")
	if std != nil {
		head += fmt.Sprintf(" %14s %14s", "factual (data)", "cf. (data)")
	}
	fmt.Fprintln(w, head)
	for j := range d {
		delta := res.X[j] - f.X[j]
		mark := ""
		if math.Abs(float64(delta)) > 1e-5 {
			changed++
			mark = " *"
		}
		line := fmt.Sprintf("%-24s %12.4f %12.4f %+12.4f", test.FeatureNames[j], f.X[j], res.X[j], delta)
		if std != nil {
			line += fmt.Sprintf(" %14.6g %14.6g", fx[j], cx[j])
		}
		fmt.Fprintln(w, line+mark)
	}
	note := ""
	if std != nil {
		note = "; the first three columns are standardised"
	}
	fmt.Fprintf(w, "%d of %d features changed (*)%s\n\n", changed, d, note)
}
