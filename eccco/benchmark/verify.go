package benchmark

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// ErrEmpty reports a results or unit file that holds no header or no rows.
var ErrEmpty = errors.New("benchmark: no results in the file")

// ErrCorrupt reports a unit or results file that does not hold what was written: a checksum, a row count
// or a row's dataset, model, generator or run that differs from what its name and record say.
var ErrCorrupt = errors.New("benchmark: the file does not hold what eccco wrote")

// MaxRuns and MaxFactuals bound a protocol's runs and factuals per run: the units (and the factuals'
// draws) are allocated up front, so a mistyped size must fail before it exhausts memory.
const (
	MaxRuns     = 10_000
	MaxFactuals = 100_000
)

// UnitRecord is what the checksum index (Out/units/DATASET/checksums.json) records of a unit when it is
// written: its row count and the SHA-256 of its bytes.
type UnitRecord struct {
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256"`
}

// checksumsPath is the checksum index of a data set's units: unit paths relative to Out/units/DATASET →
// UnitRecord. Directories written before it existed have none; their units are checked by content only.
func (r *Runner) checksumsPath(dataset string) string {
	return filepath.Join(r.Out, "units", dataset, "checksums.json")
}

// unitKey is a unit's path relative to its data set's directory, the key of the checksum index.
func (r *Runner) unitKey(u Unit) string {
	rel, _ := filepath.Rel(filepath.Join(r.Out, "units", u.Dataset), r.UnitPath(u))
	return filepath.ToSlash(rel)
}

func readChecksums(path string) (map[string]UnitRecord, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]UnitRecord{}, nil
	}
	if err != nil {
		return nil, err
	}
	idx := map[string]UnitRecord{}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("%w: %s: %v (delete it to check the units by content only)", ErrCorrupt, path, err)
	}
	return idx, nil
}

func writeChecksums(path string, idx map[string]UnitRecord) error {
	content, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(content, '\n'), 0o644)
}

