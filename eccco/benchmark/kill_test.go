package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/clock"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// killEnv tells the test binary, run again as a child by runKilled, to run killProtocol into the folder it
// names and to kill itself (SIGKILL: no deferred function runs) once killAfter units are written.
const (
	killEnv      = "ECCCO_TEST_KILL_CHILD"
	killAfterEnv = "ECCCO_TEST_KILL_AFTER"
	tickEnv      = "ECCCO_TEST_TICK"
)

func killProtocol() Protocol {
	gens, err := experiment.ParseGenerators("Wachter", "ECCCo")
	if err != nil {
		panic(err)
	}
	return Protocol{Dataset: "circles", Models: []models.Kind{models.KindMLP}, Generators: gens, Runs: 2, Factuals: 3, Seed: 5}
}

// TestKillChild is the child of runKilled; it does nothing in a normal test run.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(killEnv)
	if dir == "" {
		t.Skip("run by the kill-and-resume tests only")
	}
	if os.Getenv(tickEnv) != "" {
		// A clock that moves one second per reading: every measured duration is a count of readings.
		var mu = make(chan struct{}, 1)
		at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		defer clock.Set(func() time.Time {
			mu <- struct{}{}
			at = at.Add(time.Second)
			<-mu
			return at
		})()
	}
	r := newRunner(t, filepath.Join(dir, "out"), filepath.Join(dir, "models"))
	r.Training = experiment.Training{Epochs: 2}
	after := 0
	if s := os.Getenv(killAfterEnv); s != "" {
		after = int(s[0] - '0')
	}
	written := 0
	r.OnUnit = func(done, total int, u Unit, skipped bool) {
		if !skipped {
			written++
		}
		if after > 0 && written == after {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		}
	}
	p := killProtocol()
	if err := r.Run(context.Background(), p, Shard{1, 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Collect(p); err != nil {
		t.Fatal(err)
	}
}

// runKilled runs the child into dir: killed after `after` units (0: not killed), with the ticking or
// the frozen clock. It reports whether the child was killed.
func runKilled(t *testing.T, dir string, after int, tick bool) bool {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killEnv+"="+dir, killAfterEnv+"="+string(rune('0'+after)))
	if tick {
		cmd.Env = append(cmd.Env, tickEnv+"=1")
	} else {
		cmd.Env = append(cmd.Env, clock.TestEnv+"=frozen")
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() && st.Signal() == syscall.SIGKILL {
			return true
		}
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return false
}

// A benchmark killed (SIGKILL) after each of three units and resumed each time ends with the same bytes
// as an uninterrupted one, every file of its folder included, when the clock is frozen (clock.TestEnv).
func TestKillAndResumeSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model in four processes")
	}
	a, b := t.TempDir(), t.TempDir()
	if runKilled(t, a, 0, false) {
		t.Fatal("the uninterrupted run was killed")
	}
	// Four units (1 model × 2 generators × 2 runs): killed after the 1st, the 2nd and the 3rd computed.
	for i := range 3 {
		if !runKilled(t, b, 1, false) {
			t.Fatalf("resume %d was not killed", i)
		}
	}
	if runKilled(t, b, 0, false) {
		t.Fatal("the last resume was killed")
	}
	n := 0
	err := filepath.WalkDir(filepath.Join(a, "out"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		if filepath.Base(p) == ".eccco.lock" {
			return nil // holds the writing process's id while it runs, nothing after
		}
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		n++
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs after kill and resume:\n%s\nuninterrupted:\n%s", rel, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Errorf("compared %d files, want the units, their counterfactuals, the indexes and the results", n)
	}
}

// The stage timings of a benchmark killed (SIGKILL) after its second unit and resumed are the sum of what
// both invocations kept: with a clock that moves one second per reading, each stage of each unit reads 1 s
// whichever invocation computed it, so every stage equals the uninterrupted run's, and the models stage
// the uninterrupted run's plus the one reading of the model loaded again by the resumed invocation. A
// record written only when a run ends keeps just the resumed part (2 of the 4 units).
func TestKillAndResumeSumsTimings(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model in three processes")
	}
	a, b := t.TempDir(), t.TempDir()
	runKilled(t, a, 0, true)
	if !runKilled(t, b, 2, true) {
		t.Fatal("the first run was not killed")
	}
	runKilled(t, b, 0, true)
	read := func(dir string) Timings {
		raw, err := os.ReadFile(filepath.Join(dir, "out", "units", "circles", "timings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var tm Timings
		if err := json.Unmarshal(raw, &tm); err != nil {
			t.Fatal(err)
		}
		return tm
	}
	want, got := read(a), read(b)
	if want.Units != 4 || got.Units != 4 {
		t.Errorf("units computed: uninterrupted %d, killed and resumed %d; want 4 and 4", want.Units, got.Units)
	}
	for _, s := range Stages {
		w := want.Seconds[s]
		if s == "models" {
			w++
		}
		if got.Seconds[s] != w || want.Seconds[s] <= 0 {
			t.Errorf("stage %s: killed and resumed %v s, want %v (uninterrupted %v s)", s, got.Seconds[s], w, want.Seconds[s])
		}
	}
	if t.Failed() {
		t.Logf("uninterrupted %+v\nkilled and resumed %+v", want, got)
	}
}
