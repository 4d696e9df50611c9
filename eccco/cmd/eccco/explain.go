package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plots"
	"github.com/gomlx/compute"
)

func runExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain", "explain --data NAME --model M --generator G [--index i] [--target t] [--n N] [flags]", stderr)
	dataset := fs.String("data", "", "data set the model was trained on")
	kindName := fs.String("model", "mlp", "model kind (its saved directory is runs/models/DATA/MODEL unless --model-dir is given)")
	modelDir := fs.String("model-dir", "", "directory of a model saved by 'eccco train'")
	genName := fs.String("generator", "ECCCo", "generator: "+strings.Join(counterfactual.GeneratorNames(), ", "))
	index := fs.Int("index", 0, "test row to explain")
	target := fs.Int("target", -1, "target class (default: a random class other than the predicted one)")
	n := fs.Int("n", 1, "explain this many random test rows at once (batched) and print a summary")
	vaeDir := fs.String("vae-dir", "", "REVISE's VAE (default runs/models/DATA/vae; train one with 'eccco vae')")
	maxIter := fs.Int("max-iter", counterfactual.DefaultMaxIterations, "maximum search steps")
	png := fs.String("png", "", "for images: write factual | counterfactual grid to this PNG file")
	paperCode := fs.Bool("paper-code", false, "the generators as the authors' code built them: MAD-weighted Wachter cost, Ω gated below p = 0.5 with the empty-set rule (go doc ./eccco/counterfactual Ingredients)")
	dir := fs.String("dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	seed := fs.Uint64("seed", 42, "seed of the data split (must match training), targets and samples")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataset == "" {
		return fmt.Errorf("explain: --data is required")
	}
	if *modelDir == "" {
		*modelDir = filepath.Join("runs", "models", *dataset, *kindName)
	}
	if *n < 1 {
		return fmt.Errorf("explain: --n %d must be at least 1", *n)
	}
	params, err := counterfactual.PaperParams(*dataset)
	if err != nil {
		return err
	}
	if _, err := counterfactual.ByName(*genName, params, counterfactual.Ingredients{}); err != nil && strings.Contains(err.Error(), "unknown generator") {
		return fmt.Errorf("explain: %w", err)
	}
	b, err := backend.New()
	if err != nil {
		return err
	}
	m, err := models.Load(b, *modelDir)
	if err != nil {
		return fmt.Errorf("%w (train one first: eccco train --data %s --model %s)", err, *dataset, *kindName)
	}
	split, err := data.Load(*dataset, data.Options{Dir: *dir, Seed: *seed})
	if err != nil {
		return err
	}
	test := split.Test
	rng := data.NewRand(*seed + 1)
	var rows []int
	if *n == 1 {
		if *index < 0 || *index >= test.N() {
			return fmt.Errorf("explain: --index %d outside the %d test rows", *index, test.N())
		}
		rows = []int{*index}
	} else {
		rows = rng.Perm(test.N())[:min(*n, test.N())]
	}
	x := make([]float32, 0, len(rows)*test.D())
	for _, r := range rows {
		x = append(x, test.Row(r)...)
	}
	pred, err := models.Predict(b, m, x)
	if err != nil {
		return err
	}
	targets := make([]int, len(rows))
	for i := range rows {
		switch {
		case *target >= 0:
			if *target >= test.K() {
				return fmt.Errorf("explain: --target %d is not a class (0 … %d)", *target, test.K()-1)
			}
			if *target == pred[i] {
				return fmt.Errorf("explain: the model already predicts class %d for test row %d; choose another --target", *target, rows[i])
			}
			targets[i] = *target
		default:
			t := rng.IntN(test.K() - 1)
			if t >= pred[i] {
				t++
			}
			targets[i] = t
		}
	}
	gen, err := buildGenerator(ctx, b, m, *dataset, *genName, split.Train, *vaeDir, params, *seed, *paperCode)
	if err != nil {
		return err
	}
	lo, hi := split.Train.Bounds()
	start := time.Now()
	res, err := counterfactual.Search(ctx, b, m, gen, counterfactual.Request{Factuals: x, Targets: targets, Lower: lo, Upper: hi, MaxIterations: *maxIter})
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if *n == 1 {
		printOne(stdout, test, rows[0], pred[0], targets[0], x, res, gen.Name)
	} else {
		printSummary(stdout, b, m, gen.Name, x, targets, res, elapsed)
	}
	if *png != "" && test.Image != nil {
		var imgs [][]float32
		d := test.D()
		for i := range rows {
			imgs = append(imgs, x[i*d:(i+1)*d], res.X[i*d:(i+1)*d])
		}
		grid, err := plots.ImageGrid(imgs, test.Image.Height, test.Image.Width, 2)
		if err != nil {
			return err
		}
		if err := plots.WritePNG(*png, grid); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (factual | counterfactual per row)\n", *png)
	}
	return nil
}

