package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// figures, tables, perf and bench --out wrote over same-named files in a user's folder. Now a folder
// eccco did not make is refused (the user's file intact) unless --replace; a new or empty folder is
// marked and may be updated later; an older eccco's folder is recognised by its files.
func TestPrepare(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "fresh", "out")
	if err := Prepare(fresh, false, "--out"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(fresh, Mark)); err != nil {
		t.Fatalf("a new folder is not marked: %v", err)
	}
	write(t, filepath.Join(fresh, "perf.md"), "eccco's")
	if err := Prepare(fresh, false, "--out"); err != nil {
		t.Errorf("a marked folder refused: %v", err)
	}
	if err := Prepare(filepath.Join(fresh, "tables"), false, "--out"); err != nil {
		t.Errorf("a folder inside a marked one refused: %v", err)
	}
	user := filepath.Join(root, "notes")
	write(t, filepath.Join(user, "perf.md"), "mine")
	err := Prepare(user, false, "--out", "perf.csv")
	if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "perf.md") || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("a user's folder: err = %v, want ErrNotOurs naming perf.md and --replace", err)
	}
	if _, err := os.Stat(filepath.Join(user, Mark)); err == nil {
		t.Error("a refused folder was marked")
	}
	if err := Prepare(user, true, "--out"); err != nil {
		t.Errorf("--replace refused: %v", err)
	}
	if raw, _ := os.ReadFile(filepath.Join(user, "perf.md")); string(raw) != "mine" {
		t.Errorf("Prepare changed the user's file: %q", raw)
	}
	legacy := filepath.Join(root, "old")
	write(t, filepath.Join(legacy, "units", "moons", "experiment.json"), "{}")
	if err := Prepare(legacy, false, "--out", "units/*/experiment.json"); err != nil {
		t.Errorf("an older eccco's folder refused: %v", err)
	}
	file := filepath.Join(root, "a-file")
	write(t, file, "x")
	if err := Prepare(file, true, "--out"); !errors.Is(err, ErrNotOurs) {
		t.Errorf("a file as the folder: err = %v, want ErrNotOurs", err)
	}
}

// modes --out and agree --out overwrote a user's notes.md. Now an existing file is refused unless replace.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	if err := File(notes, false, "--out"); err != nil {
		t.Errorf("a new file refused: %v", err)
	}
	write(t, notes, "mine")
	if err := File(notes, false, "--out"); !errors.Is(err, ErrNotOurs) {
		t.Errorf("an existing file: err = %v, want ErrNotOurs", err)
	}
	if err := File(notes, true, "--out"); err != nil {
		t.Errorf("--replace refused: %v", err)
	}
	if err := File(dir, true, "--out"); !errors.Is(err, ErrNotOurs) {
		t.Errorf("a folder as the file: err = %v, want ErrNotOurs", err)
	}
}

// Two runs in one folder failed one of them with a wrong cause. Now the second is refused with
// ErrLocked naming the first process; after unlock the folder can be locked again.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Errorf("second lock: err = %v, want ErrLocked naming process %d", err, os.Getpid())
	}
	unlock()
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	again()
}
