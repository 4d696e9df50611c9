package counterfactual

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// BenchmarkSearch measures counterfactuals per second of Wachter and ECCCo on the paper's MNIST MLP
// (32×1 relu, 784 features) and California Housing MLP (32×3 relu, 8 features), searching B = 1, 100 and
// 1,000 factuals in one batch, each for exactly 100 steps (Rule MaxIterations, so that every batch size
// does the same work per row). "looped" runs the 100 factuals one at a time, as a search loop over rows
// would; "looped-100-searcher" does the same with one Searcher, which compiles its graphs once. The models keep their initial weights: the cost of a step does not depend on them. Data sets
// that are not present are skipped. Run with: go test -run '^$' -bench Search ./eccco/counterfactual/
func BenchmarkSearch(b *testing.B) {
	bk := testBackend(b)
	for _, name := range []string{"mnist", "california-housing"} {
		split, m, p, ok := benchMLP(b, bk, name)
		if !ok {
			continue
		}
		_, cal, err := conformal.SplitCalibration(split.Train, 0.5, 1)
		if err != nil {
			b.Fatal(err)
		}
		c, err := conformal.Calibrate(bk, m, cal, conformal.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		lo, hi := split.Train.Bounds()
		x := split.Test.X
		pred, err := models.Predict(bk, m, x)
		if err != nil {
			b.Fatal(err)
		}
		request := func(rows []int) Request {
			req := Request{Lower: lo, Upper: hi, Rule: MaxIterations}
			for _, r := range rows {
				req.Factuals = append(req.Factuals, split.Test.Row(r%split.Test.N())...)
				req.Targets = append(req.Targets, (pred[r%split.Test.N()]+1)%split.Test.K())
			}
			return req
		}
		for _, g := range []*Generator{Wachter(p), ECCCo(p, c)} {
			for _, batch := range []int{1, 100, 1000} {
				rows := make([]int, batch)
				for i := range rows {
					rows[i] = i
				}
				req := request(rows)
				b.Run(fmt.Sprintf("%s/%s/B=%d", name, g.Name, batch), func(b *testing.B) {
					for b.Loop() {
						if _, err := Search(context.Background(), bk, m, g, req); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "cf/s")
				})
			}
			reqs := make([]Request, 100)
			for i := range reqs {
				reqs[i] = request([]int{i})
			}
			b.Run(fmt.Sprintf("%s/%s/looped-100", name, g.Name), func(b *testing.B) {
				for b.Loop() {
					for _, req := range reqs {
						if _, err := Search(context.Background(), bk, m, g, req); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "cf/s")
			})
			b.Run(fmt.Sprintf("%s/%s/looped-100-searcher", name, g.Name), func(b *testing.B) {
				s, err := NewSearcher(bk, m, g)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for b.Loop() {
					for _, req := range reqs {
						if _, err := s.Search(context.Background(), req); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(100*b.N)/b.Elapsed().Seconds(), "cf/s")
			})
		}
	}
}

// BenchmarkSearchChunks compares the search in chunks of searchChunk steps per graph call with the host
// loop of one call per step (chunk = 1; ECCCO_BENCH_CHUNK=K compares with K steps per call instead, the
// "host" columns then being K's) on the paper's MNIST and California Housing MLPs (initial
// weights), Wachter, exactly 100 steps (Rule MaxIterations), B = 100, 1,000 and 10,000 (bench/README.md's
// workload). Each iteration searches once each way, alternately, with graphs compiled beforehand; it
// reports both in µs per counterfactual-iteration and the median over iterations of their ratio, which a
// load that drifts affects less. Run with, e.g.:
// go test -run '^$' -bench SearchChunks -benchtime 5x ./eccco/counterfactual/
func BenchmarkSearchChunks(b *testing.B) {
	bk := testBackend(b)
	for _, name := range []string{"mnist", "california-housing"} {
		split, m, p, ok := benchMLP(b, bk, name)
		if !ok {
			continue
		}
		lo, hi := split.Train.Bounds()
		pred, err := models.Predict(bk, m, split.Test.X)
		if err != nil {
			b.Fatal(err)
		}
		for _, batch := range []int{100, 1000, 10000} {
			req := Request{Lower: lo, Upper: hi, Rule: MaxIterations}
			for r := range batch {
				req.Factuals = append(req.Factuals, split.Test.Row(r%split.Test.N())...)
				req.Targets = append(req.Targets, (pred[r%split.Test.N()]+1)%split.Test.K())
			}
			b.Run(fmt.Sprintf("%s/B=%d", name, batch), func(b *testing.B) {
				host, err := NewSearcher(bk, m, Wachter(p))
				if err != nil {
					b.Fatal(err)
				}
				defer host.Close()
				host.chunk = benchOtherChunk(b)
				chunks, err := NewSearcher(bk, m, Wachter(p))
				if err != nil {
					b.Fatal(err)
				}
				defer chunks.Close()
				ctx := context.Background()
				timed := func(s *Searcher) time.Duration {
					start := time.Now()
					if _, err := s.Search(ctx, req); err != nil {
						b.Fatal(err)
					}
					return time.Since(start)
				}
				timed(host) // compiles
				timed(host) // with ECCCO_BENCH_CHUNK, the second search of a request compiles the chunks
				timed(chunks)
				timed(chunks) // the second search of a request compiles the chunks
				var th, tc time.Duration
				var ratios []float64
				for b.Loop() {
					h, c := timed(host), timed(chunks)
					th, tc = th+h, tc+c
					ratios = append(ratios, c.Seconds()/h.Seconds())
				}
				per := func(d time.Duration) float64 { return d.Seconds() * 1e6 / float64(b.N*batch*100) }
				slices.Sort(ratios)
				b.ReportMetric(per(th), "host-µs/cf-iter")
				b.ReportMetric(per(tc), "chunks-µs/cf-iter")
				b.ReportMetric(ratios[len(ratios)/2], "chunks/host")
			})
		}
	}
}

// benchMLP loads a data set's split (seed 1), the paper's MLP for it with initial weights and the
// paper's search parameters; ok is false, with a log line, where the data set is not present.
func benchMLP(b testing.TB, bk compute.Backend, name string) (split *data.Split, m models.Classifier, p Params, ok bool) {
	b.Helper()
	split, err := data.Load(name, data.Options{Seed: 1})
	if err != nil {
		b.Logf("%s not available: %v", name, err)
		return nil, nil, Params{}, false
	}
	row, err := testPaper(name)
	if err != nil {
		b.Fatal(err)
	}
	spec, err := row.spec(models.KindMLP, name, split.Train.D(), split.Train.K())
	if err != nil {
		b.Fatal(err)
	}
	mlp, err := models.New(bk, spec, 1)
	if err != nil {
		b.Fatal(err)
	}
	p = row.params
	return split, mlp, p, true
}

// benchOtherChunk is the steps per graph call BenchmarkSearchChunks compares searchChunk with: 1 (the host
// loop), or ECCCO_BENCH_CHUNK.
func benchOtherChunk(b *testing.B) int {
	v := os.Getenv("ECCCO_BENCH_CHUNK")
	if v == "" {
		return 1
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 {
		b.Fatalf("ECCCO_BENCH_CHUNK=%q: want a positive number of steps", v)
	}
	return k
}
