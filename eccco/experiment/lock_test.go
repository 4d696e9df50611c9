package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// syncBuffer is a log shared by goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Two experiments sharing a models folder, asking at once for the same model (and for REVISE's VAE) that
// is not saved yet: one trains and saves it; the other waits for the lock, says which process holds it,
// and loads what the first saved. Both get the same weights and neither fails. Without the lock both
// trained, and the second save failed on the first one's folder.
func TestSharedModelsFolderLock(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and a VAE")
	}
	dir := t.TempDir()
	var log syncBuffer
	open := func() *experiment.Experiment {
		e, err := experiment.Open("moons", experiment.Options{ModelsDir: dir, Training: experiment.Training{Epochs: 20, VAEEpochs: 5}, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	es := []*experiment.Experiment{open(), open()}
	// The test holds the MLP's lock first, so that both experiments find it taken whatever the machine's
	// speed (the MLP trains in a tenth of a second, faster than a waiter's first poll): each names the
	// holder and waits; once released, one trains while the other goes on waiting, then loads.
	mlpDir := es[0].ModelDir(models.KindMLP)
	unlock, err := outdir.LockWait(context.Background(), filepath.Join(filepath.Dir(mlpDir), "."+filepath.Base(mlpDir)+".lock"), nil)
	if err != nil {
		t.Fatal(err)
	}
	fps := make([]string, len(es))
	errs := make([]error, len(es))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, e := range es {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			m, err := e.Model(context.Background(), models.KindMLP)
			if err != nil {
				errs[i] = err
				return
			}
			if fps[i], err = experiment.Fingerprint(m); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = e.VAE(context.Background())
		}()
	}
	close(start)
	who := fmt.Sprintf("process %d is training or saving it", os.Getpid())
	for deadline := time.Now().Add(time.Minute); strings.Count(log.String(), "moons mlp: "+who) < 2; {
		if time.Now().After(deadline) {
			unlock()
			wg.Wait()
			t.Fatalf("after a minute, the two experiments have not both said they wait for the MLP's lock; log:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	unlock()
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("experiment %d: %v\nlog:\n%s", i, err, log.String())
		}
	}
	if t.Failed() {
		return
	}
	if fps[0] != fps[1] {
		t.Errorf("the two experiments got different weights: %s, %s", fps[0], fps[1])
	}
	out := log.String()
	if n := strings.Count(out, "no saved model in"); n != 1 {
		t.Errorf("the MLP was trained %d times, want once; log:\n%s", n, out)
	}
	if n := strings.Count(out, "VAE: none saved"); n != 1 {
		t.Errorf("the VAE was trained %d times, want once; log:\n%s", n, out)
	}
	// Once the test lets go of the MLP's lock, one takes it and trains while the other waits on. The VAE
	// comes after the MLP on each side: the second may reach it while the first trains it (then it waits,
	// names the holder and loads what was saved meanwhile) or after (then it loads it); either way it is
	// trained once.
	if !strings.Contains(out, "moons mlp: loaded") || !strings.Contains(out, "(saved meanwhile by another process)") {
		t.Errorf("the waiting experiment did not load the MLP the other saved; log:\n%s", out)
	}
	if strings.Contains(out, "moons VAE: "+who) && strings.Count(out, "saved meanwhile by another process") != 2 {
		t.Errorf("the VAE's waiter did not load what the other saved; log:\n%s", out)
	}
	if n := strings.Count(out, "moons VAE: loaded"); n != 1 {
		t.Errorf("the VAE was loaded %d times, want once (by the experiment that did not train it); log:\n%s", n, out)
	}
}

// A model and a VAE end with the same log line whether this process trained them or a later one loads them:
// a notebook shows the last line as its status, and a run resumed after a kill (which loads what the killed
// run saved) must save the same notebook as an uninterrupted one that trained them.
func TestReadyLineSameTrainedOrLoaded(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and a VAE")
	}
	dir := t.TempDir()
	last := func() (string, string) {
		var log syncBuffer
		e, err := experiment.Open("moons", experiment.Options{ModelsDir: dir, Training: experiment.Training{Epochs: 2, VAEEpochs: 2}, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Model(context.Background(), models.KindMLP); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(log.String()), "\n")
		model := lines[len(lines)-1]
		if _, err := e.VAE(context.Background()); err != nil {
			t.Fatal(err)
		}
		lines = strings.Split(strings.TrimSpace(log.String()), "\n")
		return model, lines[len(lines)-1]
	}
	trainedModel, trainedVAE := last()
	loadedModel, loadedVAE := last()
	if trainedModel != loadedModel || !strings.Contains(trainedModel, "moons mlp: ready") {
		t.Errorf("the MLP's last line: trained %q, loaded %q; want the same ready line", trainedModel, loadedModel)
	}
	if trainedVAE != loadedVAE || !strings.Contains(trainedVAE, "moons VAE: ready") {
		t.Errorf("the VAE's last line: trained %q, loaded %q; want the same ready line", trainedVAE, loadedVAE)
	}
}
