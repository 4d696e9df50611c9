// Command gosearch times eccco-go's batched counterfactual search for the speed benchmark of bench/. It
// runs counterfactual.Search with Wachter's generator, side by side with the peers of bench/README.md.
//
// The workload is the same in every implementation of the benchmark: Wachter's objective (cross-entropy
// towards the target class + λ·‖x′ − x‖₁, λ = 0.1), plain gradient descent with step 0.05 (eccco-go's
// optimiser), x′ clamped to the domain bounds after every step, exactly 100 steps (Rule MaxIterations: no
// early stopping), B factuals searched at once, on two MLPs with fixed random weights: the paper's MNIST MLP
// (784-32-10, ReLU) and its California Housing MLP (8-32-32-32-2, ReLU). The factuals are random (seeded)
// points of the domain, each with target (predicted class + 1) mod K: the cost of a step does not depend on
// the values.
//
// counterfactual.Search builds and compiles its graphs on every call. To report the per-step cost without
// that one-time setup, each repeat times one search of 1 step (T1) and one of 100 steps (T100):
//
//	steps-only µs per CF-iteration = (T100 − T1) / (99 · B)
//	whole-call µs per CF-iteration = T100 / (100 · B)      (setup included, as a caller of Search pays it)
//	setup ms                       = T1 − (T100 − T1)/99   (graph building and compilation, transfers)
//
// With -searcher the graphs are compiled once, by a counterfactual.Searcher (what a caller that searches
// repeatedly with one model and generator uses): its first two searches are the warm-up (the first runs a
// graph call per step, the second compiles the chunks of several steps that later searches run), and each
// repeat times one 100-step search:
//
//	steps-only = whole-call µs per CF-iteration = T100 / (100 · B)
//	setup ms                                    = first two searches − 2 · median T100
//
// Each figure is the median over the repeats. One line per (arch, B), tab-separated:
//
//	impl  arch  B  steps_us  whole_us  setup_ms  repeats  note
//
// The backend is the one GOMLX_BACKEND names (pure Go by default; xla:cpu needs a binary built with -tags
// xla). Usage: gosearch [-arch mnist,california] [-b 100,1000] [-k 3] [-searcher] [-impl NAME]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// Steps is the number of gradient steps of every search, λ the L1 weight and η the step size.
const (
	Steps    = 100
	Lambda   = 0.1
	StepSize = 0.05
)

// arch is one of the benchmark's two models, with its data set's settings (catalogue.Dataset.ModelSpec) and domain.
type arch struct {
	name, dataset string
	d, k          int
	lo, hi        float32 // domain bounds of every feature (x′ is clamped to them)
}

var archs = []arch{
	{name: "mnist", dataset: "mnist", d: 784, k: 10, lo: -1, hi: 1},
	{name: "california", dataset: "california-housing", d: 8, k: 2, lo: -4, hi: 4},
}