// buildGenerator prepares the ingredients a generator needs (calibration, PCA, VAE, SGLD samples).
func buildGenerator(ctx context.Context, b compute.Backend, m models.Classifier, dataset, name string, train *data.Dataset, vaeDir string, p counterfactual.Params, seed uint64, paperCode bool) (*counterfactual.Generator, error) {
	var vae counterfactual.LatentMap
	if strings.EqualFold(strings.TrimSpace(name), "revise") {
		if vaeDir == "" {
			vaeDir = filepath.Join("runs", "models", dataset, "vae")
		}
		v, err := loadVAE(b, vaeDir)
		if err != nil {
			return nil, fmt.Errorf("REVISE needs a VAE: %w (train one: eccco vae --data %s)", err, dataset)
		}
		vae = v
	}
	in, err := counterfactual.PaperIngredients(ctx, b, m, dataset, train, vae, seed, name)
	if err != nil {
		return nil, err
	}
	if paperCode {
		if in, err = in.WithPaperCode(train); err != nil {
			return nil, err
		}
	}
	return counterfactual.ByName(name, p, in)
}

func printOne(w io.Writer, test *data.Dataset, row, pred, target int, x []float32, res *counterfactual.Result, gen string) {
	cls := func(k int) string { return fmt.Sprintf("%d (%s)", k, test.ClassNames[k]) }
	fmt.Fprintf(w, "%s: test row %d, predicted %s, target %s\n", gen, row, cls(pred), cls(target))
	status := "converged"
	if !res.Converged[0] {
		status = "stopped at the iteration limit"
	}
	fmt.Fprintf(w, "%d iterations, %s; p(y⁺|x′) = %.4f (%s)\n", res.Iterations[0], status, res.Probability[0], validWord(res.Probability[0]))
	d := test.D()
	changed := 0
	if test.Image != nil {
		for j := range d {
			if math.Abs(float64(res.X[j]-x[j])) > 1e-5 {
				changed++
			}
		}
		fmt.Fprintf(w, "%d of %d pixels changed\n", changed, d)
		return
	}
	fmt.Fprintf(w, "%-24s %12s %12s %12s\n", "feature", "factual", "counterfact.", "change")
	for j := range d {
		delta := res.X[j] - x[j]
		mark := ""
		if math.Abs(float64(delta)) > 1e-5 {
			changed++
			mark = " *"
		}
		fmt.Fprintf(w, "%-24s %12.4f %12.4f %+12.4f%s\n", test.FeatureNames[j], x[j], res.X[j], delta, mark)
	}
	fmt.Fprintf(w, "%d of %d features changed (*)\n", changed, d)
}

func validWord(p float32) string {
	if p >= counterfactual.DefaultThreshold {
		return "valid"
	}
	return "not valid"
}

func printSummary(w io.Writer, b compute.Backend, m models.Classifier, gen string, x []float32, targets []int, res *counterfactual.Result, elapsed time.Duration) {
	n := len(targets)
	valid, conv, iters := 0, 0, 0
	for i := range n {
		if res.Valid(i, counterfactual.DefaultThreshold) {
			valid++
		}
		if res.Converged[i] {
			conv++
		}
		iters += res.Iterations[i]
	}
	fmt.Fprintf(w, "%s: %d counterfactuals in %.2f s (%.1f per second)\n", gen, n, elapsed.Seconds(), float64(n)/elapsed.Seconds())
	fmt.Fprintf(w, "validity %.1f %%, converged %.1f %%, mean iterations %.1f\n", 100*float64(valid)/float64(n), 100*float64(conv)/float64(n), float64(iters)/float64(n))
	if e, err := counterfactual.MeanEnergy(b, m, res.X, targets); err == nil {
		fmt.Fprintf(w, "mean energy E(x′|y⁺) %.4f\n", e)
	} else {
		fmt.Fprintf(os.Stderr, "energy: %v\n", err)
	}
}
