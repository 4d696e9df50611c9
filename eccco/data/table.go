package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Table is a CSV read with its Schema: every data row in the model's input space.
type Table struct {
	Schema *Schema
	// Data holds the rows as the model reads them (D = Schema.Width() inputs, FeatureNames =
	// Schema.Columns()), labelled by the class index of the target column's value (ClassNames).
	Data *Dataset
	// Lines holds each data row's line in the CSV (the header is line 1), for messages; nil for a table
	// not read from a file.
	Lines []int
}

// LineOf names data row r in messages: "line L (data row r)", or "data row r" where the line is unknown.
func (t *Table) LineOf(r int) string {
	if r >= 0 && r < len(t.Lines) {
		return fmt.Sprintf("line %d (data row %d)", t.Lines[r], r)
	}
	return fmt.Sprintf("data row %d", r)
}

// ReadTable reads a CSV with a header line as schema s describes it. Columns the schema does not name are
// ignored. Errors wrap ErrSchema and name the file, the line, the data row (0-based, the header not
// counted) and the column: a missing or repeated column, a row with the wrong number of fields, an
// unknown category or level, a numeric field that is not a finite number (NaN, Inf, empty), a label that
// is not one of the schema's classes, fewer than two classes, no data rows, or a pixel outside an
// image's min and max (Schema.Image; the table's Data.Image is then its shape).
func ReadTable(path string, s *Schema) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the data: %w", err)
	}
	defer f.Close()
	t, err := readTable(f, s, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// csvRows reads a CSV's header and records, naming the line of a malformed record.
type csvRows struct {
	cr     *csv.Reader
	header []string
	col    map[string]int
}

func newCSVRows(r io.Reader) (*csvRows, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if err := plainText(br); err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, markf(ErrSchema, "empty file: expected a header line")
	}
	if err != nil {
		return nil, markf(ErrSchema, "%w", csvError(err))
	}
	c := &csvRows{cr: cr, header: header, col: map[string]int{}}
	for j, h := range header {
		h = strings.TrimSpace(h)
		if j == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		header[j] = h
		if _, dup := c.col[h]; dup {
			return nil, markf(ErrSchema, "line 1: column %q appears twice in the header", h)
		}
		c.col[h] = j
	}
	return c, nil
}

// plainText refuses a file that is not UTF-8 text by its first bytes: gzip-compressed, or UTF-16 (a byte
// order mark, or NUL bytes between ASCII characters), which the CSV reader would misread as fields.
func plainText(br *bufio.Reader) error {
	head, _ := br.Peek(512)
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return markf(ErrSchema, "the file is gzip-compressed; decompress it first (gzip -d) and pass the CSV")
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return markf(ErrSchema, "the file is UTF-16 text; save it as UTF-8 (e.g. with iconv -f UTF-16 -t UTF-8) and pass that")
	case bytes.IndexByte(head, 0) >= 0:
		return markf(ErrSchema, "the file holds NUL bytes: UTF-16 text or not text at all; save it as UTF-8 CSV")
	}
	return nil
}

// column returns the index of a column the schema needs.
func (c *csvRows) column(name, what string) (int, error) {
	j, ok := c.col[name]
	if !ok {
		return 0, markf(ErrSchema, "line 1: no column %q (%s) in the header (%s)", name, what, strings.Join(c.header, ","))
	}
	return j, nil
}

// next returns the next record and its line, or io.EOF.
func (c *csvRows) next() ([]string, int, error) {
	rec, err := c.cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		return nil, 0, markf(ErrSchema, "%w", csvError(err))
	}
	line, _ := c.cr.FieldPos(0)
	return rec, line, nil
}

