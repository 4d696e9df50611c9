package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

func runSample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sample", "sample --data NAME --model KIND|DIR --class K [--mode paper|authors-code] [--set chains=N,…] [flags]", stderr)
	dataset := fs.String("data", "", "data set")
	var mf modelFlag
	registerModel(fs, &mf, models.KindJEM)
	class := fs.Int("class", 0, "class to condition on")
	out := fs.String("out", "", "CSV file for the samples (default runs/samples/DATA-MODEL-classK.csv); images also get a .png grid; an existing file is not overwritten without --replace")
	replace := fs.Bool("replace", false, "overwrite the output files if they exist")
	var ef expFlags
	ef.register(fs, experiment.SetSampler, experiment.SetTraining, experiment.SetSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("sample: unexpected arguments %v", fs.Args())
	}
	e, err := ef.open(*dataset, stderr)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	m, err := mf.model(ctx, e)
	if err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	kind := m.Spec().Kind
	train := e.Split().Train
	if *class < 0 || *class >= train.K() {
		return fmt.Errorf("sample: --class %d: %w: not a class of %s (0 … %d)", *class, experiment.ErrInvalid, e.Dataset(), train.K()-1)
	}
	if *out == "" {
		*out = filepath.Join("runs", "samples", fmt.Sprintf("%s-%s-class%d.csv", e.Dataset(), kind, *class))
	}
	pngPath := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".png"
	if !*replace {
		for _, p := range []string{*out, pngPath} {
			if _, err := os.Stat(p); err == nil && (p == *out || train.Image != nil) {
				return fmt.Errorf("sample: %s exists; pass --replace to overwrite it or choose another --out", p)
			}
		}
	}
	s, err := e.Sample(ctx, m, *class, ef.overrides.Sampler)
	if err != nil {
		return fmt.Errorf("sample: --class %d: %w", *class, err)
	}
	n := s.N()
	fmt.Fprintf(stdout, "%d samples of class %q (%d chains, %d SGLD steps, %s mode); the model predicts the class for %d/%d (%.0f %%)\n",
		n, train.ClassNames[*class], s.Options.Chains, s.Options.SGLD.Steps, e.Mode(), s.Agree, n, 100*float64(s.Agree)/float64(n))
	fmt.Fprintf(stdout, "mean Euclidean distance to the nearest training point of class %d: %.4f; of any other class: %.4f\n", *class, s.NearestOwn, s.NearestOther)
	fmt.Fprintf(stdout, "spread: mean Euclidean distance of the samples to their centroid: %.4f\n", s.Spread)
	if err := atomicfile.Write(*out, 0o644, func(w io.Writer) error { return s.WriteCSV(w, train.FeatureNames) }); err != nil {
		return fmt.Errorf("sample: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	if img := train.Image; img != nil {
		grid := &plot.ImageGrid{Height: img.Height, Width: img.Width}
		for i := 0; i < n; i += 5 {
			var row [][]float32
			for j := i; j < min(i+5, n); j++ {
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
