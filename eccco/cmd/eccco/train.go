package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", "train --data NAME --model mlp|mlp-ensemble|jem|jem-ensemble|lenet [--mode paper|authors-code] [--set k=v] [flags]", stderr)
	dataset := fs.String("data", "", "data set (see 'eccco data list')")
	kindName := fs.String("model", "mlp", "model kind: mlp, mlp-ensemble, jem, jem-ensemble or lenet")
	out := fs.String("out", "", "directory to save the model in (default: where explain, sample and bench look, MODELS-DIR/MODE/seed-SEED/DATA/MODEL; 'none' to skip)")
	replace := fs.Bool("replace", false, "replace a model already saved there (never anything else)")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSettings)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("train: unexpected arguments %v", fs.Args())
	}
	kind, err := models.ParseKind(*kindName)
	if err != nil {
		return fmt.Errorf("train: --model: %w", err)
	}
	e, err := ef.open(*dataset, stderr)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	dir := *out
	if dir == "" {
		dir = e.ModelDir(kind)
	}
	if dir != "none" && !*replace {
		// Fail before hours of training, not after.
		if err := models.CheckSaveDir(dir); err != nil {
			return fmt.Errorf("train: %w (pass --replace to replace a saved model, or choose another --out)", err)
		}
	}
	tr, err := e.TrainModel(ctx, kind)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	perf, err := e.Score(tr.Model, kind)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s on %s (%s mode): %d training rows, %d epochs, %.1f s on %s\n", kind.Title(), e.Dataset(), e.Mode(),
		perf.TrainRows, perf.Epochs, tr.Duration.Seconds(), e.Backend().Name())
	if tr.Skipped > 0 {
		fmt.Fprintf(stdout, "%d minibatches skipped because their loss was not finite\n", tr.Skipped)
	}
	printScores(stdout, perf)
	if dir == "none" {
		return nil
	}
	save := tr.Model.Save
	if *replace {
		save = tr.Model.Replace
	}
	if err := save(dir); err != nil {
		if errors.Is(err, models.ErrExists) {
			return fmt.Errorf("train: %w (pass --replace to replace a saved model, or choose another --out)", err)
		}
		return fmt.Errorf("train: %w", err)
	}
	fmt.Fprintf(stdout, "saved to %s\n", dir)
	return nil
}

// printScores prints a model's test scores beside the paper's.
func printScores(w io.Writer, p *experiment.Performance) {
	fmt.Fprintf(w, "test (%d rows): accuracy %.4f  precision %.4f  F1 %.4f\n", p.TestRows, p.Accuracy, p.Precision, p.F1)
	if p.HasPublished {
		fmt.Fprintf(w, "paper:            accuracy %.2f    precision %.2f    F1 %.2f\n", p.Published.Accuracy, p.Published.Precision, p.Published.F1)
	}
}
