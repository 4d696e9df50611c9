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

	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

func runSample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sample", "sample --data NAME --model M --class K [--mode paper|authors-code] [flags]", stderr)
	dataset := fs.String("data", "", "data set")
	kindName := fs.String("model", "jem", "model kind; a matching saved model is used, or one is trained with the paper's settings and saved")
	modelDir := fs.String("model-dir", "", "use the model saved in this directory (e.g. by 'eccco train --out DIR') instead")
	class := fs.Int("class", 0, "class to condition on")
	chains := fs.Int("chains", 0, "SGLD chains (0: the mode's, 50)")
	keep := fs.Int("keep", 0, "lowest-energy samples kept (0: the mode's, 25)")
	steps := fs.Int("steps", 0, "SGLD steps (0: the paper's 500)")
	out := fs.String("out", "", "CSV file for the samples (default runs/samples/DATA-MODEL-classK.csv); images also get a .png grid; an existing file is not overwritten without --force")
	force := fs.Bool("force", false, "overwrite the output files if they exist")
	stepSize := fs.Float64("step", -1, "SGLD step φ (ε when --unbiased); -1: the mode's, 2")
	noiseSD := fs.Float64("noise", -1, "SGLD noise sd σ (ignored when --unbiased); -1: the mode's, 0.01")
	clip := fs.Float64("clip", -1, "clip gradient elements to ±CLIP (0: no clipping, the paper's text; -1: the mode's, 0.01 as in the authors' code)")
	unbiased := fs.Bool("unbiased", false, "textbook SGLD: noise sd √ε")
	var ef expFlags
	ef.register(fs, "paper-code")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("sample: unexpected arguments %v", fs.Args())
	}
	if err := nonNegative(map[string]int{"chains": *chains, "keep": *keep, "steps": *steps}); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	for name, v := range map[string]float64{"clip": *clip, "step": *stepSize, "noise": *noiseSD} {
		if v < 0 && v != -1 || math.IsNaN(v) {
			return fmt.Errorf("sample: %w: --%s %v must be non-negative (-1: the mode's)", experiment.ErrInvalid, name, v)
		}
	}
	if *stepSize == 0 {
		return fmt.Errorf("sample: %w: --step must be positive", experiment.ErrInvalid)
	}
	kind, err := models.ParseKind(*kindName)
	if err != nil {
		return err
	}
	e, err := ef.open(*dataset, stderr)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	m, err := model(ctx, e, kind, *modelDir)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	kind = m.Spec().Kind
	train := e.Split().Train
	if *class < 0 || *class >= train.K() {
		return fmt.Errorf("sample: %w: --class %d outside [0, %d)", experiment.ErrInvalid, *class, train.K())
	}
	prior, err := energy.PriorFromData(train)
	if err != nil {
		return err
	}
	opts := e.Mode().ClassOptions(prior)
	if *chains > 0 {
		opts.Chains = *chains
	}
	if *keep > 0 {
		opts.Keep = *keep
	}
	if opts.Keep > opts.Chains {
		return fmt.Errorf("sample: %w: --keep %d exceeds the %d chains", experiment.ErrInvalid, opts.Keep, opts.Chains)
	}
	if *clip >= 0 {
		opts.SGLD.ClipGrad = *clip
	}
	if *stepSize > 0 {
		opts.SGLD.StepSize = *stepSize
	}
	if *noiseSD >= 0 {
		opts.SGLD.NoiseSD = *noiseSD
	}
	opts.SGLD.Unbiased = *unbiased
	if *steps > 0 {
		opts.SGLD.Steps = *steps
	}
	if *out == "" {
		*out = filepath.Join("runs", "samples", fmt.Sprintf("%s-%s-class%d.csv", e.Dataset(), kind, *class))
	}
	pngPath := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".png"
	if !*force {
		for _, p := range []string{*out, pngPath} {
			if _, err := os.Stat(p); err == nil && (p == *out || train.Image != nil) {
				return fmt.Errorf("sample: %s exists; pass --force to overwrite it or choose another --out", p)
			}
		}
	}
	s, err := energy.SampleClass(ctx, e.Backend(), m, *class, opts, experiment.SeedFor(e.Seed(), e.Dataset(), string(kind), "sample", fmt.Sprint(*class)))
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	pred, err := models.Predict(e.Backend(), m, s.X)
	if err != nil {
		return err
	}
	agree := 0
	for _, p := range pred {
		if p == *class {
			agree++
		}
	}
	own, other, err := energy.NearestDistances(s.X, train, *class)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d samples of class %q (%d chains, %d SGLD steps, %s mode); the model predicts the class for %d/%d (%.0f %%)\n",
		len(pred), train.ClassNames[*class], opts.Chains, opts.SGLD.Steps, e.Mode(), agree, len(pred), 100*float64(agree)/float64(len(pred)))
	fmt.Fprintf(stdout, "mean Euclidean distance to the nearest training point of class %d: %.4f; of any other class: %.4f\n", *class, own, other)
	fmt.Fprintf(stdout, "spread: mean Euclidean distance of the samples to their centroid: %.4f\n", spread(s.X, train.D()))
	if err := writeSamplesCSV(*out, train.FeatureNames, s, pred); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	if img := train.Image; img != nil {
		grid := &plot.ImageGrid{Height: img.Height, Width: img.Width}
		for i := 0; i < len(pred); i += 5 {
			var row [][]float32
			for j := i; j < min(i+5, len(pred)); j++ {
				row = append(row, s.X[j*img.Size():(j+1)*img.Size()])
			}
			for len(grid.Cells) > 0 && len(row) < 5 {
				row = append(row, nil) // the last row, padded with empty cells
			}
			grid.Cells = append(grid.Cells, row)
		}
		fig, err := grid.Figure()
		if err != nil {
			return err
		}
		if err := fig.WritePNG(pngPath); err != nil {
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
	return atomicfile.Write(path, 0o644, func(f io.Writer) error {
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
		return w.Error()
	})
}
