package counterfactual

import (
	"sync"

	"fmt"
	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/gomlx/compute"
	"maps"
	"slices"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Data returns Go values a term depends on (row-major, of shape dims) as a node of the step graph. In a
// Searcher's graphs they are an input of the compiled graph, not a constant of it, so that the Searcher
// can search with another generator that differs only in these values (SearchWith: ECCCo-L1 with another
// run's SGLD samples) without compiling again; elsewhere (and in a State made by hand) they are a
// constant. The values are the same either way, and so are the results. name only labels the input.
func (s *State) Data(name string, values []float32, dims ...int) *Node {
	if s.data == nil {
		return Reshape(Const(s.X.Graph(), values), dims...)
	}
	return s.data.node(s.X, name, values, dims)
}

// stepData collects the Data of the terms of one step graph: as variables of a Searcher's store when the
// graph is built for compiling (names then go to built), as recorded values (and constants) in a dry
// build (bindData).
type stepData struct {
	scope  *model.Scope // nil: a dry build
	built  func(name string)
	n      int
	values []dataValue
}

type dataValue struct {
	name   string
	values []float32
	dims   []int
}

func (sd *stepData) node(x *Node, name string, values []float32, dims []int) *Node {
	size := 1
	for _, d := range dims {
		size *= d
	}
	if size != len(values) {
		panic(fmt.Errorf("counterfactual: Data %q holds %d values, not %v", name, len(values), dims))
	}
	// The variable's name: the term's order in the graph, its label and the batch size (a Searcher keeps a
	// graph per batch size; each has its own inputs).
	key := fmt.Sprintf("data%d_%s_b%d", sd.n, strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name), x.Shape().Dimensions[0])
	sd.n++
	if sd.scope == nil {
		sd.values = append(sd.values, dataValue{name: key, values: values, dims: dims})
		return Reshape(Const(x.Graph(), values), dims...)
	}
	sd.built(key)
	v := sd.scope.VariableWithValue(key, tensors.FromFlatDataAndDimensions(append([]float32(nil), values...), dims...))
	v.SetTrainable(false)
	return v.NodeValue(x.Graph())
}

// bindData sets the Data inputs of the Searcher's graphs for batch size b to generator g's values, which
// it reads from a build of g's terms that is not compiled (a dry build). It returns their names.
func (s *Searcher) bindData(g *Generator, b int) (names []string, err error) {
	d := s.clf.NumFeatures()
	// The values do not depend on the backend: they are read from a graph of the pure-Go backend, which
	// builds one in microseconds where XLA takes tens of milliseconds.
	dry, err := dryBackend()
	if err != nil {
		return nil, err
	}
	gr := NewGraph(dry, "counterfactual-data")
	defer gr.Finalize()
	sd := &stepData{}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("counterfactual: reading the data of generator %s: %v", g.Name, r)
		}
	}()
	x := Parameter(gr, "x", shapes.Make(dtypes.Float32, b, d))
	factual := Parameter(gr, "factual", shapes.Make(dtypes.Float32, b, d))
	target := Parameter(gr, "target", shapes.Make(dtypes.Int32, b))
	step := Parameter(gr, "step", shapes.Make(dtypes.Float32))
	st := &State{X: x, Factual: factual, Target: target, Logits: s.clf.Logits(x), Model: s.clf, Step: step, data: sd}
	if g.Loss != nil {
		g.Loss(st)
	}
	for _, p := range g.Penalties {
		if p.Weight != 0 {
			p.Term(st)
		}
	}
	scope := s.store.RootScope().In("data")
	for _, v := range sd.values {
		t := tensors.FromFlatDataAndDimensions(append([]float32(nil), v.values...), v.dims...)
		names = append(names, v.name)
		if have := scope.GetVariable(v.name); have != nil {
			if !have.Shape().Equal(t.Shape()) {
				return nil, fmt.Errorf("counterfactual: generator %s reads %s of shape %s where the Searcher's graph reads %s", g.Name, v.name, t.Shape(), have.Shape())
			}
			if err := have.SetValue(t); err != nil {
				return nil, err
			}
			continue
		}
		nv, err := scope.CreateVariable(v.name, t)
		if err != nil {
			return nil, err
		}
		nv.SetTrainable(false)
	}
	return names, nil
}

var (
	dryOnce sync.Once
	dry     compute.Backend
	dryErr  error
)

// dryBackend is the pure-Go backend that dry builds (bindData) use, created once.
func dryBackend() (compute.Backend, error) {
	dryOnce.Do(func() { dry, dryErr = backend.NewWithConfig("go") })
	return dry, dryErr
}

// checkBound fails unless the graphs for batch size b read exactly the Data inputs named (those bindData
// set for another generator): a generator with other data terms than the Searcher's would otherwise be
// searched with stale inputs.
func (s *Searcher) checkBound(g *Generator, b int, names []string) error {
	built := slices.Sorted(maps.Keys(s.dataNames[b]))
	bound := slices.Clone(names)
	slices.Sort(bound)
	if !slices.Equal(built, bound) {
		return fmt.Errorf("counterfactual: generator %s reads the data %v; the Searcher's graphs (generator %s) read %v: build a Searcher for it",
			g.Name, bound, s.g.Name, built)
	}
	return nil
}
