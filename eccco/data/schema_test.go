package data

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const testSchema = `{"target": "y", "classes": ["no", "yes"], "features": [
 {"name": "age", "type": "numeric", "mutable": "increase"},
 {"name": "color", "type": "categorical", "categories": ["red", "green", "blue"]},
 {"name": "size", "type": "ordinal", "levels": ["S", "M", "L"], "max": 1},
 {"name": "born", "type": "categorical", "categories": ["here", "there"], "mutable": false},
 {"name": "debt", "type": "numeric", "min": 0, "max": 100, "mutable": "decrease"}]}`

func mustSchema(t *testing.T, js string) *Schema {
	t.Helper()
	s, err := ParseSchema([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaLayout(t *testing.T) {
	s := mustSchema(t, testSchema)
	if s.Width() != 1+3+1+2+1 {
		t.Fatalf("Width = %d, want 8", s.Width())
	}
	want := []string{"age", "color=red", "color=green", "color=blue", "size", "born=here", "born=there", "debt"}
	if got := s.Columns(); !slices.Equal(got, want) {
		t.Fatalf("Columns = %q, want %q", got, want)
	}
	if got := s.OneHotGroups(); len(got) != 2 || !slices.Equal(got[0], []int{1, 2, 3}) || !slices.Equal(got[1], []int{5, 6}) {
		t.Fatalf("OneHotGroups = %v", got)
	}
	m := s.InputMutability()
	if m[0] != MutableIncrease || m[1] != MutableBoth || m[5] != MutableNone || m[6] != MutableNone || m[7] != MutableDecrease {
		t.Fatalf("InputMutability = %v", m)
	}
}

func TestSchemaErrors(t *testing.T) {
	cases := map[string]struct{ js, want string }{
		"not json":           {`{"target": `, "not a valid schema"},
		"unknown key":        {`{"target": "y", "features": [{"name": "a", "type": "numeric", "colour": 1}]}`, "unknown field"},
		"trailing data":      {`{"target": "y", "features": [{"name": "a", "type": "numeric"}]} {}`, "data after"},
		"no target":          {`{"features": [{"name": "a", "type": "numeric"}]}`, "target"},
		"no features":        {`{"target": "y"}`, "features"},
		"unnamed":            {`{"target": "y", "features": [{"type": "numeric"}]}`, "feature 0 has no name"},
		"twice":              {`{"target": "y", "features": [{"name": "a", "type": "numeric"}, {"name": "a", "type": "numeric"}]}`, "listed twice"},
		"is target":          {`{"target": "a", "features": [{"name": "a", "type": "numeric"}]}`, "is the target"},
		"no type":            {`{"target": "y", "features": [{"name": "a"}]}`, "no \"type\""},
		"bad type":           {`{"target": "y", "features": [{"name": "a", "type": "text"}]}`, "unknown type"},
		"one category":       {`{"target": "y", "features": [{"name": "a", "type": "categorical", "categories": ["x"]}]}`, "at least 2 categories"},
		"repeated category":  {`{"target": "y", "features": [{"name": "a", "type": "categorical", "categories": ["x", "x"]}]}`, "category \"x\" is listed twice"},
		"levels on category": {`{"target": "y", "features": [{"name": "a", "type": "categorical", "levels": ["x", "z"]}]}`, "not \"levels\""},
		"categories numeric": {`{"target": "y", "features": [{"name": "a", "type": "numeric", "categories": ["x", "z"]}]}`, "no categories"},
		"bounds on category": {`{"target": "y", "features": [{"name": "a", "type": "categorical", "categories": ["x", "z"], "min": 0}]}`, "no min or max"},
		"increase category":  {`{"target": "y", "features": [{"name": "a", "type": "categorical", "categories": ["x", "z"], "mutable": "increase"}]}`, "cannot be \"increase\"-only"},
		"min above max":      {`{"target": "y", "features": [{"name": "a", "type": "numeric", "min": 2, "max": 1}]}`, "min 2 > max 1"},
		"bad mutable":        {`{"target": "y", "features": [{"name": "a", "type": "numeric", "mutable": "sideways"}]}`, "mutable is \"sideways\""},
		"one level":          {`{"target": "y", "features": [{"name": "a", "type": "ordinal", "levels": ["x"]}]}`, "at least 2 levels"},
		"ordinal bound":      {`{"target": "y", "features": [{"name": "a", "type": "ordinal", "levels": ["x", "z"], "max": 2}]}`, "not a level index"},
		"one class":          {`{"target": "y", "classes": ["a"], "features": [{"name": "a", "type": "numeric"}]}`, "at least 2"},
		"repeated class":     {`{"target": "y", "classes": ["a", "a"], "features": [{"name": "b", "type": "numeric"}]}`, "class \"a\" is listed twice"},
	}
	for name, c := range cases {
		_, err := ParseSchema([]byte(c.js))
		if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrSchema containing %q", name, err, c.want)
		}
	}
	if _, err := ReadSchema(filepath.Join(t.TempDir(), "none.json")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestReadTable(t *testing.T) {
	s := mustSchema(t, testSchema)
	csv := "id,y,age,color,size,born,debt\n7,yes,30,green,M,here,12.5\n8,no,41,red,S,there,0\n9,yes,25,blue,S,here,50\n"
	tb, err := readTable(strings.NewReader(csv), s, "t")
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 by hand: age 30; color green → 0 1 0; size M → 1; born here → 1 0; debt 12.5.
	if got, want := tb.Data.Row(0), []float32{30, 0, 1, 0, 1, 1, 0, 12.5}; !slices.Equal(got, want) {
		t.Fatalf("row 0 = %v, want %v", got, want)
	}
	if !slices.Equal(tb.Data.Y, []int{1, 0, 1}) || !slices.Equal(tb.Data.ClassNames, []string{"no", "yes"}) {
		t.Fatalf("labels %v classes %v", tb.Data.Y, tb.Data.ClassNames)
	}
	lo, hi := tb.Bounds()
	// age: the data's range; one-hot: [0, 1]; size: data min 0, schema max 1; debt: the schema's [0, 100].
	if want := []float32{25, 0, 0, 0, 0, 0, 0, 0}; !slices.Equal(lo, want) {
		t.Errorf("lower = %v, want %v", lo, want)
	}
	if want := []float32{41, 1, 1, 1, 1, 1, 1, 100}; !slices.Equal(hi, want) {
		t.Errorf("upper = %v, want %v", hi, want)
	}
	if got, want := s.DecodeRow([]float32{30, 0.2, 0.9, 0.1, 1.4, 1, 0, 12.5}), []string{"30", "green", "M", "here", "12.5"}; !slices.Equal(got, want) {
		t.Errorf("DecodeRow = %q, want %q", got, want)
	}
}

func TestReadTableSortedClasses(t *testing.T) {
	s := mustSchema(t, `{"target": "y", "features": [{"name": "a", "type": "numeric"}]}`)
	tb, err := readTable(strings.NewReader("a,y\n1,10\n2,9\n3,10\n"), s, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tb.Data.ClassNames, []string{"9", "10"}) || !slices.Equal(tb.Data.Y, []int{1, 0, 1}) {
		t.Fatalf("classes %v labels %v, want numeric order 9, 10", tb.Data.ClassNames, tb.Data.Y)
	}
}

func TestReadTableErrors(t *testing.T) {
	s := mustSchema(t, testSchema)
	head := "y,age,color,size,born,debt\n"
	good := "yes,30,green,M,here,1\n"
	cases := map[string]struct{ csv, want string }{
		"empty":            {"", "empty file"},
		"header only":      {head, "no data rows"},
		"missing column":   {"y,age,color,size,born\nyes,30,green,M,here\n", `no column "debt"`},
		"missing target":   {"age,color,size,born,debt\n30,green,M,here,1\n", `no column "y" (the target)`},
		"repeated column":  {"y,age,age,color,size,born,debt\n", `column "age" appears twice`},
		"unknown category": {head + good + "no,30,purple,M,here,1\n", `line 3 (data row 1), column "color": unknown category "purple"`},
		"unknown level":    {head + "no,30,red,XL,here,1\n", `line 2 (data row 0), column "size": unknown level "XL"`},
		"not a number":     {head + good + good + "no,thirty,red,S,here,1\n", `line 4 (data row 2), column "age": "thirty" is not a number`},
		"nan":              {head + "no,NaN,red,S,here,1\n", `column "age": "NaN" is not a finite number`},
		"inf":              {head + "no,30,red,S,here,-Inf\n", `column "debt": "-Inf" is not a finite number`},
		"empty field":      {head + "no,,red,S,here,1\n", `column "age": "" is not a number`},
		"wrong fields":     {head + good + "no,30,red\n", "line 3"},
		"unknown label":    {head + good + "maybe,30,red,S,here,1\n", `line 3 (data row 1), column "y": label "maybe"`},
		// a class of the schema that no row has: the search and its metrics need rows of each class
		"class without rows": {head + good + good, `the class "no" (of the schema's no, yes) has no rows`},
		// a row outside the schema's bounds (debt in [0, 100]): a factual its counterfactuals cannot keep
		"below min":       {head + good + "no,30,red,S,here,-5\n", `line 3 (data row 1), column "debt": -5 is below the schema's min 0`},
		"above max":       {head + good + "no,30,red,S,here,101\n", `line 3 (data row 1), column "debt": 101 is above the schema's max 100`},
		"level above max": {head + good + "no,30,red,L,here,1\n", `line 3 (data row 1), column "size": level "L" is above the schema's max`},
	}
	for name, c := range cases {
		_, err := readTable(strings.NewReader(c.csv), s, "t")
		if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrSchema containing %q", name, err, c.want)
		}
	}
	one := mustSchema(t, `{"target": "y", "features": [{"name": "a", "type": "numeric"}]}`)
	if _, err := readTable(strings.NewReader("a,y\n1,x\n2,x\n"), one, "t"); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "need at least 2") {
		t.Errorf("one class: err = %v", err)
	}
}

func TestReadRows(t *testing.T) {
	s := mustSchema(t, testSchema)
	x, rows, err := readRows(strings.NewReader("row,age,color,size,born,debt,tool\n2,31,red,L,there,3,dice\n0,30,blue,S,here,0,dice\n"), s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, []int{2, 0}) || !slices.Equal(x[:8], []float32{31, 1, 0, 0, 2, 0, 1, 3}) {
		t.Fatalf("rows %v x %v", rows, x)
	}
	for name, c := range map[string]struct{ csv, want string }{
		"no row column": {"age,color,size,born,debt\n1,red,S,here,0\n", `no column "row"`},
		"bad row":       {"row,age,color,size,born,debt\n-1,1,red,S,here,0\n", `column "row": "-1"`},
		"bad category":  {"row,age,color,size,born,debt\n0,1,pink,S,here,0\n", `line 2 (row 0), column "color"`},
	} {
		if _, _, err := readRows(strings.NewReader(c.csv), s); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

func TestViolations(t *testing.T) {
	s := mustSchema(t, testSchema)
	lo := []float32{0, 0, 0, 0, 0, 0, 0, 0}
	hi := []float32{100, 1, 1, 1, 1, 1, 1, 100}
	f := []float32{30, 0, 1, 0, 1, 1, 0, 50}
	if v := s.Violations(f, []float32{31, 1, 0, 0, 0, 1, 0, 40}, lo, hi, 0); len(v) != 0 {
		t.Fatalf("a valid counterfactual has violations %v", v)
	}
	kinds := func(cf []float32) []string {
		var out []string
		for _, v := range s.Violations(f, cf, lo, hi, 1e-6) {
			out = append(out, v.Feature+":"+v.Kind)
		}
		return out
	}
	for _, c := range []struct {
		cf   []float32
		want []string
	}{
		{[]float32{29, 0, 1, 0, 1, 1, 0, 50}, []string{"age:increase"}},
		{[]float32{30, 0, 1, 0, 1, 1, 0, 51}, []string{"debt:decrease"}},
		{[]float32{30, 0.5, 0.5, 0, 1, 1, 0, 50}, []string{"color:category"}},
		{[]float32{30, 1, 1, 0, 1, 1, 0, 50}, []string{"color:category"}},
		{[]float32{30, 0, 1, 0, 0.5, 1, 0, 50}, []string{"size:level"}},
		{[]float32{30, 0, 1, 0, 1, 0, 1, 50}, []string{"born:immutable"}},
		{[]float32{130, 0, 1, 0, 1, 1, 0, 50}, []string{"age:range"}},
	} {
		if got := kinds(c.cf); !slices.Equal(got, c.want) {
			t.Errorf("%v: violations %v, want %v", c.cf, got, c.want)
		}
	}
}

func TestParseRows(t *testing.T) {
	got, err := ParseRows("0, 3,10-12,3", 20)
	if err != nil || !slices.Equal(got, []int{0, 3, 10, 11, 12, 3}) {
		t.Fatalf("ParseRows = %v, %v", got, err)
	}
	for _, bad := range []string{"", "a", "1,,2", "5-3", "-1", "1-x", "20", "18-20"} {
		if _, err := ParseRows(bad, 20); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%q: err = %v, want ErrInvalidOption", bad, err)
		}
	}
}
