package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// customFlags are the flags of explain-onnx and score on a user's own CSV, schema and ONNX model.
type customFlags struct {
	model, data, schema, target, out string
	seed                             uint64
	// maxIter is --set max-iter (explain; 0: counterfactual.DefaultMaxIterations).
	maxIter int
	// stop is --set stop (explain; nil: the paper's generator conditions).
	stop *counterfactual.Rule
}

func (c *customFlags) register(fs interface {
	StringVar(*string, string, string, string)
	Uint64Var(*uint64, string, uint64, string)
}) {
	fs.StringVar(&c.model, "model", "", "the classifier: an ONNX file (one [B, D] input, one [B, K] output: logits, softmax or a binary logit)")
	fs.StringVar(&c.data, "data", "", "the data: a CSV file with a header line")
	fs.StringVar(&c.schema, "schema", "", "the CSV's schema (JSON: target, features with type, categories or levels, min, max, mutable; or for images \"image\": {height, width, prefix, min, max}, which takes the paper's MNIST settings)")
	fs.StringVar(&c.target, "target", "other", "target class: its name, its index, or 'other' (the most probable class other than the predicted one)")
	fs.StringVar(&c.out, "out", "", "write the counterfactuals to this CSV file (refused if it exists); default or -: standard output")
	fs.Uint64Var(&c.seed, "seed", experiment.DefaultSeed, "seed of the calibration split, the SGLD samples and the VAE (any number, 0 included)")
}

func (c *customFlags) open(stderr io.Writer) (*experiment.Custom, int, error) {
	if c.model == "" || c.data == "" || c.schema == "" {
		return nil, 0, fmt.Errorf("%w: --model, --data and --schema are all needed", experiment.ErrInvalid)
	}
	if c.out == "-" { // standard output, as the convention has it (not a file named "-")
		c.out = ""
	}
	if err := checkNewFile("--out", c.out); err != nil {
		return nil, 0, err
	}
	e, err := experiment.OpenCustomFiles(c.model, c.data, c.schema, experiment.CustomOptions{Seed: c.seed, SeedGiven: true, MaxIterations: c.maxIter, Stop: c.stop,
		Logf: func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }})
	if err != nil {
		return nil, 0, err
	}
	t, err := e.ParseTarget(c.target)
	return e, t, err
}

// write writes the counterfactuals' CSV to --out (atomically) or to stdout, and the summary to stderr.
func (c *customFlags) write(e *experiment.Custom, xs []*experiment.CustomExplanation, stdout, stderr io.Writer) error {
	fill := func(w io.Writer) error {
		return experiment.WriteCustomCSV(w, e.Table.Schema, e.Table.Data.ClassNames, xs...)
	}
	fmt.Fprint(stderr, experiment.CustomSummaryTable(xs))
	if len(xs) > 0 && xs[0].Iterations != nil { // explain's: which rows did not reach their target, and what to raise
		fmt.Fprint(stderr, experiment.CustomUnreached(e.Table, e.MaxIterations(), xs))
	}
	if c.out == "" {
		return fill(stdout)
	}
	if err := atomicfile.WriteNew(c.out, 0o644, fill); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("--out %s exists now: it appeared while this ran (another run's result?) and is left as it was; nothing was written, choose another path", c.out)
		}
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(stderr, "wrote %s\n", c.out)
	return nil
}

// checkNewFile refuses, before anything is computed, a path for a new file (flag's value; "" is none)
// that exists, that names a folder (a trailing separator) or whose parent is not a folder.
func checkNewFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
		return fmt.Errorf("%w: %s %s names a folder; name the file, e.g. %s", experiment.ErrInvalid, flag, path, filepath.Join(path, "counterfactuals.csv"))
	}
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("%w: %s %s is a folder; name a file in it, e.g. %s", experiment.ErrInvalid, flag, path, filepath.Join(path, "counterfactuals.csv"))
		}
		return fmt.Errorf("%w: %s %s exists; choose another path (nothing is overwritten)", experiment.ErrInvalid, flag, path)
	} else if _, lerr := os.Lstat(path); lerr == nil {
		return fmt.Errorf("%w: %s %s exists (a link); choose another path (nothing is overwritten)", experiment.ErrInvalid, flag, path)
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%w: %s %s: %s is a file, not a folder", experiment.ErrInvalid, flag, path, d)
			}
			// The nearest existing folder must take a new file (or the folders made below it), now
			// rather than after the computation.
			f, err := os.CreateTemp(d, atomicfile.TempPrefix+"probe-*")
			if err != nil {
				return fmt.Errorf("%w: %s %s: cannot make a file in %s (%v)", experiment.ErrInvalid, flag, path, d, errors.Unwrap(err))
			}
			_ = f.Close()
			_ = os.Remove(f.Name())
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return nil
}

// hasSchemaFlag reports whether explain's arguments name a schema: explain-onnx's former spelling.
func hasSchemaFlag(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		return strings.HasPrefix(a, "-") && name == "schema"
	})
}

