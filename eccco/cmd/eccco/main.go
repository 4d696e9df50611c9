// Command eccco trains, explains and benchmarks models for the paper "Faithful Model Explanations through
// Energy-Constrained Conformal Counterfactuals" (Altmeyer et al., AAAI-24).
//
//	eccco data list                          # the eight data sets, whether each is present, source, licence
//	eccco data fetch NAME|all [--from DIR]   # download (sha256-verified) or copy from a local mirror
//	eccco train --data D --model M           # train a model with the paper's settings, score it, save it
//	eccco vae --data D [--epochs N]          # train REVISE's VAE for a data set, report its reconstruction error, save it
//	eccco perf [--data all] [--models ...]   # train and score models on every available data set, compare with the paper
//	eccco sample --data D --model M --class K # SGLD samples of class K from a saved model
//	eccco bench --data D|all [--runs N] [--shard i/N] [--mode M] # the paper's benchmark and tables
//	eccco tables --in DIR                    # the tables (and comparison with the paper) from results
//	eccco agree --in DIR,DIR                 # two benchmarks counterfactual by counterfactual (two backends)
//	eccco figures [--only NAME] [--out DIR]  # the paper's figures as PNG, SVG and PDF
//	eccco report [--results DIR] [--quick]   # the reproduction report (LaTeX, Markdown, PDF) beside the paper's numbers
//	eccco explain --data D --model M --generator G [--index i] [--target t] [--n N] # counterfactuals
//	eccco backend                            # which GoMLX backend runs, which are compiled in
//
// Run `eccco COMMAND -h` for a command's flags. The GoMLX backend is the embedded pure-Go one unless
// GOMLX_BACKEND says otherwise; data live in ECCCO_DATA_DIR (default: data/cache inside the repository).
// ECCCO_CPUPROFILE=FILE writes a CPU profile of the command to FILE (go tool pprof reads it).
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
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"data", "list or fetch the data sets (data list | data fetch NAME|all)", runData},
		{"train", "train a model with the paper's settings, print its test scores and save it", runTrain},
		{"vae", "train the paper's VAE for a data set (REVISE's latent space), report its reconstruction error, save it", runVAE},
		{"perf", "train and score models on every available data set against the paper's Table 5", runPerf},
		{"explain", "find counterfactual explanations for test rows with any generator of the paper", runExplain},
		{"bench", "run the paper's benchmark (resumable, shardable) and write the result tables", runBench},
		{"tables", "aggregate benchmark results into the paper's tables and compare with the published ones", runTables},
		{"modes", "set benchmark results of two modes side by side and say where ECCCo's claims hold", runModes},
		{"agree", "compare two benchmarks counterfactual by counterfactual (e.g. one protocol on two backends)", runAgree},
		{"figures", "make the paper's figures (PNG, SVG, PDF), training or loading the models they need", runFigures},
		{"report", "write the reproduction report (LaTeX, Markdown, PDF) from results, model performance and figures", runReport},
		{"sample", "draw SGLD samples of a class from a saved model (CSV, and a PNG grid for images)", runSample},
		{"backend", "show the GoMLX backend in use and the ones compiled in", runBackend},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return errors.New("no command given")
		}
		return nil
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
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'eccco COMMAND -h' for the flags of a command.")
}

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("eccco "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: eccco %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

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
