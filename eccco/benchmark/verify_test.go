package benchmark

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// rowsOf makes the rows of one unit: n factuals (rows 10, 11, …, targets alternating), a hand-chosen
// unfaithfulness per row.
func rowsOf(u Unit, n int) []Row {
	out := make([]Row, n)
	for i := range out {
		out[i] = Row{Dataset: u.Dataset, Model: string(u.Model), Generator: u.Generator, Run: u.Run, Factual: 10 + i,
			Target: i % 2, Scores: metrics.Scores{Unfaithfulness: 0.5 + float64(i), Probability: 0.9}, Iterations: 3}
	}
	return out
}

// An empty results file and a header-only one were an index-out-of-range panic in ReadCSV (tables,
// report, figures --results, modes, agree). Now both are ErrEmpty, naming the file.
func TestReadEmptyResults(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "header": strings.Join(Header, ",") + "\n"} {
		path := filepath.Join(dir, name, ResultsFile)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, read := range []func(string) ([]Row, error){ReadCSV, func(string) ([]Row, error) { return ReadResults(filepath.Dir(path)) }} {
			if _, err := read(path); !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: err = %v, want ErrEmpty naming %s", name, err, path)
			}
		}
	}
}

// A results.csv cut at a row boundary gave rc 0 and wrong tables. Now: with the checksum Collect writes
// beside it, any change is ErrCorrupt; without one (an older file), a cell of the model × generator × run
// grid with fewer rows, or a missing cell, is ErrCorrupt.
func TestReadResultsCut(t *testing.T) {
	dir := t.TempDir()
	var all []Row
	for run := 1; run <= 2; run++ {
		for _, m := range []string{"mlp", "jem"} {
			for _, g := range []string{"ECCCo", "Wachter"} {
				all = append(all, rowsOf(Unit{Dataset: "moons", Model: models.Kind(m), Generator: g, Run: run}, 3)...)
			}
		}
	}
	if err := writeResults(dir, all); err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadResults(dir); err != nil || len(rows) != 24 {
		t.Fatalf("intact: %d rows, %v", len(rows), err)
	}
	path := filepath.Join(dir, ResultsFile)
	raw, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(raw), "\n")
	cut := strings.Join(lines[:len(lines)-2], "") // the last row gone, the file still ends at a row boundary
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResults(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("cut, with the checksum: err = %v, want ErrCorrupt (checksum)", err)
	}
	if err := os.Remove(filepath.Join(dir, ChecksumFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResults(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "2 rows of moons jem Wachter run 2") {
		t.Errorf("cut, no checksum: err = %v, want ErrCorrupt naming the short cell", err)
	}
	cell := strings.Join(lines[:len(lines)-4], "") // the whole last cell gone
	if err := os.WriteFile(path, []byte(cell), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResults(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "no rows of moons jem Wachter run 2") {
		t.Errorf("a cell cut, no checksum: err = %v, want ErrCorrupt naming the missing cell", err)
	}
}

// A unit replaced by another run's file, a value edited in a unit, a unit cut at a row boundary and an
// emptied unit were used on resume (rc 0, wrong tables) or panicked. Now each is found: by the checksum
// index written with the unit, and without it (an older directory) by the rows' run column.
func TestCheckUnit(t *testing.T) {
	r := &Runner{Out: t.TempDir()}
	u1 := Unit{Dataset: "moons", Model: "mlp", Generator: "ECCCo", Run: 1}
	u2 := u1
	u2.Run = 2
	idx := map[string]UnitRecord{}
	for _, u := range []Unit{u1, u2} {
		if err := r.writeUnit(u, rowsOf(u, 4), idx); err != nil {
			t.Fatal(err)
		}
	}
	saved, err := readChecksums(r.checksumsPath("moons"))
	if err != nil || len(saved) != 2 || saved["mlp/eccco/run-001.csv"].Rows != 4 {
		t.Fatalf("index %+v, %v", saved, err)
	}
	if rows, err := r.checkUnit(u1, 4, saved); err != nil || len(rows) != 4 {
		t.Fatalf("intact unit: %d rows, %v", len(rows), err)
	}
	good, _ := os.ReadFile(r.UnitPath(u1))
	other, _ := os.ReadFile(r.UnitPath(u2))
	edited := strings.Replace(string(good), ",0.5,", ",0.25,", 1)
	lines := strings.SplitAfter(string(good), "\n")
	cases := map[string]struct {
		content string
		want    error
	}{
		"another run's file": {string(other), ErrCorrupt},
		"a value edited":     {edited, ErrCorrupt},
		"cut at a row":       {strings.Join(lines[:len(lines)-2], ""), ErrCorrupt},
		"emptied":            {"", ErrCorrupt},
	}
	for name, c := range cases {
		if c.content == string(good) {
			t.Fatalf("%s: the case does not change the file", name)
		}
		if err := os.WriteFile(r.UnitPath(u1), []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := r.checkUnit(u1, 4, saved); !errors.Is(err, c.want) {
			t.Errorf("%s, with the index: err = %v, want %v", name, err, c.want)
		}
	}
	// Without an index (a directory of an older eccco): another run's file, and an emptied one.
	if err := os.WriteFile(r.UnitPath(u1), other, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.checkUnit(u1, 4, map[string]UnitRecord{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "run-002") {
		t.Errorf("another run's file, no index: err = %v, want ErrCorrupt naming run-002", err)
	}
	if err := os.WriteFile(r.UnitPath(u1), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.checkUnit(u1, 4, map[string]UnitRecord{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("emptied, no index: err = %v, want ErrEmpty", err)
	}
}

// The units of one model and run explain the same factuals; a unit whose factuals differ from the
// others' (e.g. another data split's file with its run column edited) is the one marked for recomputing.
func TestCheckExistingFindsTheOddUnit(t *testing.T) {
	r := &Runner{Out: t.TempDir()}
	p := Protocol{Dataset: "moons", Models: []models.Kind{"mlp"}, Runs: 1, Factuals: 3}
	var units []Unit
	for _, g := range []string{"ECCCo", "REVISE", "Wachter"} {
		u := Unit{Dataset: "moons", Model: "mlp", Generator: g, Run: 1}
		units = append(units, u)
		rows := rowsOf(u, 3)
		if g == "REVISE" {
			rows[2].Factual = 99
		}
		if err := WriteCSVAtomic(r.UnitPath(u), rows); err != nil { // no index: an older directory
			t.Fatal(err)
		}
	}
	_, bad, err := r.checkExisting(p, units)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[units[1]] == nil {
		t.Errorf("bad units %v, want only %s", bad, units[1])
	}
}

// A mistyped --runs 1000000000 ran out of memory allocating its units; now the protocol is refused.
func TestProtocolBounds(t *testing.T) {
	p, err := PaperProtocol("moons")
	if err != nil {
		t.Fatal(err)
	}
	p.Runs = MaxRuns + 1
	if err := p.Validate(); err == nil {
		t.Errorf("%d runs accepted", p.Runs)
	}
	p.Runs, p.Factuals = 1, MaxFactuals+1
	if err := p.Validate(); err == nil {
		t.Errorf("%d factuals accepted", p.Factuals)
	}
	p.Factuals = MaxFactuals
	if err := p.Validate(); err != nil {
		t.Errorf("the largest sizes refused: %v", err)
	}
}
