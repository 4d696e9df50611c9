package figures

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
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

	exps  map[string]*experiment.Experiment
	synth map[string]*Synthetic
	grids map[string]GridMade
}

// NewEnv returns an environment for the experiment options.
func NewEnv(opts experiment.Options) *Env {
	return &Env{Options: opts, exps: map[string]*experiment.Experiment{}, synth: map[string]*Synthetic{}, grids: map[string]GridMade{}}
}

// Experiment opens (once) the data set's experiment.
func (env *Env) Experiment(dataset string) (*experiment.Experiment, error) {
	if e, ok := env.exps[dataset]; ok {
		return e, nil
	}
	e, err := experiment.Open(dataset, env.Options)
	if err != nil {
		return nil, err
	}
	env.exps[dataset] = e
	return e, nil
}

// Synthetic computes (once) SyntheticData for a 2-D data set and model with the Fig. 2 generators.
func (env *Env) Synthetic(ctx context.Context, dataset string, kind models.Kind) (*Synthetic, error) {
	return env.SyntheticIn(ctx, env.Options.Mode, dataset, kind)
}

// SyntheticIn is Synthetic in a mode that may differ from the environment's (Fig. 2 is drawn in both).
func (env *Env) SyntheticIn(ctx context.Context, mode experiment.Mode, dataset string, kind models.Kind) (*Synthetic, error) {
	own := mode == env.Options.Mode
	key := dataset + "/" + string(kind)
	if !own {
		key += "@" + string(mode)
	}
	if s, ok := env.synth[key]; ok {
		return s, nil
	}
	var e *experiment.Experiment
	var err error
	if own {
		e, err = env.Experiment(dataset)
	} else {
		opts := env.Options
		opts.Mode = mode
		e, err = experiment.Open(dataset, opts)
	}
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

// Grid computes (once) the appendix's MNIST grid of a model and generator (CounterfactualGridChecked).
func (env *Env) Grid(ctx context.Context, kind models.Kind, generator string) (GridMade, error) {
	key := string(kind) + "/" + generator
	if g, ok := env.grids[key]; ok {
		return g, nil
	}
	e, err := env.Experiment("mnist")
	if err != nil {
		return GridMade{}, err
	}
	g, err := CounterfactualGridChecked(ctx, e, kind, generator)
	if err != nil {
		return GridMade{}, err
	}
	env.grids[key] = g
	return g, nil
}

// Spec is one figure of the catalog.
type Spec struct {
	// Name is the file stem under the output directory (NAME.png, NAME.svg, NAME.pdf).
	Name string
	// Label is the paper's \label ("" for figures beyond the paper).
	Label string
	// Caption is the paper's caption, or ours for figures beyond the paper.
	Caption string
	// Claim is what the paper claims with the figure (from its text), and how the recipe measures it:
	// the criteria that Make returns ("" for the benchmark charts, which carry no claim).
	Claim string
	// Datasets are the data sets the figure needs (it is skipped where one is not available).
	Datasets []string
	// Make computes and draws it, and measures its criteria on the data it draws.
	Make func(ctx context.Context, env *Env) (Made, error)
}

// InPaper reports whether the figure is one of the paper's.
func (s Spec) InPaper() bool { return s.Label != "" }

func synthetic(dataset string, kind models.Kind, draw func(*Synthetic) (Made, error)) func(context.Context, *Env) (Made, error) {
	return func(ctx context.Context, env *Env) (Made, error) {
		s, err := env.Synthetic(ctx, dataset, kind)
		if err != nil {
			return Made{}, err
		}
		return draw(s)
	}
}

func withExperiment(dataset string, make func(context.Context, *experiment.Experiment) (Made, error)) func(context.Context, *Env) (Made, error) {
	return func(ctx context.Context, env *Env) (Made, error) {
		e, err := env.Experiment(dataset)
		if err != nil {
			return Made{}, err
		}
		return make(ctx, e)
	}
}

// unchecked adapts a drawing without criteria.
func unchecked(f plot.Figure, err error) (Made, error) { return Made{Figure: f}, err }

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
	bmk := "As in Fig. 3: every counterfactual but Schut's valid (p(y⁺|x′) ≥ 0.5); ECCCo's and ECCCo+'s counterfactuals plausible, i.e. read as the target by a 1-nearest-neighbour classifier on the training images (independent of the model)."
	specs := []Spec{
		{Name: "fig1-motiv", Label: "fig:motiv", Datasets: []string{mnist},
			Caption: "Counterfactuals for turning a 9 (nine) into a 7 (seven): original image (left), then the counterfactuals generated using Wachter, Schut and REVISE.",
			Claim:   "All three counterfactuals have full fidelity (valid: p(y⁺|x′) ≥ 0.5); REVISE's looks much more plausible than the other two (read as a 7 by a 1-nearest-neighbour classifier on the training images).",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (Made, error) {
				return TransformationOf(ctx, e, models.KindMLP, 9, 7, nil, names(catalogue.REVISE), MotivGenerators()...)
			})},
		{Name: "fig2-poc", Label: "fig:poc", Datasets: []string{ls},
			Caption: "Gradient fields and counterfactual paths for different generators. The objective is to generate a counterfactual in the blue class for a sample from the orange class. Bright yellow stars indicate conditional samples generated through SGLD. The underlying classifier is a Joint Energy Model.",
			Claim:   "Every counterfactual valid; ECCCo's of lower energy E(x′|y⁺) than Wachter's and closer to the blue class's data (Wachter stays close to the factual); ECCCo (no EBM) avoids the uncertain region, so it ends away from Wachter's; ECCCo converges in fewer steps than ECCCo (no CP).",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).POCChecked)},
		{Name: "fig2-poc-authors", Datasets: []string{ls},
			Caption: "Figure 2 in the authors'-code mode: the same generators and factual on the authors' own trained JEM, whose conformal set size is not 0 everywhere on the plane, as it is in the paper's equations on two classes.",
			Claim:   "As Fig. 2: every counterfactual valid; ECCCo's of lower energy E(x′|y⁺) than Wachter's and closer to the blue class's data; ECCCo (no EBM) avoids the uncertain region, so it ends away from Wachter's; ECCCo converges in fewer steps than ECCCo (no CP).",
			Make: func(ctx context.Context, env *Env) (Made, error) {
				s, err := env.SyntheticIn(ctx, experiment.AuthorsCode, ls, models.KindJEM)
				if err != nil {
					return Made{}, err
				}
				return s.POCChecked()
			}},
		{Name: "fig3-mnist-bmk", Label: "fig:mnist-bmk", Datasets: []string{mnist},
			Caption: "Counterfactuals for turning a 3 into a 5: factual (left), then the counterfactuals generated by ECCCo, ECCCo+, REVISE, Schut and Wachter.",
			Claim:   "All counterfactuals but Schut's valid (p(y⁺|x′) ≥ 0.5); both ECCCo variants plausible (read as a 5 by a 1-nearest-neighbour classifier on the training images).",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (Made, error) {
				return TransformationChecked(ctx, e, models.KindLeNet, 3, 5, names(catalogue.Schut), names(catalogue.ECCCo, catalogue.ECCCoPlus), names(catalogue.ECCCo, catalogue.ECCCoPlus, catalogue.REVISE, catalogue.Schut, catalogue.Wachter)...)
			})},
		{Name: "mnist-gen", Label: "fig:mnist-gen", Datasets: []string{mnist},
			Caption: "Conditionally generated MNIST images for our JEM Ensemble.",
			Claim:   "The samples give a sense of the model's generative property: they vary within a class (mean pairwise distance ≥ 0.5 of the class's training images') and look like their class (≥ 0.5 read as it by a 1-nearest-neighbour classifier on the training images).",
			Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (Made, error) {
				return GeneratedImagesChecked(ctx, e, models.KindJEMEnsemble, 10)
			})},
		{Name: "poc-gen", Label: "fig:poc-gen", Datasets: []string{ls},
			Caption: "Conditionally generated samples (stars) for our Linearly Separable data using a JEM.",
			Claim:   "The samples of each class sit in that class's data (≥ 0.9 with a nearest training point of their class) and give a sense of its distribution (mean pairwise distance ≥ 0.5 of the class data's).",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).POCGenChecked)},
		{Name: "cp-diff", Label: "fig:cp-diff", Datasets: []string{ls},
			Caption: "Prediction set size (left), smooth set size loss (centre) and configurable classification loss (right) for a JEM trained on our Linearly Separable data.",
			Claim:   "The smooth set size (centre) is a differentiable stand-in for the set size (left): it varies over the plane (max − min ≥ 0.05).",
			Make:    synthetic(ls, models.KindJEM, (*Synthetic).CPDiffChecked)},
	}
	for _, gen := range []struct{ slug, name string }{{"eccco", string(catalogue.ECCCoPlus)}, {"revise", string(catalogue.REVISE)}} {
		for _, m := range gridModels {
			spec := Spec{Name: "mnist-" + gen.slug + "-" + m.slug, Label: "fig:mnist-" + gen.slug + "-" + m.slug, Datasets: []string{mnist},
				Caption: fmt.Sprintf("Counterfactuals for MNIST data generated by %s. The underlying model is %s. Original images are shown on the diagonal with the corresponding counterfactuals plotted across rows.",
					gen.name, strings.NewReplacer("\\textit{", "", "}", "").Replace(m.words))}
			if gen.name == string(catalogue.ECCCoPlus) {
				spec.Claim = "ECCCo+ performs much better than REVISE on visual inspection: its counterfactuals mostly read as their target (≥ 0.5 of the 90 read as the target by a 1-nearest-neighbour classifier on the training images)."
				spec.Make = func(ctx context.Context, env *Env) (Made, error) {
					g, err := env.Grid(ctx, m.kind, gen.name)
					return g.Made, err
				}
			} else {
				spec.Claim = "REVISE's counterfactuals look fairly poor, worse than ECCCo+'s: fewer of the 90 read as their target by a 1-nearest-neighbour classifier on the training images than ECCCo+'s for the same model."
				spec.Make = func(ctx context.Context, env *Env) (Made, error) {
					g, err := env.Grid(ctx, m.kind, gen.name)
					if err != nil {
						return Made{}, err
					}
					eg, err := env.Grid(ctx, m.kind, string(catalogue.ECCCoPlus))
					if err != nil {
						return Made{}, err
					}
					return Made{Figure: g.Figure, Criteria: []Criterion{reviseAgainstECCCo(g, eg)}}, nil
				}
			}
			specs = append(specs, spec)
		}
	}
	specs = append(specs, Spec{Name: "vae-rec", Label: "fig:vae-rec", Datasets: []string{mnist},
		Caption: "Randomly drawn MNIST images and their reconstructions generated by the VAE used by REVISE.",
		Claim:   "REVISE's poor counterfactuals are not driven by a weak VAE: its reconstructions keep their digit (≥ 0.9 read as the original's class by a 1-nearest-neighbour classifier on the training images).",
		Make: withExperiment(mnist, func(ctx context.Context, e *experiment.Experiment) (Made, error) {
			return VAEReconstructionsChecked(ctx, e, 20)
		})})
	// Beyond the paper.
	for _, c := range []struct {
		dataset string
		kind    models.Kind
	}{{ls, models.KindMLP}, {"moons", models.KindJEM}, {"moons", models.KindMLP}, {"circles", models.KindJEM}, {"circles", models.KindMLP}} {
		specs = append(specs, Spec{Name: fmt.Sprintf("poc-%s-%s", c.dataset, c.kind), Datasets: []string{c.dataset},
			Caption: fmt.Sprintf("Fig. 2 for the %s data and %s %s: gradient fields and paths of Wachter, ECCCo (no EBM), ECCCo (no CP) and ECCCo from the orange class to the blue one; stars are the model's SGLD samples of the blue class.",
				c.dataset, article(c.kind), c.kind.Title()),
			Claim: "Fig. 2's claims, on other data or another model: every counterfactual valid; ECCCo's of lower energy than Wachter's and closer to the blue class's data; ECCCo (no EBM) away from Wachter's; ECCCo faster than ECCCo (no CP).",
			Make:  synthetic(c.dataset, c.kind, (*Synthetic).POCChecked)})
	}
	specs = append(specs, Spec{Name: "fig3-fashion-mnist-bmk", Datasets: []string{"fashion-mnist"},
		Caption: "Fig. 3 for Fashion-MNIST: a sneaker turned into a sandal by ECCCo, ECCCo+, REVISE, Schut and Wachter for LeNet-5.",
		Claim:   bmk,
		Make: withExperiment("fashion-mnist", func(ctx context.Context, e *experiment.Experiment) (Made, error) {
			return TransformationChecked(ctx, e, models.KindLeNet, 7, 5, names(catalogue.Schut), names(catalogue.ECCCo, catalogue.ECCCoPlus), names(catalogue.ECCCo, catalogue.ECCCoPlus, catalogue.REVISE, catalogue.Schut, catalogue.Wachter)...)
		})})
	for _, dataset := range data.Names() {
		for _, metric := range []string{"unfaithfulness", "implausibility"} {
			specs = append(specs, Spec{Name: fmt.Sprintf("bench-%s-%s", dataset, metric), Datasets: []string{dataset},
				Caption: fmt.Sprintf("The benchmark's %s on %s per generator and model: mean ± sd of the run means (needs benchmark results).", metric, dataset),
				Make: func(_ context.Context, env *Env) (Made, error) {
					if env.Results == nil {
						return Made{}, ErrNoResults
					}
					return unchecked(BenchmarkChart(compare.Aggregate(env.Results), dataset, metric))
				}})
		}
	}
	return specs
}

