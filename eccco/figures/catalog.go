package figures

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
	"github.com/gomlx/compute"
)

// Env is where the catalog's figures come from: one experiment per data set (opened with Options and
// kept, so models are trained or loaded once), the 2-D computations shared by Fig. 2, poc-gen and
// cp-diff, and optionally benchmark results for the metric charts.
type Env struct {
	Options experiment.Options
	// Results are benchmark rows for the metric charts; nil skips those charts.
	Results []benchmark.Row
	// DPI is the resolution of the PNG files Write makes (0: DefaultDPI, 300).
	DPI int
	// ImageBackend, when not nil, runs the image data sets' experiments (MNIST, Fashion-MNIST: their models,
	// searches and samples) instead of Options.Backend: XLA is several times faster for them, pure Go for
	// the rest (go doc ./eccco/backend).
	ImageBackend compute.Backend

	exps  map[string]*experiment.Experiment
	synth map[string]*Synthetic
}

// NewEnv returns an environment for the experiment options.
func NewEnv(opts experiment.Options) *Env {
	return &Env{Options: opts, exps: map[string]*experiment.Experiment{}, synth: map[string]*Synthetic{}}
}

// Experiment opens (once) the data set's experiment.
func (env *Env) Experiment(dataset string) (*experiment.Experiment, error) {
	if e, ok := env.exps[dataset]; ok {
		return e, nil
	}
	opts := env.Options
	if env.ImageBackend != nil {
		info, err := data.Lookup(dataset)
		if err != nil {
			return nil, err
		}
		if info.Kind == data.KindVision {
			opts.Backend = env.ImageBackend
		}
	}
	e, err := experiment.Open(dataset, opts)
	if err != nil {
		return nil, err
	}
	env.exps[dataset] = e
	return e, nil
}

// Synthetic computes (once) SyntheticData for a 2-D data set and model with the Fig. 2 generators.
func (env *Env) Synthetic(ctx context.Context, dataset string, kind models.Kind) (*Synthetic, error) {
	key := dataset + "/" + string(kind)
	if s, ok := env.synth[key]; ok {
		return s, nil
	}
	e, err := env.Experiment(dataset)
	if err != nil {
		return nil, err
	}
	s, err := SyntheticData(ctx, e, kind, nil)
	if err != nil {
		return nil, err
	}
	env.synth[key] = s
	return s, nil
}

// Spec is one figure of the catalog.
type Spec struct {
	// Name is the file stem under the output directory (NAME.png, NAME.svg, NAME.pdf).
	Name string
	// Label is the paper's \label ("" for figures beyond the paper).
	Label string
	// Caption is the paper's caption, or ours for figures beyond the paper.
	Caption string
	// Datasets are the data sets the figure needs (it is skipped where one is not available).
	Datasets []string
	// Make computes and draws it.
	Make func(ctx context.Context, env *Env) (plot.Figure, error)
}

// InPaper reports whether the figure is one of the paper's.
func (s Spec) InPaper() bool { return s.Label != "" }

func synthetic(dataset string, kind models.Kind, draw func(*Synthetic) (plot.Figure, error)) func(context.Context, *Env) (plot.Figure, error) {
	return func(ctx context.Context, env *Env) (plot.Figure, error) {
		s, err := env.Synthetic(ctx, dataset, kind)
		if err != nil {
			return plot.Figure{}, err
		}
		return draw(s)
	}
}

func withExperiment(dataset string, make func(context.Context, *experiment.Experiment) (plot.Figure, error)) func(context.Context, *Env) (plot.Figure, error) {
	return func(ctx context.Context, env *Env) (plot.Figure, error) {
		e, err := env.Experiment(dataset)
		if err != nil {
			return plot.Figure{}, err
		}
		return make(ctx, e)
	}
}

// gridModels are the models of the appendix's MNIST grids, with their file-name parts and caption words.
var gridModels = []struct {
	kind        models.Kind
	slug, words string
}{
	{models.KindLeNet, "lenet", "a LeNet-5 \\textit{CNN}"},
	{models.KindMLP, "mlp", "an \\textit{MLP}"},
	{models.KindMLPEnsemble, "mlp-ens", "an \\textit{MLP} ensemble"},
	{models.KindJEM, "jem", "a \\textit{JEM}"},
	{models.KindJEMEnsemble, "jem-ens", "a \\textit{JEM} ensemble"},
}

