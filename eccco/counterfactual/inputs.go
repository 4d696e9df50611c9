package counterfactual

import (
	"fmt"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
)

// Input is data a penalty's term reads besides the search state (Penalty.Inputs): Go values, row-major,
// of shape Dims, such as ECCCo-L1's SGLD samples. The term reads it as a node through State.Input(Name).
type Input struct {
	Name   string
	Values []float32
	Dims   []int
}

func (in Input) validate() error {
	if in.Name == "" {
		return fmt.Errorf("an input has no name")
	}
	size := 1
	for _, d := range in.Dims {
		if d < 0 {
			return fmt.Errorf("input %q has a negative dimension in %v", in.Name, in.Dims)
		}
		size *= d
	}
	if size != len(in.Values) {
		return fmt.Errorf("input %q holds %d values, not %v", in.Name, len(in.Values), in.Dims)
	}
	return nil
}

// Input returns the input called name of the penalty whose term is being built, as a node of shape
// Input.Dims. In a Searcher's step graphs it is an input of the compiled graph (a variable of the
// Searcher's store), not a constant of it, so that the Searcher can search with another generator that
// differs only in these values (SearchWith: ECCCo-L1 with another run's SGLD samples) without compiling
// again; elsewhere it is a constant. The values are the same either way, and so are the results. It
// panics (an error of the graph's build) when the penalty declares no input of that name.
func (s *State) Input(name string) *Node {
	for _, in := range s.inputs {
		if in.Name != name {
			continue
		}
		if s.inputScope == nil {
			return Reshape(Const(s.X.Graph(), in.Values), in.Dims...)
		}
		key := inputKey(s.penalty, name, s.X.Shape().Dimensions[0])
		v := s.inputScope.GetVariable(key)
		if v == nil {
			panic(fmt.Errorf("counterfactual: input %q of penalty %d is not bound for a batch of %d rows", name, s.penalty, s.X.Shape().Dimensions[0]))
		}
		return v.NodeValue(s.X.Graph())
	}
	panic(fmt.Errorf("counterfactual: a term reads the input %q, which its penalty does not declare (Penalty.Inputs)", name))
}

// eval is p's term at s, with p's inputs (penalty i of its generator) readable through State.Input.
func (p Penalty) eval(s *State, i int) *Node {
	ps := *s
	ps.inputs, ps.penalty = p.Inputs, i
	return p.Term(&ps)
}

// inputKey names the variable of a Searcher's store, under the scope "data", that holds input name of
// penalty i in the graphs for batch size b (a Searcher keeps a graph per batch size; each has its own
// inputs, whose shapes may depend on it).
func inputKey(i int, name string, b int) string {
	return fmt.Sprintf("p%d_%s_b%d", i, strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name), b)
}

// sameInputs reports whether the penalties of non-zero weight of two generators with the same penalties
// (sameTerms) declare inputs of the same names and shapes: the compiled graphs of one then read the
// other's inputs.
func sameInputs(a, b *Generator) bool {
	for i, p := range a.Penalties {
		if p.Weight == 0 {
			continue
		}
		q := b.Penalties[i]
		if len(p.Inputs) != len(q.Inputs) {
			return false
		}
		for j, in := range p.Inputs {
			if in.Name != q.Inputs[j].Name || fmt.Sprint(in.Dims) != fmt.Sprint(q.Inputs[j].Dims) {
				return false
			}
		}
	}
	return true
}

// bindInputs sets the variables that hold the inputs of the graphs for batch size b to generator g's
// values, creating them where no graph for b was built yet. A graph built afterwards reads them.
func (s *Searcher) bindInputs(g *Generator, b int) error {
	scope := s.store.RootScope().In("data")
	for i, p := range g.Penalties {
		if p.Weight == 0 { // its term is not part of the graphs
			continue
		}
		for _, in := range p.Inputs {
			key := inputKey(i, in.Name, b)
			t := tensors.FromFlatDataAndDimensions(append([]float32(nil), in.Values...), in.Dims...)
			if have := scope.GetVariable(key); have != nil {
				if !have.Shape().Equal(t.Shape()) {
					return fmt.Errorf("counterfactual: generator %s reads %s of shape %s where the Searcher's graph reads %s", g.Name, key, t.Shape(), have.Shape())
				}
				if err := have.SetValue(t); err != nil {
					return err
				}
				continue
			}
			v, err := scope.CreateVariable(key, t)
			if err != nil {
				return err
			}
			v.SetTrainable(false)
		}
	}
	return nil
}