// reviseAgainstECCCo is the criterion of a REVISE grid: fewer of its counterfactuals read as their target
// than of ECCCo+'s grid for the same model.
func reviseAgainstECCCo(revise, eccco GridMade) Criterion {
	return Criterion{Claim: "REVISE's counterfactuals look worse than ECCCo+'s",
		Measure: "share of REVISE's grid read as the target by the nearest training image − ECCCo+'s (< 0 holds)",
		Value:   revise.ReadAsTarget - eccco.ReadAsTarget,
		Detail:  fmt.Sprintf("REVISE %.2f, ECCCo+ %.2f; valid: REVISE %.2f, ECCCo+ %.2f", revise.ReadAsTarget, eccco.ReadAsTarget, revise.Valid, eccco.Valid),
		Holds:   revise.ReadAsTarget < eccco.ReadAsTarget}
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

// Write makes the figure and writes DIR/NAME.png, .svg and .pdf (each atomically), and the criteria its
// recipe measured to DIR/NAME.criteria.json (CriteriaFile) where it has any; it returns the paths and the
// criteria.
func (s Spec) Write(ctx context.Context, env *Env, dir string) ([]string, []Criterion, error) {
	made, err := s.Make(ctx, env)
	if err != nil {
		return nil, nil, fmt.Errorf("figure %s: %w", s.Name, err)
	}
	fig := made.Figure
	if env.DPI > 0 {
		fig.DPI = env.DPI
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("figure %s: %w", s.Name, err)
	}
	var paths []string
	for _, ext := range Formats {
		p := filepath.Join(dir, s.Name+"."+ext)
		if err := fig.Write(p); err != nil {
			return paths, nil, fmt.Errorf("figure %s: %w", s.Name, err)
		}
		paths = append(paths, p)
	}
	if len(made.Criteria) > 0 {
		p, err := WriteCriteria(dir, s.Name, made.Criteria)
		if err != nil {
			return paths, nil, err
		}
		paths = append(paths, p)
	}
	return paths, made.Criteria, nil
}

// MotivGenerators are Fig. 1's generators (fig:motiv): Wachter, Schut and REVISE with the data set's
// parameters, but Schut's step η = 2, as the paper's figure was drawn by its own notebook, not by the
// benchmark (ECCCo.jl experiments/notebooks/figures1and3.qmd:41 at 64a9035: GreedyGenerator(η=2.0)).
func MotivGenerators() []experiment.Generator {
	return []experiment.Generator{{Name: string(catalogue.Wachter)}, {Name: string(catalogue.Schut), Set: experiment.Tuning{Step: new(2.0)}}, {Name: string(catalogue.REVISE)}}
}

// names spells generators' names as the figures' options take them.
func names(gens ...catalogue.Name) []string {
	out := make([]string, len(gens))
	for i, g := range gens {
		out[i] = string(g)
	}
	return out
}