// runExplainONNX is explain-onnx: counterfactuals of rows of a user's own CSV for their own ONNX model.
// Its name says what it explains, beside explain (the paper's data sets and models) and score (anyone's
// counterfactuals of the same inputs); 'eccco explain --schema' was its former spelling.
func runExplainONNX(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain-onnx", "explain-onnx --model PATH.onnx --data PATH.csv --schema PATH.json --generator NAME[,NAME…] [--rows SPEC] [--target CLASS|other] [--out PATH.csv]\n\nYour own ONNX model and CSV; the paper's data sets and models: eccco explain.", stderr)
	var cf customFlags
	cf.register(fs)
	genNames := fs.String("generator", string(catalogue.ECCCo), "generator(s), comma-separated: "+strings.Join(catalogue.Strings(), ", "))
	rows := fs.String("rows", "0-9", "the CSV's data rows to explain (0-based): comma-separated indices and A-B ranges")
	var set setFlag
	fs.Var(&set, "set", "override a setting, key=value (repeatable; comma lists allowed; a key given twice is an error): "+strings.Join(experiment.SetKeys(experiment.SetSearch, experiment.SetGenerator), ", ")+" ('eccco help set' says what each does)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("explain-onnx: unexpected arguments %v", fs.Args())
	}
	gens, err := experiment.ParseGenerators(splitList(*genNames)...)
	if err != nil {
		return fmt.Errorf("explain-onnx: --generator: %w", err)
	}
	ov, err := experiment.ParseSet(set, experiment.SetSearch, experiment.SetGenerator)
	if err != nil {
		return fmt.Errorf("explain-onnx: --set: %w", err)
	}
	if gens, err = experiment.WithOverrides(gens, ov.Generator); err != nil {
		return fmt.Errorf("explain-onnx: --set: %w", err)
	}
	cf.maxIter, cf.stop = ov.MaxIterations, ov.Stop
	e, target, err := cf.open(stderr)
	if err != nil {
		return fmt.Errorf("explain-onnx: %w", err)
	}
	idx, err := data.ParseRows(*rows, e.Table.Data.N())
	if err != nil {
		return fmt.Errorf("explain-onnx: --rows: %w", err)
	}
	xs, err := e.Explain(ctx, idx, target, gens...)
	if err != nil {
		return fmt.Errorf("explain-onnx: %w", err)
	}
	if err := cf.write(e, xs, stdout, stderr); err != nil {
		return fmt.Errorf("explain-onnx: %w", err)
	}
	return nil
}

func runScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", "score --model PATH.onnx --data PATH.csv --schema PATH.json --counterfactuals CF.csv [--target CLASS|other] [--out PATH.csv]", stderr)
	var cf customFlags
	cf.register(fs)
	cfs := fs.String("counterfactuals", "", "counterfactuals made by any tool: a CSV with the schema's feature columns (data units, categories by name), a column 'row' (the factual's 0-based data row) and optionally 'target' (each one's target class, which --target then must not be given; explain writes it)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("score: unexpected arguments %v", fs.Args())
	}
	if *cfs == "" {
		return fmt.Errorf("score: %w: --counterfactuals is needed", experiment.ErrInvalid)
	}
	targetGiven := false
	fs.Visit(func(f *flag.Flag) { targetGiven = targetGiven || f.Name == "target" })
	e, target, err := cf.open(stderr)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	rr, err := data.ReadRowsColumn(*cfs, e.Table.Schema, "target")
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	var sc *experiment.CustomExplanation
	if rr.Column == nil {
		sc, err = e.Score(ctx, rr.Rows, rr.X, target)
	} else {
		// The file's own targets (as explain writes them), checked here to name their lines.
		if targetGiven {
			return fmt.Errorf("score: %w: --counterfactuals %s has a column \"target\" and --target is given too; drop --target to score towards the file's targets, or drop the column", experiment.ErrInvalid, *cfs)
		}
		targets := make([]int, len(rr.Rows))
		pred, perr := e.Predicted(rr.Rows)
		if perr != nil {
			return fmt.Errorf("score: %w", perr)
		}
		classes := e.Table.Data.ClassNames
		for i, v := range rr.Column {
			t, perr := e.ParseTarget(v)
			if perr == nil && t < 0 {
				perr = fmt.Errorf("%w: %q is not a class", experiment.ErrInvalid, v)
			}
			if perr != nil {
				return fmt.Errorf("score: --counterfactuals %s, line %d, column \"target\": %w", *cfs, rr.Lines[i], perr)
			}
			if pred[i] == t {
				return fmt.Errorf("score: %w: --counterfactuals %s, line %d: the target %q is the class the factual (data row %d) is already predicted as; a counterfactual is towards another class",
					experiment.ErrInvalid, *cfs, rr.Lines[i], classes[t], rr.Rows[i])
			}
			targets[i] = t
		}
		sc, err = e.ScoreTargets(ctx, rr.Rows, rr.X, targets)
	}
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	if err := cf.write(e, []*experiment.CustomExplanation{sc}, stdout, stderr); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	return nil
}
