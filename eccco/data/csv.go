package data

import (
	"bufio"
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

// CSVSpec says how ReadCSV turns a CSV file into a Dataset. The zero value reads a binary data set whose
// label column is called "target".
type CSVSpec struct {
	// Name is recorded as Dataset.Name; "" means the file's base name without extension.
	Name string
	// Target is the name of the label column; "" means "target". Every other column is a feature.
	Target string
	// ClassNames name the labels 0, 1, …, K−1; nil means {"0", "1"}. Every label must be an integral
	// number in [0, K) (written "1" or "1.0", say).
	ClassNames []string
	// Features, when not nil, are the feature columns the header must hold, in this order (the target
	// column may sit anywhere). A header that differs is an error.
	Features []string
}

// ReadCSV reads a labelled data set from a comma-separated file with a header line. Every field other
// than the target must be a finite number; the target must be an integral class label (see CSVSpec).
// Errors name the file, the line and the column: a row with the wrong number of fields, a field that is
// not a number, NaN or ±Inf, a label outside [0, K), an empty file or a file with a header only.
func ReadCSV(path string, spec CSVSpec) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	defer f.Close()
	if spec.Name == "" {
		spec.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	d, err := readCSV(f, spec)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", path, err)
	}
	return d, nil
}

func readCSV(r io.Reader, spec CSVSpec) (*Dataset, error) {
	target := spec.Target
	if target == "" {
		target = "target"
	}
	classes := spec.ClassNames
	if classes == nil {
		classes = binaryNames
	}
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<16))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("empty file: expected a header line")
	}
	if err != nil {
		return nil, csvError(err)
	}
	header = append([]string(nil), header...)
	tcol := -1
	var features []string
	for j, h := range header {
		h = strings.TrimSpace(h)
		if j == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		header[j] = h
		if h == target && tcol < 0 {
			tcol = j
		} else {
			features = append(features, h)
		}
	}
	if tcol < 0 {
		return nil, fmt.Errorf("line 1: no column named %q in the header (%s)", target, strings.Join(header, ","))
	}
	if len(features) == 0 {
		return nil, fmt.Errorf("line 1: the header has no feature columns besides %q", target)
	}
	if spec.Features != nil && !slices.Equal(features, spec.Features) {
		return nil, fmt.Errorf("line 1: feature columns are [%s], expected [%s]",
			strings.Join(features, ", "), strings.Join(spec.Features, ", "))
	}
	D := len(features)
	d := &Dataset{Name: spec.Name, FeatureNames: features, ClassNames: classes}
	err = forEachRecord(cr, fmt.Sprintf("but the header has %d", len(header)), func(rec []string, line int) error {
		for j, field := range rec {
			field = strings.TrimSpace(field)
			col := header[j]
			v, err := strconv.ParseFloat(field, 64)
			if err != nil {
				return fmt.Errorf("line %d, column %d (%q): %q is not a number", line, j+1, col, field)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("line %d, column %d (%q): %q is not finite (NaN and Inf are not allowed)", line, j+1, col, field)
			}
			if j == tcol {
				if v != math.Trunc(v) || v < 0 || v >= float64(len(classes)) {
					return fmt.Errorf("line %d, column %d (%q): label %q is not one of the integers 0..%d", line, j+1, col, field, len(classes)-1)
				}
				d.Y = append(d.Y, int(v))
				continue
			}
			if math.Abs(v) > math.MaxFloat32 {
				return fmt.Errorf("line %d, column %d (%q): %q is outside the float32 range", line, j+1, col, field)
			}
			d.X = append(d.X, float32(v))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if d.N() == 0 {
		return nil, errors.New("no data rows after the header")
	}
	if len(d.X) != d.N()*D {
		return nil, fmt.Errorf("internal error: read %d values for %d rows of %d features", len(d.X), d.N(), D)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// csvError turns encoding/csv's syntax errors into messages that lead with the line number.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d, column %d: %w", pe.Line, pe.Column, pe.Err)
	}
	return err
}

// forEachRecord calls fn with each remaining record of cr and the line it starts on, stopping at the
// first error. A record with the wrong number of fields is reported as "line L: N fields, <want>".
func forEachRecord(cr *csv.Reader, want string, fn func(rec []string, line int) error) error {
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return fmt.Errorf("line %d: %d fields, %s", pe.StartLine, len(rec), want)
			}
			return csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if err := fn(rec, line); err != nil {
			return err
		}
	}
}