// checksum is the hex SHA-256 of b.
func checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// decodeCSV parses the bytes of a results or unit file: a missing header or no rows is ErrEmpty, a
// malformed one another error (path names the file in messages).
func decodeCSV(path string, raw []byte) ([]Row, error) {
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("reading %s: %w: it is empty", path, ErrEmpty)
	}
	if len(recs[0]) != len(Header) || recs[0][0] != Header[0] {
		return nil, fmt.Errorf("reading %s: not a results file (its first line is %q, want the header %s)", path, strings.Join(recs[0], ","), strings.Join(Header, ","))
	}
	if len(recs) == 1 {
		return nil, fmt.Errorf("reading %s: %w: it holds the header only", path, ErrEmpty)
	}
	rows := make([]Row, 0, len(recs)-1)
	for i, rec := range recs[1:] {
		r, err := parseRecord(rec)
		if err != nil {
			return nil, fmt.Errorf("reading %s, line %d: %w", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// checkUnit reads a unit file and checks it against the unit and the checksum index: the recorded
// checksum and row count where the index has the unit, and always at least one and at most factuals rows,
// each of the unit's data set, model, generator and run (a factual may repeat: the authors'-code mode
// draws them with replacement). It returns the rows, or
// an error (ErrCorrupt, ErrEmpty, os.ErrNotExist) saying what is wrong.
func (r *Runner) checkUnit(u Unit, factuals int, idx map[string]UnitRecord) ([]Row, error) {
	path := r.UnitPath(u)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if rec, ok := idx[r.unitKey(u)]; ok && rec.SHA256 != checksum(raw) {
		return nil, fmt.Errorf("%w: %s: its checksum is not the one recorded when it was written (%s)", ErrCorrupt, path, r.checksumsPath(u.Dataset))
	}
	rows, err := decodeCSV(path, raw)
	if err != nil {
		return nil, err
	}
	if rec, ok := idx[r.unitKey(u)]; ok && rec.Rows != len(rows) {
		return nil, fmt.Errorf("%w: %s: %d rows, %d when it was written", ErrCorrupt, path, len(rows), rec.Rows)
	}
	if len(rows) > factuals {
		return nil, fmt.Errorf("%w: %s: %d rows, more than the %d factuals of a run", ErrCorrupt, path, len(rows), factuals)
	}
	for i, row := range rows {
		if row.Dataset != u.Dataset || row.Model != string(u.Model) || row.Generator != u.Generator || row.Run != u.Run {
			return nil, fmt.Errorf("%w: %s, line %d: a row of %s/%s/%s/run-%03d, not of %s", ErrCorrupt, path, i+2, row.Dataset, row.Model, row.Generator, row.Run, u)
		}
	}
	return rows, nil
}

// checkRun checks that the units of one model and run agree on their factuals and targets (every
// generator of a run explains the same ones): units maps each generator's unit to its rows. The first
// unit (in name order) that disagrees with the majority is returned with an error naming its file.
func checkRun(r *Runner, units map[Unit][]Row) (Unit, error) {
	if len(units) < 2 {
		return Unit{}, nil
	}
	sig := func(rows []Row) string {
		var sb strings.Builder
		for _, row := range rows {
			fmt.Fprintf(&sb, "%d:%d,", row.Factual, row.Target)
		}
		return sb.String()
	}
	count := map[string]int{}
	for _, rows := range units {
		count[sig(rows)]++
	}
	if len(count) == 1 {
		return Unit{}, nil
	}
	best, bestN := "", 0
	for _, s := range slices.Sorted(maps.Keys(count)) {
		if count[s] > bestN {
			best, bestN = s, count[s]
		}
	}
	keys := slices.SortedFunc(maps.Keys(units), func(a, b Unit) int { return strings.Compare(a.String(), b.String()) })
	for _, u := range keys {
		if sig(units[u]) != best {
			return u, fmt.Errorf("%w: %s: its factuals and targets differ from those of the other generators' units of %s run %d", ErrCorrupt, r.UnitPath(u), u.Model, u.Run)
		}
	}
	return Unit{}, nil
}

// ResultsFile is the name of the results file in a benchmark directory; ChecksumFile's line (in
// sha256sum's format) records its SHA-256 when Collect writes it.
const (
	ResultsFile  = "results.csv"
	ChecksumFile = ResultsFile + ".sha256"
)

// writeResults writes rows to dir/results.csv and its checksum to dir/results.csv.sha256, both atomically.
func writeResults(dir string, rows []Row) error {
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, rows); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ResultsFile), buf.Bytes(), 0o644); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ChecksumFile), []byte(checksum(buf.Bytes())+"  "+ResultsFile+"\n"), 0o644)
}

