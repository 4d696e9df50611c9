package models

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
)

// AuthorsCommit is the ECCCo.jl commit (pat-alt/ECCCo.jl, "updated models", 2023-10-18) whose models/
// folder holds the trained models the published tables were computed with: the authors' experiments load
// models/DATA_models.jls unless told to retrain (experiments/models/models.jl:76-81, pretrained_path in
// experiments/experiment.jl:175-187; use_pretrained = !RETRAIN).
const AuthorsCommit = "d0ada1dbc5bab4c6b69612f4d7b7582512bce86e"

// AuthorsFile is one of the authors' model files: a Julia-serialized Dict of four conformal models
// ("MLP", "MLP Ensemble", "JEM", "JEM Ensemble"), each a Flux chain (or five) with the calibration
// scores ConformalPrediction.jl stored beside it.
type AuthorsFile struct {
	Dataset string // eccco's data-set name
	Name    string // the file's name in ECCCo.jl's models/ folder
	Size    int64
	SHA256  string
}

// authorsFiles are the files at AuthorsCommit (sha256sum of `git show COMMIT:models/NAME`). The vision
// sets' files are not in the repository (they were artifacts), so they are not here.
var authorsFiles = []AuthorsFile{
	{"linearly-separable", "linearly_separable_models.jls", 162945, "d90902251176966966358daa1e216e11447867459df52a016dcce9430a956cba"},
	{"moons", "moons_models.jls", 314132, "4984068a7a2bce62db77d70aa6b0f2c7973d70dc920226fb3db29ac5ae863cdc"},
	{"circles", "circles_models.jls", 242041, "348faee1525c0c822ddfbe759bdd3f2aae22d4ae74935962d46c0f5c3f4ca4b4"},
	{"california-housing", "california_housing_models.jls", 1235444, "b9dd2fdaaa7743bc09fcd167854ba9ab35f41d0f6957fb5d5a6c9e23ec14e83f"},
	{"gmsc", "gmsc_models.jls", 1168180, "f013a280ed80de697a71fdd0efc114dc78d79cd4dac2b1140e91b7b9a0cbb259"},
	{"german-credit", "german_credit_models.jls", 980084, "e72f1599964b937a2c908d3a8b8b870ec5e0c98b034b8001eaa41db3f589843d"},
}

// authorsEmbedded holds copies of the files (eccco/models/authors/, with ECCCo.jl's MIT licence), so that
// the authors'-code mode works wherever eccco is built, without a download or a checkout of ECCCo.jl.
//
//go:embed authors/*.jls
var authorsEmbedded embed.FS

// AuthorsModelFile returns the authors' model file of a data set, if they published one.
func AuthorsModelFile(dataset string) (AuthorsFile, bool) {
	for _, f := range authorsFiles {
		if f.Dataset == dataset {
			return f, true
		}
	}
	return AuthorsFile{}, false
}

// ErrAuthorsFile reports a file that is not the authors' model file it should be (missing, another
// size or checksum, or a layout LoadAuthors does not recognise).
var ErrAuthorsFile = errors.New("not the authors' model file")

// Authored is one of the authors' trained models with the calibration scores stored with it.
type Authored struct {
	Model *Model
	// Scores are the nonconformity scores 1 − p̂(y|x) of the authors' calibration rows (the second half of
	// their training split), as ConformalPrediction.jl stored them in the model: q̂ follows from them
	// exactly, whatever rows eccco's own split holds.
	Scores []float64
}

