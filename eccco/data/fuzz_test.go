package data

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The fuzz targets below feed what a user gives `eccco explain --data D.csv --schema S.json` and
// `eccco score`: the schema's JSON (ParseSchema) and the CSVs read with it (readTable, readRowsColumn).
// Their seeds are the repository's real inputs (examples/onnx-credit, examples/onnx-mnist) and this
// package's test schemas, cut to a few rows; `go test` runs the seeds alone, in well under a second. To
// fuzz: go test -run '^$' -fuzz FuzzReadTable -fuzztime 45s ./eccco/data (likewise FuzzParseSchema and
// FuzzReadRows). A crasher found is kept under testdata/fuzz/<target>/ and then runs with every `go test`.

// fuzzMaxPixels bounds the images the fuzz targets build: ParseSchema allows 4096 × 4096 pixels (a
// schema feature each), which would make every such input take seconds and gigabytes, not find more.
const fuzzMaxPixels = 1 << 12

// fuzzSeedFile reads a file of the repository for a seed, its first maxLines lines where maxLines > 0.
func fuzzSeedFile(f *testing.F, path string, maxLines int) string {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatalf("seed: %v", err)
	}
	s := string(b)
	if maxLines > 0 {
		lines := strings.SplitAfter(s, "\n")
		s = strings.Join(lines[:min(maxLines, len(lines))], "")
	}
	return s
}

// fuzzImageSchema is a 2 × 2 image schema with its pixel columns named by a prefix, and a CSV for it.
const (
	fuzzImageSchema = `{"target": "label", "classes": ["0", "1"], "image": {"height": 2, "width": 2, "prefix": "p", "min": 0, "max": 1}}`
	fuzzImageCSV    = "label,p0,p1,p2,p3\n0,0,0.5,1,0\n1,1,1,0.25,0\n"
	fuzzTestCSV     = "age,color,size,born,debt,y\n30,red,S,here,10,no\n41,blue,M,there,0,yes\n\"29\",\"green\",L,here,99.5,no\n"
)

// fuzzSchemaSeeds are schemas a user writes, valid and not.
func fuzzSchemaSeeds(f *testing.F) []string {
	return []string{
		fuzzSeedFile(f, "../../examples/onnx-credit/schema.json", 0),
		fuzzSeedFile(f, "../../examples/onnx-mnist/schema.json", 0),
		testSchema,
		fuzzImageSchema,
		`{"target": "y", "features": [{"name": "a", "type": "numeric", "min": -1, "max": 1e300}]}`,
		`{"target": "y", "features": [{"name": "a", "type": "numeric"}]} {}`,
		`{"target": "y", "image": {"height": 1, "width": 3, "prefix": "x", "first": 1}}`,
		"\ufeff{\"target\": \"y\", \"features\": [{\"name\": \"a\", \"type\": \"ordinal\", \"levels\": [\"lo\", \"hi\"], \"max\": 1, \"mutable\": true}]}",
	}
}

// smallEnough reports whether schema JSON asks for an image of at most fuzzMaxPixels pixels (or none).
func smallEnough(b []byte) bool {
	var s struct {
		Image *struct{ Height, Width int }
	}
	if json.Unmarshal(bytes.TrimPrefix(b, []byte("\ufeff")), &s) != nil || s.Image == nil {
		return true
	}
	h, w := s.Image.Height, s.Image.Width
	return h <= 0 || w <= 0 || h <= fuzzMaxPixels/w
}

// FuzzParseSchema: ParseSchema never panics; every error wraps ErrSchema; a schema it accepts is valid,
// its layout is consistent (Width, Columns, Offsets, OneHotGroups and InputMutability agree), and written
// back as JSON it parses to the same schema.
func FuzzParseSchema(f *testing.F) {
	for _, s := range fuzzSchemaSeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !smallEnough(b) {
			t.Skip("image beyond fuzzMaxPixels")
		}
		s, err := ParseSchema(b)
		if err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("error does not wrap ErrSchema: %v", err)
			}
			return
		}
		checkSchemaLayout(t, s)
		back := *s
		if back.Image != nil && back.Image.Prefix != "" {
			back.Features = nil // ParseSchema makes them from the prefix
		}
		js, err := json.Marshal(&back)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		s2, err := ParseSchema(js)
		if err != nil {
			t.Fatalf("the schema written back does not parse: %v\n%s", err, js)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Fatalf("round trip changed the schema:\n%+v\n%+v\n%s", s, s2, js)
		}
	})
}

