package counterfactual

import (
	"fmt"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// Mutability says in which direction a feature may change (CounterfactualExplanations.jl's
// :none, :increase, :decrease and :both).
type Mutability int8

// The four mutability constraints. The zero value, Both, leaves a feature free.
const (
	Both     Mutability = iota // the feature may change either way
	None                       // the feature is immutable: x′_j = x_j
	Increase                   // the feature may only grow: x′_j ≥ x_j
	Decrease                   // the feature may only shrink: x′_j ≤ x_j
)

// String returns the constraint's name: both, none, increase or decrease.
func (m Mutability) String() string {
	switch m {
	case Both:
		return "both"
	case None:
		return "none"
	case Increase:
		return "increase"
	case Decrease:
		return "decrease"
	}
	return fmt.Sprintf("Mutability(%d)", int8(m))
}

// ParseMutability parses both, none, increase or decrease.
func ParseMutability(s string) (Mutability, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "both", "":
		return Both, nil
	case "none", "immutable":
		return None, nil
	case "increase":
		return Increase, nil
	case "decrease":
		return Decrease, nil
	}
	return Both, fmt.Errorf("unknown mutability %q (want both, none, increase or decrease)", s)
}

// constraintMasks turns per-feature constraints into float masks [D]: may go down, may go up.
func constraintMasks(m []Mutability, d int) (down, up []float32) {
	down, up = make([]float32, d), make([]float32, d)
	for j := range d {
		c := Both
		if m != nil {
			c = m[j]
		}
		if c == Both || c == Decrease {
			down[j] = 1
		}
		if c == Both || c == Increase {
			up[j] = 1
		}
	}
	return down, up
}

// project returns x′ [B, D] clamped to the bounds and to the mutability constraints relative to the
// factual, in one clamp: feature j of row i is clamped to [lo_ij, hi_ij], which projectionBounds computes
// once per search: lo_ij = Lower_j where the feature may go down (Both, Decrease) and the factual's value
// otherwise, and hi_ij likewise. An immutable feature therefore equals the factual's, an increase-only
// feature is at least the factual's, and every value lies exactly within the bounds. Where the two
// disagree (lo_ij > hi_ij: a factual outside the bounds in a blocked direction; conflict [B, D], nil if
// nowhere), the mutability constraint wins and the feature keeps the factual's value. lo and hi may be a
// single row [1, D] shared by every row of x, or a single value [1, 1] shared by every value, which is
// then a scalar of the clamp (one pass over x on the pure-Go backend).
func project(x, factual, lo, hi, conflict *Node) *Node {
	switch {
	case lo.Shape().Equal(x.Shape()):
	case lo.Shape().Size() == 1: // the same clamp for every value
		lo, hi = Reshape(lo), Reshape(hi)
	default: // the same clamp for every row [1, D]
		lo, hi = BroadcastToShape(lo, x.Shape()), BroadcastToShape(hi, x.Shape())
	}
	clamped := Min(Max(x, lo), hi) // Clamp with tensor bounds has no gradient in GoMLX
	if conflict == nil {
		return clamped
	}
	return Where(conflict, factual, clamped)
}

// oneHot returns x [B, D] with each one-hot group (Request.OneHot) replaced by the one-hot code of the
// largest entry of scores there (the first on a tie), with the gradient of the identity (straight-through):
// code + (x − StopGradient(x)) on the group's columns, whose value is the code exactly. Without groups it
// returns x itself.
func oneHot(x, scores *Node, groups [][]int) *Node {
	return mapGroups(x, groups, func(a, b int, xg *Node) *Node {
		code := OneHot(ArgMax(Slice(scores, AxisRange(), AxisRange(a, b)), -1), b-a, x.DType())
		return Add(code, Sub(xg, StopGradient(xg)))
	})
}

// normaliseGroups divides each one-hot group's search state (non-negative: within the bounds [0, 1]) by
// its sum, so that a category's state grows at the others' expense and can overtake the factual's, which
// would otherwise stay at the upper bound 1, tied with any other that reaches it. A group summing to 0 is
// left as it is.
func normaliseGroups(z *Node, groups [][]int) *Node {
	return mapGroups(z, groups, func(_, _ int, zg *Node) *Node {
		sum := ReduceSum(zg, -1)
		sum = Where(GreaterThan(sum, ZerosLike(sum)), sum, OnesLike(sum))
		return Div(zg, InsertAxes(sum, -1))
	})
}

// mapGroups returns x with the columns [a, b) of each group replaced by fn(a, b, those columns).
func mapGroups(x *Node, groups [][]int, fn func(a, b int, xg *Node) *Node) *Node {
	if len(groups) == 0 {
		return x
	}
	d := x.Shape().Dimensions[1]
	var parts []*Node
	at := 0
	for _, g := range groups {
		a, b := g[0], g[len(g)-1]+1
		if a > at {
			parts = append(parts, Slice(x, AxisRange(), AxisRange(at, a)))
		}
		parts = append(parts, fn(a, b, Slice(x, AxisRange(), AxisRange(a, b))))
		at = b
	}
	if at < d {
		parts = append(parts, Slice(x, AxisRange(), AxisRange(at, d)))
	}
	return Concatenate(parts, -1)
}
