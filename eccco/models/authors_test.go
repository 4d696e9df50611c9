package models

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx/compute"
)

// juliaStream builds bytes the way Julia's Serialization writes isbits arrays (see JuliaArray).
type juliaStream struct{ b []byte }

func (s *juliaStream) raw(b ...byte) { s.b = append(s.b, b...) }

func (s *juliaStream) int(n int) {
	switch {
	case n >= 0 && n <= 32:
		s.raw(byte(juliaIntLiteral0 + n))
	default:
		s.raw(juliaShortInt64)
		s.b = binary.LittleEndian.AppendUint32(s.b, uint32(int32(n)))
	}
}

func (s *juliaStream) dims(d []int) {
	if len(d) == 1 {
		s.int(d[0])
		return
	}
	s.raw(juliaTupleTag, byte(len(d)))
	for _, n := range d {
		s.int(n)
	}
}

func (s *juliaStream) f32(d []int, v ...float32) {
	s.raw(juliaArrayTag, 0, juliaFloat32Tag)
	s.dims(d)
	for _, x := range v {
		s.b = binary.LittleEndian.AppendUint32(s.b, math.Float32bits(x))
	}
}

func (s *juliaStream) f64(d []int, v ...float64) {
	s.raw(juliaArrayTag, 0, juliaFloat64Tag)
	s.dims(d)
	for _, x := range v {
		s.b = binary.LittleEndian.AppendUint64(s.b, math.Float64bits(x))
	}
}

func (s *juliaStream) key(title string) { s.raw(0x21, byte(len(title))); s.raw([]byte(title)...) }

// A matrix with tuple dimensions, a vector longer than 32 (a SHORTINT64 length), bytes between them that
// only start like an array, and a truncated array at the end: the scanner returns the two arrays as
// written, column-major, and nothing else.
func TestScanJuliaArrays(t *testing.T) {
	var s juliaStream
	s.raw(0x37, 0x4a, 0x4c, 0x14, 0x04, 0, 0, 0) // the header "7JL", version 20
	s.f32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	s.raw(juliaArrayTag, 0, juliaFloat32Tag, 0x77) // not a dimension
	long := make([]float64, 40)
	for i := range long {
		long[i] = float64(i) / 4
	}
	s.f64([]int{40}, long...)
	s.raw(juliaArrayTag, 0, juliaFloat64Tag, juliaIntLiteral0+3, 0, 0) // 3 elements announced, 2 bytes there
	got := ScanJuliaArrays(s.b)
	if len(got) != 2 {
		t.Fatalf("found %d arrays, want 2: %+v", len(got), got)
	}
	if got[0].Offset != 8 || len(got[0].Dims) != 2 || got[0].Dims[0] != 2 || got[0].Dims[1] != 3 || got[0].F32[4] != 5 || got[0].F64 != nil {
		t.Errorf("first array %+v, want Float32 [2 3] at 8 with element 5 fifth", got[0])
	}
	if got[1].Len() != 40 || got[1].F64[39] != 9.75 || got[1].F32 != nil {
		t.Errorf("second array %+v, want 40 Float64 ending in 9.75", got[1])
	}
}