func main() {
	archFlag := flag.String("arch", "mnist,california", "architectures, comma-separated: mnist (784-32-10), california (8-32-32-32-2)")
	bFlag := flag.String("b", "100,1000", "batch sizes B, comma-separated")
	k := flag.Int("k", 3, "repeats per (arch, B); figures are their medians")
	searcher := flag.Bool("searcher", false, "compile once with a counterfactual.Searcher instead of calling Search")
	impl := flag.String("impl", "", "name printed in the first column (default: eccco-go/<backend config>[+Searcher])")
	clockFlag := flag.String("clock", "wall", "what a search's time is: wall (elapsed) or cpu (the process's user + system CPU time, all threads; steadier than wall time on a machine other jobs keep busy, but it counts threads that spin while they wait)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof reads it)")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.OpenFile(*cpuProfile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosearch: -cpuprofile:", err)
			os.Exit(2)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "gosearch: -cpuprofile:", err)
			os.Exit(2)
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	switch *clockFlag {
	case "wall":
	case "cpu":
		clock = cpuTime
	default:
		fmt.Fprintf(os.Stderr, "gosearch: -clock %q: want wall or cpu\n", *clockFlag)
		os.Exit(2)
	}
	if err := run(*archFlag, *bFlag, *k, *searcher, *impl); err != nil {
		fmt.Fprintln(os.Stderr, "gosearch:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(archList, bList string, k int, searcher bool, impl string) error {
	if k < 1 {
		return fmt.Errorf("-k %d: need at least one repeat", k)
	}
	var batches []int
	for _, s := range strings.Split(bList, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || b < 1 {
			return fmt.Errorf("-b: bad batch size %q", s)
		}
		batches = append(batches, b)
	}
	bk, err := backend.New()
	if err != nil {
		return err
	}
	defer bk.Finalize()
	if impl == "" {
		impl = "eccco-go/" + backend.Config()
		if searcher {
			impl += "+Searcher"
		}
	}
	for _, name := range strings.Split(archList, ",") {
		i := slices.IndexFunc(archs, func(a arch) bool { return a.name == strings.TrimSpace(name) })
		if i < 0 {
			return fmt.Errorf("-arch: unknown architecture %q (mnist, california)", name)
		}
		a := archs[i]
		row, err := catalogue.LookupDataset(a.dataset)
		if err != nil {
			return err
		}
		spec, err := row.ModelSpec(models.KindMLP, a.d, a.k)
		if err != nil {
			return err
		}
		m, err := models.New(bk, spec, 1)
		if err != nil {
			return err
		}
		for _, b := range batches {
			measure := measureSearch
			if searcher {
				measure = measureSearcher
			}
			if err := measure(bk, m, a, b, k, impl); err != nil {
				return fmt.Errorf("%s B=%d: %w", a.name, b, err)
			}
		}
	}
	return nil
}

// request returns the benchmark's search of b random factuals for architecture a, and its generator.
func request(bk compute.Backend, m models.Classifier, a arch, b int) (counterfactual.Request, *counterfactual.Generator, error) {
	rng := rand.New(rand.NewPCG(uint64(b), uint64(a.d)))
	req := counterfactual.Request{Rule: counterfactual.MaxIterations, MaxIterations: Steps,
		Factuals: make([]float32, b*a.d), Targets: make([]int, b), Lower: make([]float32, a.d), Upper: make([]float32, a.d)}
	for j := range a.d {
		req.Lower[j], req.Upper[j] = a.lo, a.hi
	}
	for i := range req.Factuals {
		req.Factuals[i] = a.lo + (a.hi-a.lo)*rng.Float32()
	}
	pred, err := models.Predict(bk, m, req.Factuals) // Search refuses a target the factual already has
	if err != nil {
		return req, nil, err
	}
	for i := range req.Targets {
		req.Targets[i] = (pred[i] + 1) % a.k
	}
	g, err := catalogue.ByName(string(catalogue.Wachter), counterfactual.Params{StepSize: StepSize, Cost: Lambda}, counterfactual.Ingredients{})
	return req, g, err
}

// clock is what timed measures: elapsed time since the program started (the default) or, with -clock cpu,
// the process's CPU time.
var clock = func() (time.Duration, error) { return time.Since(started), nil }

var started = time.Now()

// timed runs search with req's MaxIterations set to steps and checks that every row took them all.
func timed(search func(context.Context, counterfactual.Request) (*counterfactual.Result, error), req counterfactual.Request, steps int) (time.Duration, error) {
	req.MaxIterations = steps
	t0, err := clock()
	if err != nil {
		return 0, err
	}
	res, err := search(context.Background(), req)
	t1, cerr := clock()
	el := t1 - t0
	if err == nil {
		err = cerr
	}
	if err == nil && slices.ContainsFunc(res.Iterations, func(n int) bool { return n != steps }) {
		err = fmt.Errorf("a search stopped before %d steps", steps)
	}
	return el, err
}

// measureSearch times k repeats of a 1-step and a 100-step counterfactual.Search of b factuals and prints
// their medians.
func measureSearch(bk compute.Backend, m models.Classifier, a arch, b, k int, impl string) error {
	req, g, err := request(bk, m, a, b)
	if err != nil {
		return err
	}
	search := func(ctx context.Context, r counterfactual.Request) (*counterfactual.Result, error) {
		return counterfactual.Search(ctx, bk, m, g, r)
	}
	if _, err := timed(search, req, Steps); err != nil { // warm-up: first use of the backend, caches, allocator
		return err
	}
	var steps, whole, setup []float64
	for range k {
		t1, err := timed(search, req, 1)
		if err != nil {
			return err
		}
		tn, err := timed(search, req, Steps)
		if err != nil {
			return err
		}
		perStep := (tn - t1).Seconds() / float64(Steps-1)
		steps = append(steps, perStep/float64(b)*1e6)
		whole = append(whole, tn.Seconds()/float64(Steps*b)*1e6)
		setup = append(setup, (t1.Seconds()-perStep)*1e3)
	}
	fmt.Printf("%s\t%s\t%d\t%.3f\t%.3f\t%.2f\t%d\t%s\n", impl, a.name, b, median(steps), median(whole), median(setup), k,
		"batched counterfactual.Search (graphs compiled in every call; steps-only figure from 100- and 1-step searches)")
	return nil
}

// measureSearcher times k 100-step searches of b factuals by one counterfactual.Searcher, after the two
// searches that compile its graphs, and prints their medians (setup: those two less two searches).
func measureSearcher(bk compute.Backend, m models.Classifier, a arch, b, k int, impl string) error {
	req, g, err := request(bk, m, a, b)
	if err != nil {
		return err
	}
	s, err := counterfactual.NewSearcher(bk, m, g)
	if err != nil {
		return err
	}
	defer s.Close()
	// A Searcher's first search of a request runs one graph call per step (compiling the step graph) and its
	// second compiles the chunks of several steps that every later search runs: both are the warm-up.
	var first time.Duration
	for range 2 {
		t, err := timed(s.Search, req, Steps)
		if err != nil {
			return err
		}
		first += t
	}
	var per []float64
	for range k {
		tn, err := timed(s.Search, req, Steps)
		if err != nil {
			return err
		}
		per = append(per, tn.Seconds()/float64(Steps*b)*1e6)
	}
	mu := median(per)
	fmt.Printf("%s\t%s\t%d\t%.3f\t%.3f\t%.2f\t%d\t%s\n", impl, a.name, b, mu, mu, first.Seconds()*1e3-2*mu*float64(Steps*b)/1e3, k,
		"batched counterfactual.Searcher (graphs compiled once, in its first two searches)")
	return nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