func readTable(r io.Reader, s *Schema, name string) (*Table, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c, err := newCSVRows(r)
	if err != nil {
		return nil, err
	}
	cols, err := featureColumns(c, s)
	if err != nil {
		return nil, err
	}
	tcol, err := c.column(s.Target, "the target")
	if err != nil {
		return nil, err
	}
	D := s.Width()
	offs := s.Offsets()
	var x []float32
	var labels []string
	var lines []int
	row := make([]float32, D)
	for n := 0; ; n++ {
		rec, line, err := c.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := s.encodeRecord(rec, cols, offs, row); err != nil {
			return nil, markf(ErrSchema, "line %d (data row %d), %w", line, n, err)
		}
		if err := s.inBounds(rec, cols, offs, row); err != nil {
			return nil, markf(ErrSchema, "line %d (data row %d), %w", line, n, err)
		}
		x = append(x, row...)
		labels = append(labels, strings.TrimSpace(rec[tcol]))
		lines = append(lines, line)
	}
	if len(labels) == 0 {
		return nil, markf(ErrSchema, "no data rows after the header")
	}
	classes := s.Classes
	if classes == nil {
		classes = sortedClasses(labels)
	}
	if len(classes) < 2 {
		return nil, markf(ErrSchema, "column %q holds %d class (%s), need at least 2", s.Target, len(classes), strings.Join(classes, ", "))
	}
	y := make([]int, len(labels))
	for i, l := range labels {
		if y[i] = slices.Index(classes, l); y[i] < 0 {
			return nil, markf(ErrSchema, "line %d (data row %d), column %q: label %q is not one of the schema's classes (%s)", lines[i], i, s.Target, l, strings.Join(classes, ", "))
		}
	}
	if s.Classes != nil { // a class listed by the schema that no row has (sorted labels all have rows)
		count := make([]int, len(classes))
		for _, c := range y {
			count[c]++
		}
		if k := slices.Index(count, 0); k >= 0 {
			return nil, markf(ErrSchema, "column %q: the class %q (of the schema's %s) has no rows; the search and its metrics need rows of every class the model gives",
				s.Target, classes[k], strings.Join(classes, ", "))
		}
	}
	d := &Dataset{Name: name, X: x, Y: y, FeatureNames: s.Columns(), ClassNames: classes}
	if m := s.Image; m != nil {
		d.Image = &ImageShape{Height: m.Height, Width: m.Width, Channels: 1}
		if err := imageInRange(s, x, lines); err != nil {
			return nil, err
		}
	}
	if err := d.Validate(); err != nil {
		return nil, markf(ErrSchema, "%w", err)
	}
	return &Table{Schema: s, Data: d, Lines: lines}, nil
}

// featureColumns finds the CSV column of every feature.
func featureColumns(c *csvRows, s *Schema) ([]int, error) {
	cols := make([]int, len(s.Features))
	for i, f := range s.Features {
		j, err := c.column(f.Name, "a feature of the schema")
		if err != nil {
			return nil, err
		}
		cols[i] = j
	}
	return cols, nil
}

// inBounds checks a data row's encoded features (row) against the schema's min and max: a factual outside
// them is one its counterfactuals, kept within the bounds, could not stay near.
func (s *Schema) inBounds(rec []string, cols, offs []int, row []float32) error {
	for i, f := range s.Features {
		if f.Type == Categorical || (f.Min == nil && f.Max == nil) {
			continue
		}
		v, what := float64(row[offs[i]]), strings.TrimSpace(rec[cols[i]])
		if f.Type == Ordinal {
			what = fmt.Sprintf("level %q", what)
		}
		if f.Min != nil && v < *f.Min {
			return fmt.Errorf("column %q: %s is below the schema's min %g; widen the schema's bounds or correct the row", f.Name, what, *f.Min)
		}
		if f.Max != nil && v > *f.Max {
			return fmt.Errorf("column %q: %s is above the schema's max %g; widen the schema's bounds or correct the row", f.Name, what, *f.Max)
		}
	}
	return nil
}

// encodeRecord writes a record's features into row (the model's D inputs).
func (s *Schema) encodeRecord(rec []string, cols, offs []int, row []float32) error {
	for i, f := range s.Features {
		if err := f.encodeField(rec[cols[i]], row[offs[i]:offs[i]+f.Width()]); err != nil {
			return fmt.Errorf("column %q: %w", f.Name, err)
		}
	}
	return nil
}

