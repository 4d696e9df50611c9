package benchmark

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// Lanes is the work of several data sets done a number at a time (Jobs), each data set in one lane from
// start to end: what Runner.RunAll and Performances share.
//
// Every data set's results are the same bytes whatever the number of lanes (each depends only on the
// seed and the data set's own inputs), so lanes change only the wall time: they pay where one data set
// leaves cores idle.
type Lanes struct {
	// Jobs is how many data sets run at once (< 1: one).
	Jobs int
	// Backend gives a data set's backend (nil, or a nil result: the caller's default).
	Backend func(dataset string) compute.Backend
}

func (l Lanes) jobs(n int) int {
	return max(1, min(l.Jobs, n))
}

// laneOrder is the order in which the lanes take the data sets: image data sets first (each is several
// times a tabular one's work, so that none of them starts last and runs alone), otherwise as given.
func laneOrder(names []string) []int {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	weight := func(i int) int {
		if info, err := data.Lookup(names[i]); err == nil && info.Kind == data.KindVision {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(idx, func(a, b int) int { return weight(a) - weight(b) })
	return idx
}

// run calls fn for every data set, jobs at a time, in laneOrder; the first error cancels the others'
// context, no data set starts after it, and it is returned (as fn returned it) once every lane has
// stopped.
func (l Lanes) run(ctx context.Context, names []string, fn func(ctx context.Context, i int) error) error {
	order := laneOrder(names)
	jobs := l.jobs(len(names))
	if jobs == 1 {
		for _, i := range order {
			if err := fn(ctx, i); err != nil {
				return err
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // another lane failed after this data set was handed out: never start it
				}
				if err := fn(ctx, i); err != nil {
					errs[i] = err
					cancel()
				}
			}
		}()
	}
feed:
	for _, i := range order {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	// The first failure in lane order; a lane stopped by another's failure reports context.Canceled,
	// which says less.
	var first error
	for _, i := range order {
		switch err := errs[i]; {
		case err == nil:
		case first == nil, errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled):
			first = err
		}
	}
	if first == nil {
		return ctx.Err()
	}
	return first
}

// backend returns a data set's backend, or def.
func (l Lanes) backend(dataset string, def compute.Backend) compute.Backend {
	if l.Backend != nil {
		if b := l.Backend(dataset); b != nil {
			return b
		}
	}
	return def
}

// RunAll runs the units of one shard of every protocol (one data set each), l.Jobs data sets at a time,
// each on the backend l.Backend gives it (else r.Backend), with what Run does for one. OnUnit is called
// from one lane at a time; with more than one lane, training progress (Progress) is printed as plain
// lines, one lane's line at a time. The results are those of running the protocols one after the other,
// byte for byte; the stage timings (Timings) are then each data set's own wall time while it shared the
// cores.
func (r *Runner) RunAll(ctx context.Context, ps []Protocol, shard Shard, l Lanes) error {
	names := make([]string, len(ps))
	seen := map[string]bool{}
	for i, p := range ps {
		if seen[p.Dataset] {
			return fmt.Errorf("%w: data set %s has two protocols; they would write the same units", experiment.ErrInvalid, p.Dataset)
		}
		seen[p.Dataset], names[i] = true, p.Dataset
	}
	lane := *r
	if l.jobs(len(ps)) > 1 {
		var mu sync.Mutex
		if r.OnUnit != nil {
			onUnit := r.OnUnit
			lane.OnUnit = func(done, total int, u Unit, skipped bool) {
				mu.Lock()
				defer mu.Unlock()
				onUnit(done, total, u, skipped)
			}
		}
		lane.Log, lane.Progress = lockWriter(&mu, r.Log), lockWriter(&mu, r.Progress)
	}
	return l.run(ctx, names, func(ctx context.Context, i int) error {
		lr := lane
		lr.Backend = l.backend(ps[i].Dataset, r.Backend)
		return lr.Run(ctx, ps[i], shard)
	})
}

// PerformanceRequest says which models Performances trains (or loads) and scores.
type PerformanceRequest struct {
	// Datasets are the data sets, in the order of the rows.
	Datasets []string
	// Kinds are the models of each data set; LeNet-5 only where the data are images.
	Kinds []models.Kind
	// Options are the experiment options of every data set (Lanes.Backend overrides the backend).
	Options experiment.Options
	// SkipMissing skips a data set that is not available here (data.ErrNotAvailable) instead of failing.
	SkipMissing bool
}

// Performances trains or loads the requested models and scores them on their test splits (the paper's
// Table 5), l.Jobs data sets at a time. The rows are in the order of the data sets and kinds, whatever
// the lanes; skipped lists the data sets that were not available (with SkipMissing). With more than one
// lane, training progress is printed as plain lines (one lane's line at a time), and each row's training
// time is the model's own wall time while it shared the cores.
func Performances(ctx context.Context, req PerformanceRequest, l Lanes) (rows []*experiment.Performance, skipped []string, err error) {
	perSet := make([][]*experiment.Performance, len(req.Datasets))
	missing := make([]bool, len(req.Datasets))
	opts := req.Options
	if l.jobs(len(req.Datasets)) > 1 {
		var mu sync.Mutex
		opts.Progress, opts.Log = lockWriter(&mu, opts.Progress), lockWriter(&mu, opts.Log)
	}
	err = l.run(ctx, req.Datasets, func(ctx context.Context, i int) error {
		name := req.Datasets[i]
		o := opts
		o.Backend = l.backend(name, opts.Backend)
		e, err := experiment.Open(name, o)
		if err != nil {
			if req.SkipMissing && errors.Is(err, data.ErrNotAvailable) {
				missing[i] = true
				return nil
			}
			return err
		}
		defer e.Close()
		for _, kind := range req.Kinds {
			if kind == models.KindLeNet && e.Split().Train.Image == nil {
				continue
			}
			p, err := e.Performance(ctx, kind)
			if err != nil {
				return err
			}
			perSet[i] = append(perSet[i], p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for i, name := range req.Datasets {
		if missing[i] {
			skipped = append(skipped, name)
		}
		rows = append(rows, perSet[i]...)
	}
	return rows, skipped, nil
}

// lockWriter serialises writes to w under mu (nil stays nil). The result is not a terminal, so that
// progress bars written to it are plain lines rather than live bars that two lanes would garble.
func lockWriter(mu *sync.Mutex, w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &lockedWriter{mu: mu, w: w}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
