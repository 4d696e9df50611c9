package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// trainConfig holds what `train` and `perf` share: where data live and how to train.
type trainConfig struct {
	dataDir   string
	seed      uint64
	epochs    int     // 0: the paper's
	batchSize int     // 0: the paper's
	lr        float64 // 0: the paper's
	// jemPaperCode trains JEMs as the authors' experiments did (energy.JEMOptions.WithPaperCode).
	jemPaperCode bool
}

func (c *trainConfig) register(fs interface {
	StringVar(*string, string, string, string)
	Uint64Var(*uint64, string, uint64, string)
	IntVar(*int, string, int, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
}) {
	fs.StringVar(&c.dataDir, "dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	fs.Uint64Var(&c.seed, "seed", 42, "seed for data generation, splitting, initialisation and minibatch order")
	fs.IntVar(&c.epochs, "epochs", 0, "training epochs (0: the paper's setting for the data set)")
	fs.IntVar(&c.batchSize, "batch-size", 0, "minibatch size (0: the paper's setting)")
	fs.Float64Var(&c.lr, "lr", 0, "Adam learning rate (0: the paper's, 1e-3)")
	fs.BoolVar(&c.jemPaperCode, "jem-paper-code", false, "JEM: train as the authors' experiments did (energies of the softmax output, conditioned on the minibatch's first label; go doc ./eccco/energy JEMOptions)")
}

// trained is a model fitted on one data set, with its test scores.
type trained struct {
	dataset  string
	kind     models.Kind
	model    *models.Model
	scores   models.Scores
	epochs   int
	trainN   int
	testN    int
	duration time.Duration
	skipped  int // JEM minibatches skipped for a non-finite loss
}

func trainAndScore(ctx context.Context, b compute.Backend, split *data.Split, dataset string, kind models.Kind, cfg trainConfig, stderr io.Writer) (*trained, error) {
	switch kind {
	case models.KindLeNet:
		if split.Train.Image == nil {
			return nil, fmt.Errorf("LeNet-5 needs an image data set (mnist or fashion-mnist), not %s", dataset)
		}
	}
	settings, err := models.PaperSettings(dataset)
	if err != nil {
		return nil, err
	}
	spec, err := models.SpecFor(kind, dataset, split.Train.D(), split.Train.K())
	if err != nil {
		return nil, err
	}
	opts := models.TrainOptions{Epochs: settings.Epochs, BatchSize: settings.BatchSize, LearningRate: settings.LearningRate, Seed: cfg.seed}
	if cfg.epochs > 0 {
		opts.Epochs = cfg.epochs
	}
	if cfg.batchSize > 0 {
		opts.BatchSize = cfg.batchSize
	}
	if cfg.lr > 0 {
		opts.LearningRate = cfg.lr
	}
	m, err := models.New(b, spec, cfg.seed)
	if err != nil {
		return nil, err
	}
	bar := progress.New(stderr, opts.Epochs, fmt.Sprintf("%s %s", dataset, kind), "epochs")
	opts.OnEpoch = func(s models.EpochStats) {
		bar.Describe(fmt.Sprintf("%s %s loss %.4f", dataset, kind, s.Loss))
		bar.Add(1)
	}
	var hist *models.History
	if kind == models.KindJEM || kind == models.KindJEMEnsemble {
		hist, err = trainJEM(ctx, b, m, split, dataset, opts, cfg.jemPaperCode)
	} else {
		hist, err = models.Train(ctx, b, m, split.Train, opts)
	}
	bar.Finish()
	if err != nil {
		return nil, err
	}
	scores, err := models.Evaluate(b, m, split.Test)
	if err != nil {
		return nil, err
	}
	return &trained{dataset: dataset, kind: kind, model: m, scores: scores, epochs: opts.Epochs,
		trainN: split.Train.N(), testN: split.Test.N(), duration: hist.Duration, skipped: hist.Skipped}, nil
}

func runTrain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", "train --data NAME --model mlp|mlp-ensemble|jem|jem-ensemble|lenet [flags]", stderr)
	dataset := fs.String("data", "", "data set (see 'eccco data list')")
	kindName := fs.String("model", "mlp", "model: mlp, mlp-ensemble, jem, jem-ensemble or lenet")
	out := fs.String("out", "", "directory to save the model in (default runs/models/DATA/MODEL; 'none' to skip)")
	var cfg trainConfig
	cfg.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("train: unexpected arguments %v", fs.Args())
	}
	if *dataset == "" {
		return fmt.Errorf("train: --data is required (one of %v)", data.Names())
	}
	if _, err := data.Lookup(*dataset); err != nil {
		return err
	}
	kind, err := models.ParseKind(*kindName)
	if err != nil {
		return err
	}
	b, err := backend.New()
	if err != nil {
		return err
	}
	split, err := data.Load(*dataset, data.Options{Dir: cfg.dataDir, Seed: cfg.seed})
	if err != nil {
		return err
	}
	res, err := trainAndScore(ctx, b, split, *dataset, kind, cfg, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s on %s: %d training rows, %d epochs, %.1f s on %s\n", kind.Title(), *dataset, res.trainN, res.epochs, res.duration.Seconds(), b.Name())
	if res.skipped > 0 {
		fmt.Fprintf(stdout, "%d minibatches skipped because their loss was not finite\n", res.skipped)
	}
	fmt.Fprintf(stdout, "test (%d rows): accuracy %.4f  precision %.4f  F1 %.4f\n", res.testN, res.scores.Accuracy, res.scores.Precision, res.scores.F1)
	if p, ok := models.Published(*dataset, kind); ok {
		fmt.Fprintf(stdout, "paper:            accuracy %.2f    precision %.2f    F1 %.2f\n", p.Accuracy, p.Precision, p.F1)
	}
	if *out == "none" {
		return nil
	}
	if *out == "" {
		*out = filepath.Join("runs", "models", *dataset, string(kind))
	}
	if err := res.model.Save(*out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved to %s\n", *out)
	return nil
}

// trainJEM trains m (a single MLP or an ensemble) as a Joint Energy Model with the paper's EBM settings for
// the data set (table_ebm_params.tex) and the authors' SGLD (φ = 2, σ = 0.01, gradients clipped to ±0.01);
// epochs, batch size, learning rate and seed come from opts (the paper's unless overridden by flags).
func trainJEM(ctx context.Context, b compute.Backend, m *models.Model, split *data.Split, dataset string, opts models.TrainOptions, paperCode bool) (*models.History, error) {
	jo, err := energy.PaperJEMOptions(dataset, split.Train, opts.Seed)
	if err != nil {
		return nil, err
	}
	jo.Epochs, jo.BatchSize, jo.LearningRate, jo.OnEpoch = opts.Epochs, opts.BatchSize, opts.LearningRate, opts.OnEpoch
	if paperCode {
		jo = jo.WithPaperCode()
	}
	return energy.TrainJEM(ctx, b, m, split.Train, jo)
}
