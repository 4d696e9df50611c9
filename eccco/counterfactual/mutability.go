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
// nowhere), the mutability constraint wins and the feature keeps the factual's value.
func project(x, factual, lo, hi, conflict *Node) *Node {
	clamped := Min(Max(x, lo), hi) // Clamp with tensor bounds has no gradient in GoMLX
	if conflict == nil {
		return clamped
	}
	return Where(conflict, factual, clamped)
}