// A hand-made authors' file: a 2-2-2 relu MLP in one hidden layer, the four entries laid out as the
// authors' files lay them out (the JEM ensemble's atom chain before its scores, the single JEM's entry
// with no chain of its own). Each model's logits are checked against Flux's y = W·x + b with W [out, in]
// column-major, by hand, and each keeps its own calibration scores.
func TestParseAuthorsLayout(t *testing.T) {
	b := testBackend(t)
	spec := Spec{NumFeatures: 2, NumClasses: 2, Hidden: 2, Layers: 1, Activation: "relu", Members: 1}
	// chain c: W1 = [[c, 0], [0, 1]] (out × in), b1 = (0, 0), W2 = [[1, 0], [0, 1]], b2 = (0, c).
	chain := func(s *juliaStream, c float32) {
		s.f32([]int{2, 2}, c, 0, 0, 1) // column-major: W[1,1] = c, W[2,1] = 0, W[1,2] = 0, W[2,2] = 1
		s.f32([]int{2}, 0, 0)
		s.f32([]int{2, 2}, 1, 0, 0, 1)
		s.f32([]int{2}, 0, c)
	}
	scores := func(s *juliaStream, v float64) {
		s.f64([]int{3, 2}, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
		s.f64([]int{3}, v, v, v)
	}
	var s juliaStream
	s.key("JEM Ensemble")
	s.f32([]int{2, 100}, make([]float32, 200)...) // the sampler's buffer
	chain(&s, 7)                                  // the atom's chain: the single JEM's
	s.f64([]int{3}, 1, 1, 0.1)
	scores(&s, 0.4)
	chain(&s, 1)
	chain(&s, 2)
	s.key("MLP")
	scores(&s, 0.1)
	chain(&s, 3)
	s.key("MLP Ensemble")
	scores(&s, 0.2)
	chain(&s, 4)
	chain(&s, 5)
	s.key("JEM")
	scores(&s, 0.3)
	s.raw(0x2c, 0x41, 0x00) // a back-reference, as the real file has
	specs := map[Kind]Spec{}
	for _, k := range []Kind{KindMLP, KindMLPEnsemble, KindJEM, KindJEMEnsemble} {
		sp := spec
		sp.Kind = k
		if k.IsEnsemble() {
			sp.Members = 2
		}
		specs[k] = sp
	}
	got, err := parseAuthors(b, s.b, "test.jls", AuthorsFile{Dataset: "test", Name: "test.jls"}, specs)
	if err != nil {
		t.Fatal(err)
	}
	// x = (1, 2): chain c gives h = relu(c·1, 2) = (c, 2), logits (c, 2 + c); an ensemble averages.
	want := map[Kind][2]float32{KindJEM: {7, 9}, KindJEMEnsemble: {1.5, 3.5}, KindMLP: {3, 5}, KindMLPEnsemble: {4.5, 6.5}}
	wantScore := map[Kind]float64{KindJEM: 0.3, KindJEMEnsemble: 0.4, KindMLP: 0.1, KindMLPEnsemble: 0.2}
	for kind, w := range want {
		a := got[kind]
		logits, err := Logits(b, a.Model, []float32{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		if logits[0] != w[0] || logits[1] != w[1] {
			t.Errorf("%s logits %v, want %v", kind, logits, w)
		}
		if len(a.Scores) != 3 || a.Scores[0] != wantScore[kind] {
			t.Errorf("%s scores %v, want three of %v", kind, a.Scores, wantScore[kind])
		}
	}
	// A layout that does not fit the spec is an error, not a guess.
	specs[KindMLPEnsemble] = Spec{Kind: KindMLPEnsemble, NumFeatures: 2, NumClasses: 2, Hidden: 2, Layers: 1, Activation: "relu", Members: 3}
	if _, err := parseAuthors(b, s.b, "test.jls", AuthorsFile{}, specs); !errors.Is(err, ErrAuthorsFile) {
		t.Errorf("three members asked of a two-member entry: %v, want ErrAuthorsFile", err)
	}
}

// authorsSpec is the architecture of the authors' models of a binary data set with d features
// (table_params.tex, catalogue.Datasets, written out: this package cannot import the catalogue): 3 hidden
// layers, 5 members, 16 swish units for linearly-separable, 32 swish ones for circles, 32 relu otherwise.
func authorsSpec(kind Kind, dataset string, d int) Spec {
	s := Spec{Kind: kind, NumFeatures: d, NumClasses: 2, Hidden: 32, Layers: 3, Activation: "relu", Members: 1, Dataset: dataset}
	switch dataset {
	case "linearly-separable":
		s.Hidden, s.Activation = 16, "swish"
	case "circles":
		s.Activation = "swish"
	}
	if kind.IsEnsemble() {
		s.Members = 5
	}
	return s
}

// Every file of the authors built into eccco parses into the four models of the paper's architecture for the
// data set (Table 4: 16 or 32 units, 3 layers; 5 members), with the calibration scores of half the
// training split each (the inductive split: n/2 of the paper's training sizes 1,000 / 2,501 / 1,000 /
// 16,504 / 13,372 / 800, Julia's n ÷ 2 rounding up the calibration half of an odd n). A file that
// differs by one byte is refused.
func TestLoadAuthorsFiles(t *testing.T) {
	b := testBackend(t)
	wantCal := map[string]int{"linearly-separable": 500, "moons": 1251, "circles": 500, "california-housing": 8252, "gmsc": 6686, "german-credit": 400}
	wantD := map[string]int{"linearly-separable": 2, "moons": 2, "circles": 2, "california-housing": 8, "gmsc": 10, "german-credit": 20}
	for _, f := range authorsFiles {
		specs := map[Kind]Spec{}
		for _, k := range []Kind{KindMLP, KindMLPEnsemble, KindJEM, KindJEMEnsemble} {
			specs[k] = authorsSpec(k, f.Dataset, wantD[f.Dataset])
		}
		got, err := LoadAuthors(b, "", f.Dataset, specs) // the built-in copy
		if err != nil {
			t.Fatalf("%s: %v", f.Dataset, err)
		}
		for k, a := range got {
			if len(a.Scores) != wantCal[f.Dataset] {
				t.Errorf("%s %s: %d calibration scores, want %d", f.Dataset, k, len(a.Scores), wantCal[f.Dataset])
			}
			if a.Model.Spec().Members != specs[k].Members || a.Model.Spec().Hidden != specs[k].Hidden {
				t.Errorf("%s %s: spec %+v", f.Dataset, k, a.Model.Spec())
			}
		}
		if fp := distinctWeights(t, b, got); fp != 4 {
			t.Errorf("%s: %d distinct models of 4", f.Dataset, fp)
		}
	}
	// The same file in a folder (an ECCCo.jl checkout's models/) loads as the built-in copy does; with one
	// byte changed it is refused by its checksum.
	f, _ := AuthorsModelFile("moons")
	raw, err := authorsEmbedded.ReadFile("authors/" + f.Name)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, f.Name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	moons := map[Kind]Spec{}
	moons[KindMLP] = authorsSpec(KindMLP, "moons", 2)
	if got, err := LoadAuthors(b, tmp, "moons", moons); err != nil || got[KindMLP].Model == nil {
		t.Fatalf("the moons file from a folder: %v", err)
	}
	raw[len(raw)/2] ^= 1
	if err := os.WriteFile(filepath.Join(tmp, f.Name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadAuthors(b, tmp, "moons", nil); !errors.Is(err, ErrAuthorsFile) {
		t.Errorf("a changed file: %v, want ErrAuthorsFile", err)
	}
	if _, err := LoadAuthors(b, tmp, "mnist", nil); !errors.Is(err, ErrAuthorsFile) {
		t.Errorf("a data set without a file: %v, want ErrAuthorsFile", err)
	}
}

// distinctWeights counts the models whose logits at one point differ from each other's.
func distinctWeights(t *testing.T, b compute.Backend, got map[Kind]Authored) int {
	t.Helper()
	seen := map[[2]float32]bool{}
	for _, a := range got {
		x := make([]float32, a.Model.NumFeatures())
		for i := range x {
			x[i] = 0.3 * float32(i+1)
		}
		l, err := Logits(b, a.Model, x)
		if err != nil {
			t.Fatal(err)
		}
		seen[[2]float32{l[0], l[1]}] = true
	}
	return len(seen)
}