// checkSchemaLayout checks that a valid schema's views of its model inputs agree.
func checkSchemaLayout(t *testing.T, s *Schema) {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatalf("ParseSchema accepted a schema Validate refuses: %v", err)
	}
	w := s.Width()
	if len(s.Columns()) != w || len(s.InputMutability()) != w || len(s.Offsets()) != len(s.Features) {
		t.Fatalf("Width %d, %d columns, %d mutabilities, %d offsets for %d features", w, len(s.Columns()), len(s.InputMutability()), len(s.Offsets()), len(s.Features))
	}
	next := 0
	for i, o := range s.Offsets() {
		if o != next {
			t.Fatalf("feature %d at offset %d, want %d", i, o, next)
		}
		next += s.Features[i].Width()
	}
	if next != w {
		t.Fatalf("the features' widths sum to %d, Width is %d", next, w)
	}
	for _, g := range s.OneHotGroups() {
		if len(g) < 2 || g[0] < 0 || g[len(g)-1] >= w {
			t.Fatalf("one-hot group %v of %d inputs", g, w)
		}
	}
}

// fuzzTableSeeds pairs each seed schema with a CSV it reads (or refuses).
func fuzzTableSeeds(f *testing.F) [][2]string {
	credit := fuzzSeedFile(f, "../../examples/onnx-credit/schema.json", 0)
	creditCSV := fuzzSeedFile(f, "../../examples/onnx-credit/credit.csv", 12)
	return [][2]string{
		{credit, creditCSV},
		{credit, strings.ReplaceAll(creditCSV, ",18,", ",NaN,")},
		{credit, "\ufeff" + strings.ReplaceAll(creditCSV, "\n", "\r\n")},
		{testSchema, fuzzTestCSV},
		{testSchema, "age,color,size,born,debt,y\n30,red,S,here,10\n"},
		{testSchema, "age,color,size,born,debt,y\n1e39,red,S,here,10,no\n"},
		{fuzzImageSchema, fuzzImageCSV},
		{fuzzImageSchema, "label,p0,p1,p2,p3\n0,0,0.5,255,0\n"},
		{`{"target": "y", "features": [{"name": "a", "type": "numeric"}]}`, "a,y\n1,3\n2,10\n-0,3\n"},
	}
}

// FuzzReadTable: the reader of `eccco explain --data D.csv --schema S.json` never panics and its errors
// wrap ErrSchema. A table it reads has one label and D = Schema.Width() inputs per row, each finite,
// one-hot groups of one 1, level indices among the levels, labels among the classes; and its rows written
// back in the CSV's own terms (Schema.DecodeRow) read to the same inputs and labels.
func FuzzReadTable(f *testing.F) {
	for _, p := range fuzzTableSeeds(f) {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, csvText []byte) {
		if !smallEnough(schemaJSON) {
			t.Skip("image beyond fuzzMaxPixels")
		}
		s, err := ParseSchema(schemaJSON)
		if err != nil {
			return
		}
		tab, err := readTable(bytes.NewReader(csvText), s, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("error does not wrap ErrSchema: %v", err)
			}
			return
		}
		d, w := tab.Data, s.Width()
		n := len(d.Y)
		if n == 0 || len(d.X) != n*w || len(tab.Lines) != n || len(d.FeatureNames) != w || len(d.ClassNames) < 2 {
			t.Fatalf("%d labels, %d inputs of width %d, %d lines, %d names, classes %q", n, len(d.X), w, len(tab.Lines), len(d.FeatureNames), d.ClassNames)
		}
		for r := range n {
			checkRow(t, s, d.X[r*w:(r+1)*w])
			if d.Y[r] < 0 || d.Y[r] >= len(d.ClassNames) {
				t.Fatalf("row %d: label %d of %d classes", r, d.Y[r], len(d.ClassNames))
			}
		}
		lo, hi := tab.Bounds()
		if len(lo) != w || len(hi) != w {
			t.Fatalf("bounds of %d and %d inputs, want %d", len(lo), len(hi), w)
		}
		// Written back: the features by DecodeRow, the label by its class name.
		var buf bytes.Buffer
		cw := csv.NewWriter(&buf)
		header := make([]string, 0, len(s.Features)+1)
		for _, f := range s.Features {
			header = append(header, f.Name)
		}
		must(t, cw.Write(append(header, s.Target)))
		for r := range n {
			must(t, cw.Write(append(s.DecodeRow(d.X[r*w:(r+1)*w]), d.ClassNames[d.Y[r]])))
		}
		cw.Flush()
		again, err := readTable(&buf, s, "fuzz")
		if err != nil {
			t.Fatalf("the table written back does not read: %v\n%s", err, buf.Bytes())
		}
		if !slices.Equal(again.Data.X, d.X) || !slices.Equal(again.Data.Y, d.Y) || !slices.Equal(again.Data.ClassNames, d.ClassNames) {
			t.Fatalf("the table written back reads otherwise:\n%v %v %q\n%v %v %q", d.X, d.Y, d.ClassNames, again.Data.X, again.Data.Y, again.Data.ClassNames)
		}
	})
}

