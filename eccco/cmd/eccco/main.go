// Command eccco trains, explains and benchmarks the models of the ECCCo paper (AAAI-24).
// The paper is "Faithful Model Explanations through Energy-Constrained Conformal Counterfactuals".
//
// `eccco help` prints the command reference: what each command does, the flags every experiment command
// shares (--mode, --seed, --models-dir, --set), the --set keys and the environment.
// `eccco COMMAND -h` lists a command's flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/eccco-go/eccco-go/eccco/experiment"
)

type command struct {
	name, summary string
	// doc is the command's paragraph in `eccco help`.
	doc string
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"data", "list or fetch the data sets (data list | data fetch NAME|all)",
			"'eccco data list' shows the eight data sets, whether each is present in the data directory ($ECCCO_DATA_DIR, default data/cache), its source and licence. 'eccco data fetch NAME|all' downloads them (sha256-verified), or copies them from a local mirror with --from DIR.", runData},
		{"train", "train a model with the paper's settings, print its test scores and save it",
			"'eccco train --data D --model KIND' trains one model with the paper's settings (or the authors' code's, --mode authors-code), prints its test accuracy, precision and F1 beside the paper's Table 5 and saves it where explain, sample and bench look (MODELS-DIR/MODE/seed-SEED/DATA/KIND), or in --out DIR. A model already saved there is replaced only with --replace.", runTrain},
		{"vae", "train the paper's VAE for a data set (REVISE's latent space), report its reconstruction error, save it",
			"'eccco vae --data D' loads or trains REVISE's variational autoencoder for a data set and reports its test reconstruction error beside that of predicting the training mean; --out DIR trains a fresh one there, --replace retrains the saved one.", runVAE},
		{"perf", "train and score models on every available data set against the paper's Table 5",
			"'eccco perf [--data all] [--models mlp,jem,…]' loads or trains the models of every listed data set and writes their test scores beside the paper's (perf.csv, perf.md, perf.tex in --out); --strict fails where a model is more than 0.03 below the paper's accuracy.", runPerf},
		{"explain", "find counterfactual explanations for test rows of the paper's data sets and models",
			"'eccco explain --data D --model KIND|DIR --generator G[,G…]' explains the factuals of a run (the benchmark's rows and targets for the same seed) or one test row (--index, --target) of a paper's data set for one of its models with any of the paper's generators and prints the counterfactual, its metrics and what changed; --n N explains N factuals in one batch and prints a summary table; --png writes a factual | counterfactual grid for images. Your own ONNX model and CSV: 'eccco explain-onnx'.", runExplain},
		{"explain-onnx", "find counterfactual explanations for rows of your own CSV and ONNX model",
			"'eccco explain-onnx --model M.onnx --data D.csv --schema S.json --generator G[,G…] [--rows SPEC] [--target CLASS|other] [--out CF.csv]' explains rows of your own CSV for your own ONNX model with any of the paper's generators (categorical, ordinal, bounded and immutable features kept valid) and writes the counterfactuals in the CSV's columns and units with their metrics. The paper's data sets and models: 'eccco explain'. ('eccco explain --schema …', its former spelling, still works for now and says so.)", runExplainONNX},
		{"score", "score anyone's counterfactuals of an ONNX model on a CSV: the paper's metrics and the schema's constraints",
			"'eccco score --model M.onnx --data D.csv --schema S.json --counterfactuals CF.csv' computes the paper's six metrics and the schema's constraint violations of counterfactuals made by any tool (a CSV in the data's columns and units with a column 'row', the factual's data row), as 'eccco explain-onnx' computes them for its own.", runScore},
		{"bench", "run the paper's benchmark (resumable, shardable) and write the result tables",
			"'eccco bench --data D|all' runs the paper's benchmark protocol: every model, generator and run of each data set, one unit file per (model, generator, run) under --out/units, so an interrupted run resumes; --shard i/N runs a part and --merge joins the parts. It ends with results.csv, the tables and the comparison with the published numbers (tables/).", runBench},
		{"tables", "aggregate benchmark results into the paper's tables and compare with the published ones",
			"'eccco tables --in DIR' writes the paper's tables and the comparison with the published numbers from a benchmark directory's results.csv; --keep-cells adds data sets computed earlier, --models-dir bounds the uncertainty by each model's calibration.", runTables},
		{"modes", "set benchmark results of two modes side by side and say where ECCCo's claims hold",
			"'eccco modes --in DIR,DIR' sets the results of two or more benchmark directories (e.g. the paper's equations and the authors' code) side by side with the published numbers and says in which of them ECCCo's claims hold.", runModes},
		{"agree", "compare two benchmarks counterfactual by counterfactual (e.g. one protocol on two backends)",
			"'eccco agree --in DIR,DIR' compares two benchmarks counterfactual by counterfactual, e.g. the same protocol on two backends, and counts the values that agree within --tol.", runAgree},
		{"figures", "make the paper's figures (PNG, SVG, PDF), training or loading the models they need",
			"'eccco figures [--only NAME,…]' makes the paper's figures as PNG, SVG and PDF in --out, training or loading the models they need; 'eccco figures list' names them, --results DIR adds the charts of a benchmark's metrics.", runFigures},
		{"report", "write the reproduction report (LaTeX, Markdown, PDF) from results, model performance and figures",
			"'eccco report' writes the reproduction report (LaTeX sources, Markdown and, with pdflatex, a PDF) from benchmark results, model performance and figures, beside the paper's numbers.", runReport},
		{"sample", "draw SGLD samples of a class from a saved model (CSV, and a PNG grid for images)",
			"'eccco sample --data D --model KIND|DIR --class K' draws conditional SGLD samples of one class with the sampler of the mode (override it with --set chains=, keep=, steps=, sgld-step=, noise=, clip=, unbiased=), says how many the model predicts as the class and how far they lie from the training data, and writes them as CSV (and a PNG grid for images).", runSample},
		{"reproduce", "run the whole reproduction (./reproduce.sh): stages, up-to-date checks, lock, times, summary.json", "'eccco reproduce [--quick] [--mode authors-code|paper]' runs the stages data, perf, bench, figures, notebooks and report of ./reproduce.sh (which installs what is missing and calls it), skipping finished work, one run per output folder, and writes each stage's status (ok, skipped or failed, with a note), wall and CPU time and outputs to OUT/summary.json and OUT/stages.tsv.", runReproduce},
		{"backend", "show the GoMLX backend in use and the ones compiled in",
			"'eccco backend' shows the GoMLX backend that runs (GOMLX_BACKEND; the embedded pure-Go one by default) and the ones compiled in.", runBackend},
	}
}