// Catalog lists every figure: the paper's, in the order they appear, then the ones beyond it (Fig. 2 for
// moons and circles and for an MLP, a Fashion-MNIST Fig. 3, and the benchmark's metric charts when
// Env.Results holds results).
func Catalog() []Spec {
	ls, mnist := "linearly-separable", "mnist"
	specs := []Spec{
		{Name: "fig1-motiv", Label: "fig:motiv", Datasets: []string{mnist},
			Caption: "Counterfactuals for turning a 9 (nine) into a 7 (seven): original image (left), then the counterfactuals generated using Wachter, Schut and REVISE.",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
				return Transformation(ctx, e, models.KindMLP, 9, 7, "Wachter", "Schut", "REVISE")
			})},
		{Name: "fig2-poc", Label: "fig:poc", Datasets: []string{ls},
			Caption: "Gradient fields and counterfactual paths for different generators. The objective is to generate a counterfactual in the blue class for a sample from the orange class. Bright yellow stars indicate conditional samples generated through SGLD. The underlying classifier is a Joint Energy Model.",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).POC)},
		{Name: "fig3-mnist-bmk", Label: "fig:mnist-bmk", Datasets: []string{mnist},
			Caption: "Counterfactuals for turning a 3 into a 5: factual (left), then the counterfactuals generated by ECCCo, ECCCo+, REVISE, Schut and Wachter.",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
				return Transformation(ctx, e, models.KindLeNet, 3, 5, "ECCCo", "ECCCo+", "REVISE", "Schut", "Wachter")
			})},
		{Name: "mnist-gen", Label: "fig:mnist-gen", Datasets: []string{mnist},
			Caption: "Conditionally generated MNIST images for our JEM Ensemble.",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
				return GeneratedImages(ctx, e, models.KindJEMEnsemble, 10)
			})},
		{Name: "poc-gen", Label: "fig:poc-gen", Datasets: []string{ls},
			Caption: "Conditionally generated samples (stars) for our Linearly Separable data using a JEM.",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).POCGen)},
		{Name: "cp-diff", Label: "fig:cp-diff", Datasets: []string{ls},
			Caption: "Prediction set size (left), smooth set size loss (centre) and configurable classification loss (right) for a JEM trained on our Linearly Separable data.",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).CPDiff)},
	}
	for _, gen := range []struct{ slug, name string }{{"eccco", "ECCCo+"}, {"revise", "REVISE"}} {
		for _, m := range gridModels {
			specs = append(specs, Spec{Name: "mnist-" + gen.slug + "-" + m.slug, Label: "fig:mnist-" + gen.slug + "-" + m.slug, Datasets: []string{mnist},
				Caption: fmt.Sprintf("Counterfactuals for MNIST data generated by %s. The underlying model is %s. Original images are shown on the diagonal with the corresponding counterfactuals plotted across rows.",
					gen.name, strings.NewReplacer("\\textit{", "", "}", "").Replace(m.words)),
				Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
					return CounterfactualGrid(ctx, e, m.kind, gen.name)
				})})
		}
	}
	specs = append(specs, Spec{Name: "vae-rec", Label: "fig:vae-rec", Datasets: []string{mnist},
		Caption: "Randomly drawn MNIST images and their reconstructions generated by the VAE used by REVISE.",
		Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
			return VAEReconstructions(ctx, e, 20)
		})})
	// Beyond the paper.
	for _, c := range []struct {
		dataset string
		kind    models.Kind
	}{{ls, models.KindMLP}, {"moons", models.KindJEM}, {"moons", models.KindMLP}, {"circles", models.KindJEM}, {"circles", models.KindMLP}} {
		specs = append(specs, Spec{Name: fmt.Sprintf("poc-%s-%s", c.dataset, c.kind), Datasets: []string{c.dataset},
			Caption: fmt.Sprintf("Fig. 2 for the %s data and %s %s: gradient fields and paths of Wachter, ECCCo (no EBM), ECCCo (no CP) and ECCCo from the orange class to the blue one; stars are the model's SGLD samples of the blue class.",
				c.dataset, article(c.kind), c.kind.Title()),
			Make: synthetic(c.dataset, c.kind, (*Synthetic).POC)})
	}
	specs = append(specs, Spec{Name: "fig3-fashion-mnist-bmk", Datasets: []string{"fashion-mnist"},
		Caption: "Fig. 3 for Fashion-MNIST: a sneaker turned into a sandal by ECCCo, ECCCo+, REVISE, Schut and Wachter for LeNet-5.",
		Make: withExperiment("fashion-mnist", func(ctx context.Context, e *experiment.Experiment) (plot.Figure, error) {
			return Transformation(ctx, e, models.KindLeNet, 7, 5, "ECCCo", "ECCCo+", "REVISE", "Schut", "Wachter")
		})})
	for _, dataset := range data.Names() {
		for _, metric := range []string{"unfaithfulness", "implausibility"} {
			specs = append(specs, Spec{Name: fmt.Sprintf("bench-%s-%s", dataset, metric), Datasets: []string{dataset},
				Caption: fmt.Sprintf("The benchmark's %s on %s per generator and model: mean ± sd of the run means (needs benchmark results).", metric, dataset),
				Make: func(_ context.Context, env *Env) (plot.Figure, error) {
					if env.Results == nil {
						return plot.Figure{}, ErrNoResults
					}
					return BenchmarkChart(compare.Aggregate(env.Results), dataset, metric)
				}})
		}
	}
	return specs
}

// ErrNoResults reports a benchmark chart asked for without benchmark results (Env.Results).
var ErrNoResults = errors.New("figures: no benchmark results")

func article(k models.Kind) string {
	if k == models.KindMLP || k == models.KindMLPEnsemble {
		return "an"
	}
	return "a"
}

// Lookup finds catalog entries by name; an unknown name is an error naming the known ones.
func Lookup(names ...string) ([]Spec, error) {
	all := Catalog()
	var out []Spec
	for _, n := range names {
		found := false
		for _, s := range all {
			if s.Name == n {
				out, found = append(out, s), true
				break
			}
		}
		if !found {
			var known []string
			for _, s := range all {
				known = append(known, s.Name)
			}
			return nil, fmt.Errorf("%w: unknown figure %q (known: %s)", experiment.ErrInvalid, n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// Formats are the files Write makes of each figure.
var Formats = []string{"png", "svg", "pdf"}

// Write makes the figure and writes DIR/NAME.png, .svg and .pdf (each atomically); it returns the paths.
func (s Spec) Write(ctx context.Context, env *Env, dir string) ([]string, error) {
	fig, err := s.Make(ctx, env)
	if err != nil {
		return nil, fmt.Errorf("figure %s: %w", s.Name, err)
	}
	if env.DPI > 0 {
		fig.DPI = env.DPI
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("figure %s: %w", s.Name, err)
	}
	var paths []string
	for _, ext := range Formats {
		p := filepath.Join(dir, s.Name+"."+ext)
		if err := fig.Write(p); err != nil {
			return paths, fmt.Errorf("figure %s: %w", s.Name, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
