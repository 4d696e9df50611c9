package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plots"
)

func runSample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sample", "sample --data NAME --model M --class K [flags]", stderr)
	dataset := fs.String("data", "", "data set the model was trained on")
	kindName := fs.String("model", "jem", "model kind (its saved directory is runs/models/DATA/MODEL unless --model-dir is given)")
	modelDir := fs.String("model-dir", "", "directory of a model saved by 'eccco train'")
	class := fs.Int("class", 0, "class to condition on")
	chains := fs.Int("chains", energy.DefaultChains, "SGLD chains")
	keep := fs.Int("keep", energy.DefaultKeep, "lowest-energy samples kept")
	steps := fs.Int("steps", 0, "SGLD steps (0: the paper's 500)")
	out := fs.String("out", "", "CSV file for the samples (default runs/samples/DATA-MODEL-classK.csv); images also get a .png grid")
	dir := fs.String("dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	seed := fs.Uint64("seed", 42, "seed of the data split (must match training) and of the sampler")
	paperCode := fs.Bool("paper-code", false, "the authors' code's sampler (energy.PaperCodeClassOptions): 95 % of chains from one shared start, batch-mean gradients, ranked by −log softmax")
	stepSize := fs.Float64("step", energy.DefaultStepSize, "SGLD step φ (ε when --unbiased)")
	noiseSD := fs.Float64("noise", energy.DefaultNoiseSD, "SGLD noise sd σ (ignored when --unbiased)")
	clip := fs.Float64("clip", energy.PaperCodeClipGrad, "clip gradient elements to ±CLIP, as the authors' code did (0: no clipping, the paper's text)")
	unbiased := fs.Bool("unbiased", false, "textbook SGLD: noise sd √ε")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dataset == "" {
		return fmt.Errorf("sample: --data is required")
	}
	if *modelDir == "" {
		*modelDir = filepath.Join("runs", "models", *dataset, *kindName)
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
	if *class < 0 || *class >= split.Train.K() {
		return fmt.Errorf("sample: --class %d outside [0, %d)", *class, split.Train.K())
	}
	prior, err := energy.PriorFromData(split.Train)
	if err != nil {
		return err
	}
	opts := energy.DefaultClassOptions(prior)
	if *paperCode {
		opts = energy.PaperCodeClassOptions(prior)
	}
	opts.Chains, opts.Keep = *chains, *keep
	if *clip < 0 {
		return fmt.Errorf("sample: --clip %v must be non-negative (0: no clipping)", *clip)
	}
	opts.SGLD.ClipGrad = *clip
	opts.SGLD.StepSize, opts.SGLD.NoiseSD, opts.SGLD.Unbiased = *stepSize, *noiseSD, *unbiased
	if *steps > 0 {
		opts.SGLD.Steps = *steps
	}
	s, err := energy.SampleClass(ctx, b, m, *class, opts, *seed)
	if err != nil {
		return err
	}
	pred, err := models.Predict(b, m, s.X)
	if err != nil {
		return err
	}
	agree := 0
	for _, p := range pred {
		if p == *class {
			agree++
		}
	}
	own, other, err := energy.NearestDistances(s.X, split.Train, *class)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d samples of class %q (%d chains, %d SGLD steps); the model predicts the class for %d/%d (%.0f %%)\n",
		len(pred), split.Train.ClassNames[*class], opts.Chains, opts.SGLD.Steps, agree, len(pred), 100*float64(agree)/float64(len(pred)))
	fmt.Fprintf(stdout, "mean Euclidean distance to the nearest training point of class %d: %.4f; of any other class: %.4f\n", *class, own, other)
	fmt.Fprintf(stdout, "spread: mean Euclidean distance of the samples to their centroid: %.4f\n", spread(s.X, split.Train.D()))
	if *out == "" {
		*out = filepath.Join("runs", "samples", fmt.Sprintf("%s-%s-class%d.csv", *dataset, *kindName, *class))
	}
	if err := writeSamplesCSV(*out, split.Train.FeatureNames, s, pred); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	if img := split.Train.Image; img != nil {
		rows := make([][]float32, len(pred))
		for i := range rows {
			rows[i] = s.X[i*img.Size() : (i+1)*img.Size()]
		}
		grid, err := plots.ImageGrid(rows, img.Height, img.Width, 5)
		if err != nil {
			return err
		}
		pngPath := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".png"
		if err := plots.WritePNG(pngPath, grid); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", pngPath)
	}
	return nil
}

// spread returns the mean Euclidean distance of the rows of x (d features each) to their centroid.
func spread(x []float32, d int) float64 {
	n := len(x) / d
	if n == 0 {
		return 0
	}
	c := make([]float64, d)
	for i, v := range x {
		c[i%d] += float64(v) / float64(n)
	}
	var sum float64
	for i := range n {
		var s2 float64
		for j := range d {
			dv := float64(x[i*d+j]) - c[j]
			s2 += dv * dv
		}
		sum += math.Sqrt(s2)
	}
	return sum / float64(n)
}

func writeSamplesCSV(path string, features []string, s *energy.ClassSamples, pred []int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.csv")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	w := csv.NewWriter(f)
	_ = w.Write(append(append([]string{}, features...), "energy", "predicted"))
	d := len(features)
	for i := range pred {
		rec := make([]string, 0, d+2)
		for _, v := range s.X[i*d : (i+1)*d] {
			rec = append(rec, strconv.FormatFloat(float64(v), 'g', 7, 32))
		}
		rec = append(rec, strconv.FormatFloat(float64(s.Energies[i]), 'g', 7, 32), strconv.Itoa(pred[i]))
		_ = w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