func main() {
	reexecForSIMD()
	// Ctrl-C and kill (SIGTERM) end the work in progress the same way: the context is cancelled, a unit
	// being written is finished and recorded, and the command returns an error.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopProfile, err := startProfile(os.Getenv("ECCCO_CPUPROFILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "eccco:", err)
		os.Exit(1)
	}
	err = run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stopProfile()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "eccco:", err)
		os.Exit(1)
	}
}

// startProfile writes a CPU profile of the whole command to path (ECCCO_CPUPROFILE; empty: none) until
// the returned function is called. An existing file is not overwritten.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("ECCCO_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("ECCCO_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "eccco: ECCCO_CPUPROFILE:", err)
		}
	}, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
	}
	if args[0] == "help" {
		return help(stdout, args[1:])
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: eccco COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'eccco help' for the command reference, 'eccco COMMAND -h' for the flags of a command.")
}

// help prints the command reference (`eccco help`), one command's paragraph (`eccco help COMMAND`) or
// the --set keys (`eccco help set`).
func help(w io.Writer, args []string) error {
	if len(args) > 1 {
		return fmt.Errorf("help: want at most one topic, got %v", args)
	}
	if len(args) == 1 {
		if args[0] == "set" {
			printSetKeys(w)
			return nil
		}
		for _, c := range commands() {
			if c.name == args[0] {
				fmt.Fprintf(w, "eccco %s: %s\n\n%s\n\nRun 'eccco %s -h' for its flags.\n", c.name, c.summary, wrap(c.doc, 100), c.name)
				return nil
			}
		}
		return fmt.Errorf("help: unknown topic %q (a command, or set)", args[0])
	}
	fmt.Fprintln(w, "eccco reproduces \"Faithful Model Explanations through Energy-Constrained Conformal Counterfactuals\"")
	fmt.Fprintln(w, "(Altmeyer et al., AAAI-24): it trains the paper's models, explains them with its generators and")
	fmt.Fprintln(w, "benchmarks the explanations.\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "\n%s\n", wrap(c.doc, 100))
	}
	fmt.Fprint(w, `
Flags of the commands that open an experiment (train, vae, perf, explain, bench, figures, sample):
  --mode paper|authors-code  the paper's equations (default) or what the authors' code did
  --seed N                   seed of everything random (default 42; 0 is refused here, reserved for
                             the default; explain-onnx and score, on your own data, take any seed,
                             0 included)
  --models-dir DIR           saved models, as DIR/MODE/seed-SEED/DATA/KIND (default runs/models)
  --set key=value            override a setting (repeatable, comma lists allowed); 'eccco help set'
                             lists the keys, and each command's -h the keys it reads

Environment: ECCCO_DATA_DIR is the data directory of every command (default data/cache in the
repository); GOMLX_BACKEND chooses the GoMLX backend (default: the embedded pure-Go one);
ECCCO_CPUPROFILE=FILE writes a CPU profile of the command to FILE.
`)
	return nil
}