// sortedClasses returns the distinct labels sorted: as numbers when every one is an integer, else as text.
func sortedClasses(labels []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range labels {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	ints := true
	for _, l := range out {
		if _, err := strconv.ParseInt(l, 10, 64); err != nil {
			ints = false
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if ints {
			x, _ := strconv.ParseInt(a, 10, 64)
			y, _ := strconv.ParseInt(b, 10, 64)
			return int(x - y)
		}
		return strings.Compare(a, b)
	})
	return out
}

// Bounds returns the lower and upper bound of every model input: a numeric or ordinal feature's schema
// min/max where given, else the data's range; 0 and 1 for a one-hot input. The pixels of an image
// (Schema.Image) share one range where they give none of their own: the image's min and max, else the
// smallest and largest pixel of the data (a pixel that is dark in every row may still change).
func (t *Table) Bounds() (lo, hi []float32) {
	lo, hi = t.Data.Bounds()
	if t.Schema.Image != nil {
		a, b := t.ImageRange()
		for j := range lo {
			lo[j], hi[j] = a, b
		}
	}
	for i, o := range t.Schema.Offsets() {
		f := t.Schema.Features[i]
		if f.Type == Categorical {
			for j := range f.Width() {
				lo[o+j], hi[o+j] = 0, 1
			}
			continue
		}
		if f.Min != nil {
			lo[o] = float32(*f.Min)
		}
		if f.Max != nil {
			hi[o] = float32(*f.Max)
		}
	}
	return lo, hi
}

// RowColumn is the column of a counterfactual CSV that holds the factual's data row (ReadRows).
const RowColumn = "row"

// ReadRows reads rows written in a CSV's own columns and units, such as another tool's counterfactuals:
// every feature column of s (categories and levels by name), and the column "row" with the 0-based data
// row of the table each one belongs to (its factual). Other columns are ignored. Errors wrap ErrSchema
// and name the line, the row and the column, as ReadTable's do.
func ReadRows(path string, s *Schema) (x []float32, rows []int, err error) {
	rr, err := ReadRowsColumn(path, s, "")
	if err != nil {
		return nil, nil, err
	}
	return rr.X, rr.Rows, nil
}

// RowsRead are the rows ReadRowsColumn reads.
type RowsRead struct {
	// X and Rows are ReadRows's: the model inputs (len(Rows)·Width values) and each row's data row.
	X    []float32
	Rows []int
	// Lines holds each row's line in the file (the header is line 1).
	Lines []int
	// Column holds each row's value of the column asked for (trimmed), nil where the file has no such
	// column.
	Column []string
}

// ReadRowsColumn is ReadRows that also returns each row's line and its value of one more column (such
// as the "target" that 'eccco explain' writes), when the file has it.
func ReadRowsColumn(path string, s *Schema, column string) (*RowsRead, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading counterfactuals: %w", err)
	}
	defer f.Close()
	rr, err := readRowsColumn(f, s, column)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rr, nil
}

func readRows(r io.Reader, s *Schema) (x []float32, rows []int, err error) {
	x, rows, _, _, err = readRowsCol(r, s, "")
	return x, rows, err
}

func readRowsColumn(r io.Reader, s *Schema, column string) (*RowsRead, error) {
	x, rows, lines, vals, err := readRowsCol(r, s, column)
	if err != nil {
		return nil, err
	}
	return &RowsRead{X: x, Rows: rows, Lines: lines, Column: vals}, nil
}

func readRowsCol(r io.Reader, s *Schema, column string) (x []float32, rows, lines []int, vals []string, err error) {
	if err := s.Validate(); err != nil {
		return nil, nil, nil, nil, err
	}
	c, err := newCSVRows(r)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cols, err := featureColumns(c, s)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	rcol, err := c.column(RowColumn, "the factual's data row")
	if err != nil {
		return nil, nil, nil, nil, err
	}
	vcol, hasCol := c.col[column]
	hasCol = hasCol && column != ""
	offs := s.Offsets()
	row := make([]float32, s.Width())
	for n := 0; ; n++ {
		rec, line, err := c.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if err := s.encodeRecord(rec, cols, offs, row); err != nil {
			return nil, nil, nil, nil, markf(ErrSchema, "line %d (row %d), %w", line, n, err)
		}
		v, perr := strconv.Atoi(strings.TrimSpace(rec[rcol]))
		if perr != nil || v < 0 {
			return nil, nil, nil, nil, markf(ErrSchema, "line %d (row %d), column %q: %q is not a data row number", line, n, RowColumn, rec[rcol])
		}
		x = append(x, row...)
		rows = append(rows, v)
		lines = append(lines, line)
		if hasCol {
			vals = append(vals, strings.TrimSpace(rec[vcol]))
		}
	}
	if len(rows) == 0 {
		return nil, nil, nil, nil, markf(ErrSchema, "no rows after the header")
	}
	return x, rows, lines, vals, nil
}

// Violation is a constraint of the schema that a counterfactual breaks.
type Violation struct {
	Feature string
	// Kind is "category" (a one-hot group not exactly one 1 and zeros), "level" (an ordinal input not a
	// level index), "immutable", "increase", "decrease" or "range".
	Kind   string
	Detail string
}

func (v Violation) String() string { return v.Feature + ": " + v.Kind + " (" + v.Detail + ")" }