// checkRow checks one row of model inputs against the schema: finite, one-hot groups of exactly one 1,
// level indices among the levels.
func checkRow(t *testing.T, s *Schema, x []float32) {
	t.Helper()
	for i, o := range s.Offsets() {
		f := s.Features[i]
		v := x[o : o+f.Width()]
		for _, e := range v {
			if math.IsNaN(float64(e)) || math.IsInf(float64(e), 0) {
				t.Fatalf("feature %q: input %v is not finite", f.Name, e)
			}
		}
		switch f.Type {
		case Categorical:
			ones, zeros := 0, 0
			for _, e := range v {
				switch e {
				case 1:
					ones++
				case 0:
					zeros++
				}
			}
			if ones != 1 || zeros != len(v)-1 {
				t.Fatalf("feature %q: one-hot inputs %v", f.Name, v)
			}
		case Ordinal:
			if v[0] != float32(int(v[0])) || v[0] < 0 || int(v[0]) >= len(f.Levels) {
				t.Fatalf("feature %q: level index %v of %d levels", f.Name, v[0], len(f.Levels))
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzReadRows: the reader of `eccco score --counterfactuals CF.csv` never panics and its errors wrap
// ErrSchema; rows it reads have D inputs each (checked as FuzzReadTable's), a data row number ≥ 0, a
// line, and the asked column's value where the file has that column.
func FuzzReadRows(f *testing.F) {
	credit := fuzzSeedFile(f, "../../examples/onnx-credit/schema.json", 0)
	creditCSV := fuzzSeedFile(f, "../../examples/onnx-credit/credit.csv", 8)
	lines := strings.Split(strings.TrimSpace(creditCSV), "\n")
	cf := "row," + lines[0] + ",target\n"
	for i, l := range lines[1:] {
		cf += strconv.Itoa(i) + "," + l + ",bad\n"
	}
	for _, p := range [][2]string{
		{credit, cf},
		{credit, strings.Replace(cf, "\n0,", "\n-1,", 1)},
		{testSchema, "row,age,color,size,born,debt\n3,30,red,S,here,10\n 0 ,41,blue,M,there,0\n"},
		{fuzzImageSchema, "row,p0,p1,p2,p3,target\n1,0,0.5,1,0,1\n"},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, schemaJSON, csvText []byte) {
		if !smallEnough(schemaJSON) {
			t.Skip("image beyond fuzzMaxPixels")
		}
		s, err := ParseSchema(schemaJSON)
		if err != nil {
			return
		}
		hasTarget := false
		if c, err := newCSVRows(bytes.NewReader(csvText)); err == nil {
			_, hasTarget = c.col["target"]
		}
		rr, err := readRowsColumn(bytes.NewReader(csvText), s, "target")
		if err != nil {
			if !errors.Is(err, ErrSchema) {
				t.Fatalf("error does not wrap ErrSchema: %v", err)
			}
			return
		}
		w, n := s.Width(), len(rr.Rows)
		if n == 0 || len(rr.X) != n*w || len(rr.Lines) != n || (hasTarget && len(rr.Column) != n) || (!hasTarget && rr.Column != nil) {
			t.Fatalf("%d rows, %d inputs of width %d, %d lines, %d column values (the file has the column: %v)", n, len(rr.X), w, len(rr.Lines), len(rr.Column), hasTarget)
		}
		for r, row := range rr.Rows {
			if row < 0 {
				t.Fatalf("row %d: data row %d", r, row)
			}
			checkRow(t, s, rr.X[r*w:(r+1)*w])
		}
	})
}