// LoadAuthors reads the authors' trained models of a data set from dir (a copy of ECCCo.jl's models/
// folder, or any folder holding the file under its name; "" reads the copy built into eccco) into Models
// of the given specs, one per kind asked for. The file must be the one at AuthorsCommit (size and sha256).
//
// The file is read as a stream of arrays (ScanJuliaArrays), not as Julia objects. Its dictionary's
// entries follow one another, each after its key (a String: its length byte, then its bytes); inside an
// entry the conformal model's stored calibration probabilities [n, K] and scores [n] come before the
// fitted chain(s); a Flux Dense layer's weight is [out, in] column-major, which is eccco's [in, out]
// row-major layout, element for element. A JEM ensemble's entry also holds one chain before its scores:
// the chain inside its atom's model spec, the same Julia object as the single JEM's fitted chain (that
// entry only refers back to it), so the single JEM takes the one chain found before any entry's scores.
// Every chain must have exactly the spec's layer shapes.
func LoadAuthors(backend compute.Backend, dir, dataset string, specs map[Kind]Spec) (map[Kind]Authored, error) {
	f, ok := AuthorsModelFile(dataset)
	if !ok {
		return nil, fmt.Errorf("%w: the authors published no trained models of %s", ErrAuthorsFile, dataset)
	}
	path := filepath.Join(dir, f.Name)
	var b []byte
	var err error
	if dir == "" {
		path = "eccco's built-in copy of " + f.Name
		b, err = authorsEmbedded.ReadFile("authors/" + f.Name)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAuthorsFile, err)
	}
	sum := sha256.Sum256(b)
	if int64(len(b)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
		return nil, fmt.Errorf("%w: %s has %d bytes, sha256 %s; ECCCo.jl %s's has %d bytes, sha256 %s",
			ErrAuthorsFile, path, len(b), hex.EncodeToString(sum[:]), AuthorsCommit[:7], f.Size, f.SHA256)
	}
	return parseAuthors(backend, b, path, f, specs)
}

// parseAuthors maps the arrays of an authors' file onto models of the specs.
func parseAuthors(backend compute.Backend, b []byte, path string, f AuthorsFile, specs map[Kind]Spec) (map[Kind]Authored, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrAuthorsFile, path, fmt.Sprintf(format, a...))
	}
	arrays := ScanJuliaArrays(b)
	type entry struct {
		kind   Kind
		offset int
	}
	var entries []entry
	for _, kind := range []Kind{KindMLP, KindMLPEnsemble, KindJEM, KindJEMEnsemble} {
		key := append([]byte{byte(len(kind.Title()))}, kind.Title()...)
		at := bytes.Index(b, key)
		if at < 0 || bytes.Index(b[at+1:], key) >= 0 {
			return nil, fail("the key %q is not there exactly once", kind.Title())
		}
		entries = append(entries, entry{kind, at})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].offset < entries[j].offset })

	type parsed struct {
		scores        []float64
		before, after [][]JuliaArray // chains before and after the scores
	}
	got := map[Kind]*parsed{}
	var atomChains [][]JuliaArray
	for i, e := range entries {
		end := len(b)
		if i+1 < len(entries) {
			end = entries[i+1].offset
		}
		spec, ok := specs[e.kind]
		if !ok { // the shapes only; any kind's spec of the data set has them
			for _, s := range specs {
				spec = s
				break
			}
		}
		var in []JuliaArray
		for _, a := range arrays {
			if a.Offset > e.offset && a.Offset < end {
				in = append(in, a)
			}
		}
		p := &parsed{}
		scoresAt := -1
		for j := 1; j < len(in); j++ {
			prev, a := in[j-1], in[j]
			if a.F64 != nil && len(a.Dims) == 1 && a.Dims[0] > 2 && prev.F64 != nil && len(prev.Dims) == 2 &&
				prev.Dims[0] == a.Dims[0] && prev.Dims[1] == spec.NumClasses {
				if scoresAt >= 0 {
					return nil, fail("the %s entry has two score vectors", e.kind.Title())
				}
				p.scores, scoresAt = a.F64, a.Offset
			}
		}
		if scoresAt < 0 {
			return nil, fail("the %s entry has no calibration scores", e.kind.Title())
		}
		for _, c := range juliaChains(in, spec) {
			if c[0].Offset < scoresAt {
				p.before = append(p.before, c)
			} else {
				p.after = append(p.after, c)
			}
		}
		atomChains = append(atomChains, p.before...)
		got[e.kind] = p
	}

	out := map[Kind]Authored{}
	for kind, spec := range specs {
		p := got[kind]
		if p == nil {
			return nil, fail("no %s entry", kind.Title())
		}
		chains := p.after
		if len(chains) == 0 && spec.Members == 1 && len(atomChains) == 1 {
			chains = atomChains // the single JEM: a back-reference to the chain in the ensemble's atom
		}
		if len(chains) != spec.Members {
			return nil, fail("the %s entry has %d chains of the expected shapes, the spec %d", kind.Title(), len(chains), spec.Members)
		}
		m, err := New(backend, spec, 1)
		if err != nil {
			return nil, err
		}
		if err := setChains(m, chains); err != nil {
			return nil, fail("%s: %v", kind.Title(), err)
		}
		m.SetProvenance(Provenance{Dataset: f.Dataset, Split: "the authors' own split and fit (ECCCo.jl, Julia's RNG)",
			Mode: "authors-code", Kind: kind, Training: Training{
				Objective: fmt.Sprintf("the authors' trained model: ECCCo.jl models/%s at %s", f.Name, AuthorsCommit[:7])}})
		out[kind] = Authored{Model: m, Scores: slices.Clone(p.scores)}
	}
	return out, nil
}

