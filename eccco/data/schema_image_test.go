package data

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 2 × 3 image in columns p1 … p6 (first 1), written out by hand: the names, the order and the bounds
// come from the schema's text, not from the code that expands it.
func TestSchemaImagePrefix(t *testing.T) {
	s := mustSchema(t, `{"target": "digit", "image": {"height": 2, "width": 3, "prefix": "p", "first": 1, "min": 0, "max": 1}}`)
	want := "p1 p2 p3 p4 p5 p6"
	if got := strings.Join(s.Columns(), " "); got != want {
		t.Fatalf("Columns = %q, want %q", got, want)
	}
	for _, f := range s.Features {
		if f.Type != Numeric || f.Mutability() != MutableBoth {
			t.Fatalf("pixel %+v: want a free numeric feature", f)
		}
	}
	if s.Width() != 6 {
		t.Fatalf("Width = %d, want 6", s.Width())
	}
}

func TestSchemaImageErrors(t *testing.T) {
	px := func(n int) string {
		var f []string
		for i := range n {
			f = append(f, fmt.Sprintf(`{"name": "x%d", "type": "numeric"}`, i))
		}
		return strings.Join(f, ", ")
	}
	cases := map[string]struct{ js, want string }{
		"no height":         {`{"target": "y", "image": {"width": 3, "prefix": "p"}}`, `"height" 0 and "width" 3 must both be at least 1`},
		"negative width":    {`{"target": "y", "image": {"height": 2, "width": -3, "prefix": "p"}}`, "at least 1"},
		"one pixel":         {`{"target": "y", "image": {"height": 1, "width": 1, "prefix": "p"}}`, "1 × 1 pixels; an image has 2"},
		"huge":              {`{"target": "y", "image": {"height": 100000, "width": 100000, "prefix": "p"}}`, "100000 × 100000 pixels"},
		"negative first":    {`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p", "first": -1}}`, `"first" -1`},
		"min not below max": {`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p", "min": 1, "max": 1}}`, `"min" 1 must be below "max" 1`},
		"prefix and list":   {`{"target": "y", "image": {"height": 1, "width": 2, "prefix": "p"}, "features": [` + px(2) + `]}`, `give one of the two`},
		"count":             {`{"target": "y", "image": {"height": 28, "width": 28}, "features": [` + px(783) + `]}`, `28 × 28 = 784 pixels and the schema has 783 features`},
		"categorical pixel": {`{"target": "y", "image": {"height": 1, "width": 2}, "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "categorical", "categories": ["u", "v"]}]}`, `feature "b" is categorical; the pixels of an "image" are all numeric`},
		"no features":       {`{"target": "y", "image": {"height": 2, "width": 2}}`, `"prefix" names its pixel columns instead`},
		"pixel is target":   {`{"target": "p0", "image": {"height": 1, "width": 2, "prefix": "p"}}`, `feature "p0" is the target column`},
		"unknown key":       {`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p", "channels": 3}}`, `unknown field "channels"`},
	}
	for name, c := range cases {
		_, err := ParseSchema([]byte(c.js))
		if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrSchema containing %q", name, err, c.want)
		}
	}
}

// An image's pixels listed one by one (all numeric, H·W of them) are accepted too.
func TestSchemaImageListed(t *testing.T) {
	s := mustSchema(t, `{"target": "y", "image": {"height": 1, "width": 2}, "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "numeric", "mutable": false}]}`)
	if s.Image.Pixels() != 2 || s.Features[1].Mutability() != MutableNone {
		t.Fatalf("schema %+v", s)
	}
}

func writeImageFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The pixels share one range: the image's min and max, or without them the smallest and largest pixel of
// the whole table, not each column's own range (p0 is 0 in every row here, yet may brighten).
func TestImageTableBounds(t *testing.T) {
	csv := "p0,p1,p2,p3,y\n0,0.5,0.25,0.75,a\n0,0.125,1,0.5,b\n"
	for _, c := range []struct {
		js     string
		lo, hi float32
	}{
		{`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p", "min": 0, "max": 1}}`, 0, 1},
		{`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p"}}`, 0, 1},
		{`{"target": "y", "image": {"height": 2, "width": 2, "prefix": "p", "min": -1, "max": 2}}`, -1, 2},
	} {
		tb, err := ReadTable(writeImageFile(t, "d.csv", csv), mustSchema(t, c.js))
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := tb.Bounds()
		for j := range lo {
			if lo[j] != c.lo || hi[j] != c.hi {
				t.Fatalf("%s: pixel %d bounds [%v, %v], want [%v, %v]", c.js, j, lo[j], hi[j], c.lo, c.hi)
			}
		}
		if im := tb.Data.Image; im == nil || im.Height != 2 || im.Width != 2 || im.Channels != 1 {
			t.Fatalf("Data.Image = %+v, want 2 × 2 × 1", im)
		}
	}
	// A pixel's own bounds win over the image's.
	tb, err := ReadTable(writeImageFile(t, "d.csv", "a,b,y\n0.5,0.5,u\n0.25,0.75,v\n"),
		mustSchema(t, `{"target": "y", "image": {"height": 1, "width": 2, "min": 0, "max": 1}, "features": [{"name": "a", "type": "numeric", "max": 0.5}, {"name": "b", "type": "numeric"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := tb.Bounds(); lo[0] != 0 || hi[0] != 0.5 || lo[1] != 0 || hi[1] != 1 {
		t.Fatalf("Bounds = %v, %v; want [0, 0.5] and [0, 1]", lo, hi)
	}
}

// A pixel outside the declared range (0 … 255 data, a 0 … 1 schema) is refused with its line and column.
func TestImageTableOutOfRange(t *testing.T) {
	p := writeImageFile(t, "digits.csv", "p0,p1,y\n0,1,a\n0,255,b\n")
	_, err := ReadTable(p, mustSchema(t, `{"target": "y", "image": {"height": 1, "width": 2, "prefix": "p", "min": 0, "max": 1}}`))
	want := `line 3 (data row 1), column "p1": pixel 255 is outside the image's range 0 … 1`
	if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "digits.csv") {
		t.Fatalf("err = %v, want ErrSchema naming digits.csv and %q", err, want)
	}
}