// Violations lists the constraints that counterfactual cf breaks for its factual (both D model inputs):
// a one-hot group that is not exactly one category, an ordinal input that is not a level index, a change
// to an immutable feature, an increase-only feature decreased (or the reverse), and a value outside
// [lo, hi] (Table.Bounds). tol is the slack of the comparisons (0: exact).
func (s *Schema) Violations(factual, cf, lo, hi []float32, tol float64) []Violation {
	var out []Violation
	add := func(f SchemaFeature, kind, format string, args ...any) {
		out = append(out, Violation{Feature: f.Name, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	for i, o := range s.Offsets() {
		f := s.Features[i]
		w := f.Width()
		x, x0 := cf[o:o+w], factual[o:o+w]
		if f.Type == Categorical {
			ones := 0
			for _, v := range x {
				switch {
				case math.Abs(float64(v)-1) <= tol:
					ones++
				case math.Abs(float64(v)) > tol:
					ones = -len(x)
				}
			}
			if ones != 1 {
				add(f, "category", "one-hot inputs %v are not one category", x)
				continue
			}
		}
		if f.Type == Ordinal && math.Abs(float64(x[0])-math.Round(float64(x[0]))) > tol {
			add(f, "level", "%v is not a level index", x[0])
		}
		changed := false
		for j := range x {
			d := float64(x[j]) - float64(x0[j])
			changed = changed || math.Abs(d) > tol
			switch m := f.Mutability(); {
			case m == MutableIncrease && d < -tol:
				add(f, "increase", "%v < factual's %v", x[j], x0[j])
			case m == MutableDecrease && d > tol:
				add(f, "decrease", "%v > factual's %v", x[j], x0[j])
			}
			if lo != nil && (float64(x[j]) < float64(lo[o+j])-tol || float64(x[j]) > float64(hi[o+j])+tol) {
				add(f, "range", "%v outside [%v, %v]", x[j], lo[o+j], hi[o+j])
			}
		}
		if changed && f.Mutability() == MutableNone {
			add(f, "immutable", "changed from %v to %v", x0, x)
		}
	}
	return out
}

// ParseRows reads a list of data rows: comma-separated 0-based indices and inclusive ranges A-B
// ("0,3,10-12" is 0, 3, 10, 11, 12), each below n. An empty spec, a malformed item, a reversed range or
// a row ≥ n is an error wrapping ErrInvalidOption.
func ParseRows(spec string, n int) ([]int, error) {
	var out []int
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		a, b, isRange := strings.Cut(item, "-")
		lo, err1 := strconv.Atoi(strings.TrimSpace(a))
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(strings.TrimSpace(b))
		}
		switch {
		case item == "" || err1 != nil || err2 != nil || lo < 0:
			return nil, markf(ErrInvalidOption, "rows %q: %q is not a row number or a range A-B", spec, item)
		case hi < lo:
			return nil, markf(ErrInvalidOption, "rows %q: range %q runs backwards", spec, item)
		case hi >= n:
			return nil, markf(ErrInvalidOption, "rows %q: row %d does not exist (the data has rows 0 … %d)", spec, hi, n-1)
		}
		for r := lo; r <= hi; r++ {
			out = append(out, r)
		}
	}
	return out, nil
}

// ImageRange is the pixels' common range of an image schema (see Bounds): the image's min and max where
// given, else the smallest and largest value of the data. Without Schema.Image it is the whole data's
// range too.
func (t *Table) ImageRange() (lo, hi float32) {
	if len(t.Data.X) > 0 {
		lo, hi = slices.Min(t.Data.X), slices.Max(t.Data.X)
	}
	if m := t.Schema.Image; m != nil {
		if m.Min != nil {
			lo = float32(*m.Min)
		}
		if m.Max != nil {
			hi = float32(*m.Max)
		}
	}
	return lo, hi
}

// imageInRange refuses a pixel outside the image's declared min and max (such as 255 where the schema
// says 0 … 1), naming its line and column.
func imageInRange(s *Schema, x []float32, lines []int) error {
	m, d := s.Image, s.Width()
	for i, v := range x {
		if (m.Min != nil && float64(v) < *m.Min) || (m.Max != nil && float64(v) > *m.Max) {
			r := i / d
			where := fmt.Sprintf("data row %d", r)
			if r < len(lines) {
				where = fmt.Sprintf("line %d (data row %d)", lines[r], r)
			}
			lo, hi := "-∞", "∞"
			if m.Min != nil {
				lo = strconv.FormatFloat(*m.Min, 'g', -1, 64)
			}
			if m.Max != nil {
				hi = strconv.FormatFloat(*m.Max, 'g', -1, 64)
			}
			return markf(ErrSchema, "%s, column %q: pixel %v is outside the image's range %s … %s (the schema's \"image\" \"min\" and \"max\")",
				where, s.Features[i%d].Name, v, lo, hi)
		}
	}
	return nil
}