// ReadResults reads and verifies a benchmark's results: path is a benchmark directory (its results.csv
// is read) or a results CSV file. It checks the checksum recorded beside the file when the benchmark wrote
// it (FILE.sha256; files without one are checked by content only), then the content: at least one row,
// and for every data set a complete grid of model × generator × run with the same number of rows in each
// cell, and, for a directory's results.csv, every data set of the directory's manifests present. A file
// cut at a row boundary, or edited, is an error wrapping ErrCorrupt that names the file; an empty or
// header-only one wraps ErrEmpty; a missing one os.ErrNotExist.
func ReadResults(path string) ([]Row, error) {
	dir := ""
	if filepath.Ext(path) != ".csv" {
		dir, path = path, filepath.Join(path, ResultsFile)
	} else if filepath.Base(path) == ResultsFile {
		dir = filepath.Dir(path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	if sum, err := os.ReadFile(path + ".sha256"); err == nil {
		want, _, _ := strings.Cut(strings.TrimSpace(string(sum)), " ")
		if want != checksum(raw) {
			return nil, fmt.Errorf("%w: %s does not match the checksum recorded when it was written (%s.sha256); rerun the benchmark (eccco bench with the same flags) to collect it again",
				ErrCorrupt, path, path)
		}
	}
	rows, err := decodeCSV(path, raw)
	if err != nil {
		return nil, err
	}
	if err := checkGrid(path, rows); err != nil {
		return nil, err
	}
	if dir == "" {
		return rows, nil
	}
	ms, err := ReadManifests(dir)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, r := range rows {
		have[r.Dataset] = true
	}
	for _, m := range ms {
		if !have[m.Dataset] {
			return nil, fmt.Errorf("%w: %s holds no rows of %s, whose units are in %s; rerun the benchmark to collect them",
				ErrCorrupt, path, m.Dataset, filepath.Join(dir, "units", m.Dataset))
		}
	}
	return rows, nil
}

// checkGrid checks that the rows of every data set fill a complete model × generator × run grid with as
// many rows in every cell.
func checkGrid(path string, rows []Row) error {
	type cell struct {
		model, gen string
		run        int
	}
	byData := map[string]map[cell]int{}
	for _, r := range rows {
		if byData[r.Dataset] == nil {
			byData[r.Dataset] = map[cell]int{}
		}
		byData[r.Dataset][cell{r.Model, r.Generator, r.Run}]++
	}
	for _, ds := range slices.Sorted(maps.Keys(byData)) {
		cells := byData[ds]
		models, gens, runs := map[string]bool{}, map[string]bool{}, map[int]bool{}
		most := 0
		for c, n := range cells {
			models[c.model], gens[c.gen], runs[c.run] = true, true, true
			most = max(most, n)
		}
		for _, m := range slices.Sorted(maps.Keys(models)) {
			for _, g := range slices.Sorted(maps.Keys(gens)) {
				for _, run := range slices.Sorted(maps.Keys(runs)) {
					switch n := cells[cell{m, g, run}]; {
					case n == 0:
						return fmt.Errorf("%w: %s holds no rows of %s %s %s run %d, though it holds that model, generator and run elsewhere (cut or edited?); rerun the benchmark to collect it again",
							ErrCorrupt, path, ds, m, g, run)
					case n != most:
						return fmt.Errorf("%w: %s holds %d rows of %s %s %s run %d and %d of others (cut or edited?); rerun the benchmark to collect it again",
							ErrCorrupt, path, n, ds, m, g, run, most)
					}
				}
			}
		}
	}
	return nil
}

// checkExisting checks the units of a shard already written under Out: each against its record in the
// checksum index (checkUnit), and the units of one model and run against each other (checkRun). It
// returns the index and the units that must be recomputed, with the reason.
func (r *Runner) checkExisting(p Protocol, units []Unit) (map[string]UnitRecord, map[Unit]error, error) {
	idx, err := readChecksums(r.checksumsPath(p.Dataset))
	if err != nil {
		return nil, nil, err
	}
	bad := map[Unit]error{}
	runs := map[string]map[Unit][]Row{}
	for _, u := range units {
		rows, err := r.checkUnit(u, p.Factuals, idx)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			bad[u] = err
			continue
		}
		key := fmt.Sprintf("%s/%d", u.Model, u.Run)
		if runs[key] == nil {
			runs[key] = map[Unit][]Row{}
		}
		runs[key][u] = rows
	}
	for _, k := range slices.Sorted(maps.Keys(runs)) {
		for {
			u, err := checkRun(r, runs[k])
			if err == nil {
				break
			}
			bad[u] = err
			delete(runs[k], u)
		}
	}
	return idx, bad, nil
}

// writeUnit writes a unit's rows atomically and records its row count and checksum in the index.
func (r *Runner) writeUnit(u Unit, rows []Row, idx map[string]UnitRecord) error {
	var buf bytes.Buffer
	if err := EncodeCSV(&buf, rows); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(r.UnitPath(u), buf.Bytes(), 0o644); err != nil {
		return err
	}
	idx[r.unitKey(u)] = UnitRecord{Rows: len(rows), SHA256: checksum(buf.Bytes())}
	return writeChecksums(r.checksumsPath(u.Dataset), idx)
}

// mergeChecksums adds the records of the checksum index at src to the one at dst; a unit recorded in both
// with other checksums is ErrCorrupt (the unit files themselves are compared byte for byte).
func mergeChecksums(src, dst string) error {
	in, err := readChecksums(src)
	if err != nil {
		return err
	}
	have, err := readChecksums(dst)
	if err != nil {
		return err
	}
	changed := false
	for _, k := range slices.Sorted(maps.Keys(in)) {
		if old, ok := have[k]; ok {
			if old != in[k] {
				return fmt.Errorf("%w: %s records %s with checksum %s; %s with %s", ErrCorrupt, src, k, in[k].SHA256, dst, old.SHA256)
			}
			continue
		}
		have[k], changed = in[k], true
	}
	if !changed {
		return nil
	}
	return writeChecksums(dst, have)
}
