package benchmark_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// PaperProtocol is the paper's benchmark of one data set: four models, every generator, 50 runs of 100
// factuals, seed 42. Its work is split into units (model × generator × run), each written on its own so
// that a benchmark resumes where it stopped.
func ExamplePaperProtocol() {
	p, err := benchmark.PaperProtocol("moons")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("models:", p.Models)
	var names []string
	for _, g := range p.Generators {
		names = append(names, g.Name)
	}
	fmt.Println("generators:", strings.Join(names, ", "))
	fmt.Println("runs", p.Runs, "× factuals", p.Factuals, "seed", p.Seed, "mode", p.Mode)
	units := p.Units()
	fmt.Println(len(units), "units, the first", units[0], "and the last", units[len(units)-1])
	// Output:
	// models: [mlp mlp-ensemble jem jem-ensemble]
	// generators: ECCCo, ECCCo+, ECCCo (no CP), ECCCo (no EBM), ECCCo-L1, ECCCo-L1 (no CP), ECCCo-L1 (no EBM), REVISE, Schut, Wachter
	// runs 50 × factuals 100 seed 42 mode paper
	// 2000 units, the first moons/mlp/ECCCo/run-001 and the last moons/jem-ensemble/Wachter/run-050
}

// A cluster's job array splits the units with Shard: ParseShard reads "i/N" and Select deals whole
// (model, run) groups round-robin, so that each group's preparation happens on one machine only.
func ExampleShard_Select() {
	p := benchmark.Protocol{
		Dataset:    "moons",
		Models:     []models.Kind{models.KindMLP, models.KindJEM},
		Generators: []experiment.Generator{{Name: "ECCCo"}, {Name: "Wachter"}},
		Runs:       2,
		Factuals:   100,
		Seed:       42,
	}
	if err := p.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range []string{"1/2", "2/2"} {
		shard, err := benchmark.ParseShard(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("shard", s)
		for _, u := range shard.Select(p.Units()) {
			fmt.Println(" ", u)
		}
	}
	_, err := benchmark.ParseShard("3/2")
	fmt.Println(err != nil)
	// Output:
	// shard 1/2
	//   moons/mlp/ECCCo/run-001
	//   moons/mlp/Wachter/run-001
	//   moons/mlp/ECCCo/run-002
	//   moons/mlp/Wachter/run-002
	// shard 2/2
	//   moons/jem/ECCCo/run-001
	//   moons/jem/Wachter/run-001
	//   moons/jem/ECCCo/run-002
	//   moons/jem/Wachter/run-002
	// true
}

// A Runner runs protocols unit by unit, writing every finished unit under Out and skipping units already
// there, and Collect gathers them into Out/results.csv (one row per counterfactual). Here one run of five
// factuals for the moons MLP, trained for 3 epochs instead of the paper's 500; the second Run finds every
// unit done. report.WriteTableSet turns the rows into the paper's tables.
func ExampleRunner() {
	tmp, err := os.MkdirTemp("", "eccco-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)

	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	gens, _ := experiment.ParseGenerators("Wachter", "ECCCo")
	p := benchmark.Protocol{Dataset: "moons", Models: []models.Kind{models.KindMLP}, Generators: gens, Runs: 1, Factuals: 5, Seed: 42}
	r := &benchmark.Runner{
		Backend:   b,
		ModelsDir: filepath.Join(tmp, "models"),
		Out:       filepath.Join(tmp, "out"),
		Training:  experiment.Training{Epochs: 3},
		OnUnit: func(done, total int, u benchmark.Unit, skipped bool) {
			fmt.Printf("%d/%d %s skipped %v\n", done, total, u, skipped)
		},
	}
	ctx := context.Background()
	for range 2 {
		if err := r.Run(ctx, p, benchmark.Shard{I: 1, N: 1}); err != nil {
			fmt.Println(err)
			return
		}
	}
	rows, err := r.Collect(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(rows), "rows; the first:", rows[0].Dataset, rows[0].Model, rows[0].Generator, "run", rows[0].Run)

	// Output:
	// 1/2 moons/mlp/Wachter/run-001 skipped false
	// 2/2 moons/mlp/ECCCo/run-001 skipped false
	// 1/2 moons/mlp/Wachter/run-001 skipped true
	// 2/2 moons/mlp/ECCCo/run-001 skipped true
	// 10 rows; the first: moons mlp Wachter run 1
}

// Two data sets at a time: RunAll gives each protocol its own lane from its first unit to its last (image
// sets first), and the results are the bytes of running them one after the other. On a small machine one
// data set leaves cores idle, and two lanes finish in about the CPU time over two. (Compiled, not run: it
// runs the whole protocol of three data sets.)
func ExampleRunner_RunAll() {
	b, err := backend.Shared()
	if err != nil {
		fmt.Println(err)
		return
	}
	var ps []benchmark.Protocol
	for _, name := range []string{"moons", "circles", "german-credit"} {
		p, err := benchmark.PaperProtocol(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		p.Mode = experiment.AuthorsCode
		ps = append(ps, p)
	}
	r := &benchmark.Runner{Backend: b, Out: filepath.Join("runs", "bench"), Log: os.Stderr}
	if err := r.RunAll(context.Background(), ps, benchmark.Shard{I: 1, N: 1}, benchmark.Lanes{Jobs: 2}); err != nil {
		fmt.Println(err)
		return
	}
	rows, err := r.Collect(ps...)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(rows), "counterfactuals")
}
