package benchmark

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Lanes run jobs data sets at once, image data sets first; the first failure stops the others and is the
// error returned.
func TestLanesRunConcurrencyOrderAndErrors(t *testing.T) {
	names := []string{"moons", "mnist", "circles", "fashion-mnist", "german-credit"}
	if got, want := laneOrder(names), []int{1, 3, 0, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("lane order %v, want the image sets first, then the others as given: %v", got, want)
	}

	// Two lanes: two data sets are in flight at once (each waits until it meets the other), never three.
	var mu sync.Mutex
	inFlight, most := 0, 0
	var started []string
	meet := make(chan struct{})
	l := Lanes{Jobs: 2}
	err := l.run(context.Background(), names, func(ctx context.Context, i int) error {
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		started = append(started, names[i])
		n := len(started)
		mu.Unlock()
		if n <= 2 {
			first := n == 1
			if first {
				select {
				case <-meet:
				case <-time.After(10 * time.Second):
					return errors.New("the second lane never started")
				}
			} else {
				close(meet)
			}
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if most != 2 || len(started) != len(names) {
		t.Errorf("%d data sets run, at most %d at once; want all %d, 2 at once", len(started), most, len(names))
	}
	if !slices.Equal(started[:2], []string{"mnist", "fashion-mnist"}) && !slices.Equal(started[:2], []string{"fashion-mnist", "mnist"}) {
		t.Errorf("first two data sets %v, want the image sets", started[:2])
	}

	// A failure cancels the other lane and is what run returns, not the other lane's cancellation; no data
	// set starts after it (mnist may or may not have started when fashion-mnist failed at once).
	boom := errors.New("boom")
	var begun []string
	err = l.run(context.Background(), names, func(ctx context.Context, i int) error {
		mu.Lock()
		begun = append(begun, names[i])
		mu.Unlock()
		if names[i] == "fashion-mnist" {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Second):
			return fmt.Errorf("%s was not cancelled", names[i])
		}
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the failing data set's", err)
	}
	for _, n := range begun {
		if n != "mnist" && n != "fashion-mnist" {
			t.Errorf("started %v: %s started after the failure", begun, n)
		}
	}

	// One lane: one after the other, in lane order, stopping at the first failure.
	var seq []string
	err = Lanes{}.run(context.Background(), names, func(_ context.Context, i int) error {
		seq = append(seq, names[i])
		if names[i] == "moons" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !slices.Equal(seq, []string{"mnist", "fashion-mnist", "moons"}) {
		t.Errorf("one lane ran %v, err %v; want mnist, fashion-mnist, moons and boom", seq, err)
	}
}

// Two data sets benchmarked and scored in two lanes give the bytes of one lane: the results, the tables'
// inputs, and Table 5's rows in the order of the data sets.
func TestLanesGiveTheSameResults(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four small models")
	}
	dir := t.TempDir()
	modelsDir := filepath.Join(dir, "models")
	gens, err := experiment.ParseGenerators("Wachter", "ECCCo")
	if err != nil {
		t.Fatal(err)
	}
	var ps []Protocol
	for _, d := range []string{"linearly-separable", "circles"} {
		ps = append(ps, Protocol{Dataset: d, Models: []models.Kind{models.KindMLP, models.KindJEM}, Generators: gens, Runs: 2, Factuals: 10, Seed: 7})
	}
	training := experiment.Training{Epochs: 5}
	ctx := context.Background()
	var want []byte
	for _, jobs := range []int{1, 2} {
		r := newRunner(t, filepath.Join(dir, fmt.Sprintf("jobs-%d", jobs)), filepath.Join(modelsDir, fmt.Sprint(jobs)))
		r.Training = training
		var mu sync.Mutex
		units := 0
		r.OnUnit = func(int, int, Unit, bool) { mu.Lock(); units++; mu.Unlock() }
		if err := r.RunAll(ctx, ps, Shard{1, 1}, Lanes{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		if units != 2*len(ps[0].Units()) {
			t.Errorf("jobs %d: OnUnit called %d times, want %d", jobs, units, 2*len(ps[0].Units()))
		}
		got := collectBytes(t, r, ps...)
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Errorf("two lanes wrote other results than one")
		}
	}

	// Table 5 from the models just trained, in one lane and in two: the same rows in the same order.
	var table []string
	for _, jobs := range []int{1, 2} {
		b := newRunner(t, "", "").Backend
		rows, skipped, err := Performances(ctx, PerformanceRequest{Datasets: []string{"linearly-separable", "circles"},
			Kinds:   []models.Kind{models.KindMLP, models.KindJEM, models.KindLeNet},
			Options: experiment.Options{Backend: b, Seed: 7, ModelsDir: filepath.Join(modelsDir, "1"), Training: training}}, Lanes{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if len(skipped) != 0 || len(rows) != 4 {
			t.Fatalf("jobs %d: %d rows, skipped %v; want 4 rows (no LeNet-5 for tabular data)", jobs, len(rows), skipped)
		}
		var got []string
		for _, p := range rows {
			got = append(got, fmt.Sprintf("%s %s %.6f %.6f", p.Dataset, p.Kind, p.Accuracy, p.F1))
		}
		if table == nil {
			table = got
		} else if !slices.Equal(got, table) {
			t.Errorf("two lanes scored\n%v\nwant\n%v", got, table)
		}
	}
	if table[0][:len("linearly-separable mlp")] != "linearly-separable mlp" || table[2][:len("circles mlp")] != "circles mlp" {
		t.Errorf("rows %v: want the data sets' order", table)
	}

	// A data set listed twice is refused: its lanes would write the same units.
	r := newRunner(t, filepath.Join(dir, "twice"), modelsDir)
	if err := r.RunAll(ctx, []Protocol{ps[0], ps[0]}, Shard{1, 1}, Lanes{Jobs: 2}); !errors.Is(err, experiment.ErrInvalid) {
		t.Errorf("a data set twice: err = %v, want ErrInvalid", err)
	}
}