// printSetKeys lists the keys of --set by group.
func printSetKeys(w io.Writer) {
	fmt.Fprint(w, `Keys of --set key=value (repeatable; comma lists allowed; a key given twice is an error):

training (train, vae, perf, explain, bench, figures, sample; 0 keeps the paper's):
  epochs, lenet-epochs, vae-epochs   training epochs (LeNet-5 and the VAE default to epochs when set)
  batch-size, lr                     minibatch size and Adam's learning rate
unfaithfulness samples (explain, bench):
  sampling=per-run|per-counterfactual   one set per class and run, or one per counterfactual
search (explain, explain-onnx):
  max-iter                           the search's step limit (default 100)
  stop=conditions|all-conditions|valid|max-iter
                                     when a search stops: the paper's generator conditions (default:
                                     p(target) >= 0.5 and every gradient component below 0.01; Schut
                                     at the threshold alone), the same for Schut too (the authors'
                                     runs; the paper form's stop-on-all-conditions), as soon as valid,
                                     or never early (max-iter steps for every row)
generators (explain, explain-onnx, bench; every listed generator is then named 'NAME [k=v …]'):
  `+strings.Join(experiment.ParamKeys(), ", ")+`
sampler (sample; 0 keeps the mode's):
  chains, keep, steps                SGLD chains, lowest-energy samples kept, steps
  sgld-step, noise, clip, unbiased   step φ, noise σ, gradient clipping (0: none), textbook SGLD
the mode's settings (train, vae, perf, explain, figures, sample; bench: authors-models only):
`+indent(wrap(strings.Join(experiment.SettingKeys(), ", "), 96), "  ")+`
  authors-models-dir=DIR             the authors' model files (default: the copies built into eccco);
                                     an error with authors-models=false, or in the paper mode without
                                     authors-models=true
  (package experiment, type Settings, documents each with the authors' file and line)
A switch that is on or off (authors-models, authors-data, …, and unbiased) reads true or false, also
spelt 1, t, T, TRUE, True or 0, f, F, FALSE, False (Go's strconv.ParseBool); each spelling is the same.
`)
}

// indent prefixes every line of text.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) string {
	var sb strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		l := utf8.RuneCountInString(word)
		if n > 0 && n+1+l > width {
			sb.WriteString("\n")
			n = 0
		} else if n > 0 {
			sb.WriteString(" ")
			n++
		}
		sb.WriteString(word)
		n += l
	}
	return sb.String()
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("eccco "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: eccco %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	if flagSetMade != nil {
		flagSetMade(fs)
	}
	return fs
}

// flagSetMade, when set (by the tests), sees every flag set a command makes.
var flagSetMade func(*flag.FlagSet)

// splitList parses a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