// juliaShapes are the Julia dimensions of an MLP spec's arrays in a Flux chain: per Dense layer the
// weight [out, in] and the bias [out].
func juliaShapes(spec Spec) [][]int {
	var s [][]int
	in := spec.NumFeatures
	for range spec.Layers {
		s = append(s, []int{spec.Hidden, in}, []int{spec.Hidden})
		in = spec.Hidden
	}
	return append(s, []int{spec.NumClasses, in}, []int{spec.NumClasses})
}

// juliaChains finds, in order, the runs of consecutive Float32 arrays with exactly the shapes of the
// spec's chain.
func juliaChains(arrays []JuliaArray, spec Spec) [][]JuliaArray {
	want := juliaShapes(spec)
	var chains [][]JuliaArray
	var cur []JuliaArray
	for _, a := range arrays {
		switch {
		case a.F32 != nil && slices.Equal(a.Dims, want[len(cur)]):
			cur = append(cur, a)
		case a.F32 != nil && slices.Equal(a.Dims, want[0]):
			cur = []JuliaArray{a}
		default:
			cur = nil
		}
		if len(cur) == len(want) {
			chains, cur = append(chains, cur), nil
		}
	}
	return chains
}

// setChains writes the chains' weights into the model's variables, member i from chain i.
func setChains(m *Model, chains [][]JuliaArray) error {
	spec := m.Spec()
	set := func(path string, layer, in, out int) error {
		v := m.Store().GetVariable(path)
		if v == nil {
			return fmt.Errorf("the model has no variable %s", path)
		}
		w := make([]float32, 0, len(chains)*in*out)
		b := make([]float32, 0, len(chains)*out)
		for _, c := range chains {
			w = append(w, c[2*layer].F32...) // Julia [out, in] column-major = eccco [in, out] row-major
			b = append(b, c[2*layer+1].F32...)
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(w, len(chains), in, out)); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		bv := m.Store().GetVariable(filepath.Dir(path) + "/biases")
		if bv == nil {
			return fmt.Errorf("the model has no biases beside %s", path)
		}
		return bv.SetValue(tensors.FromFlatDataAndDimensions(b, len(chains), 1, out))
	}
	in := spec.NumFeatures
	for i := range spec.Layers {
		if err := set(fmt.Sprintf("/hidden%d/weights", i), i, in, spec.Hidden); err != nil {
			return err
		}
		in = spec.Hidden
	}
	return set("/readout/weights", spec.Layers, in, spec.NumClasses)
}
