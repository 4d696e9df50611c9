package counterfactual

import (
	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// The search step's selects: each gives the values of one Where, in the form each backend runs fastest.
// GoMLX's pure-Go backend (compute v0.1.14) compares element by element in plain Go loops and selects
// element by element through strides where the condition has fewer elements than the output, so on it a
// select whose outcome is known for a whole tensor is skipped by a branch (shortcut). XLA fuses the
// comparison and the select into one loop, and its closures cannot read values of the enclosing function
// (TestWhileLimits), so there each is the plain Where.

// zeroNaNs is v with its NaN elements replaced by +0: Where(IsNaN(v), 0, v). On the pure-Go backend the
// element-wise test runs only when the sum of v's elements is NaN, which it is whenever an element is NaN
// (and also where infinities of both signs meet, when the test then changes nothing); otherwise v is kept
// as it is.
func zeroNaNs(v *Node) *Node {
	zero := ScalarZero(v.Graph(), v.DType())
	general := func() *Node { return Where(IsNaN(v), zero, v) }
	if backend.IsXLA(v.Graph().Backend()) {
		return general()
	}
	clean := LogicalNot(IsNaN(ReduceAllSum(v)))
	return shortcut(clean, []*Node{v, zero}, func() *Node { return v }, general)
}

// whereRows selects whole rows: row i of onTrue where cond[i] holds, else row i of onFalse (cond [B], the
// values of one shape [B, D]); for any other ranks it is Where. On the pure-Go backend, where every row
// holds (every row of a search steps, until the first one stops) it is onTrue; otherwise the rows are
// gathered from onTrue and onFalse stacked, copied row by row.
func whereRows(cond, onTrue, onFalse *Node) *Node {
	dims := onTrue.Shape().Dimensions
	if cond.Rank() != 1 || len(dims) != 2 {
		return Where(cond, onTrue, onFalse)
	}
	g := cond.Graph()
	b := dims[0]
	if backend.IsXLA(g.Backend()) {
		return Where(BroadcastToShape(Reshape(cond, b, 1), shapes.Make(dtypes.Bool, dims...)), onTrue, onFalse)
	}
	rows, offset := Iota(g, shapes.Make(dtypes.Int32, b), 0), Scalar(g, dtypes.Int32, b)
	gathered := func() *Node {
		// Row i of [onTrue; onFalse] is i where cond[i] holds, else B + i.
		idx := Add(rows, Mul(ConvertDType(LogicalNot(cond), dtypes.Int32), offset))
		return Gather(Concatenate([]*Node{onTrue, onFalse}, 0), Reshape(idx, b, 1))
	}
	return shortcut(ReduceLogicalAnd(cond), []*Node{cond, onTrue, onFalse, rows, offset}, func() *Node { return onTrue }, gathered)
}

// shortcut is If(pred, cheap(), general()) on the pure-Go backend, for a cheap that gives general's
// values whenever pred (a scalar) holds: only the branch taken runs. reads lists every node of the
// enclosing function that either branch reads, and the branches create no constant of their own:
//   - compute v0.1.14 hands a value that only one branch reads to that branch to keep when the If is the
//     value's last use, and then releases it a second time, so that two later results can share one buffer
//     (TestShortcutReadsReleasedOnce); so both branches read every node of reads, the one that does not
//     need a node into a result it drops;
//   - GoMLX (v0.28.16) keeps one node per scalar constant for the whole graph, so a constant made first in
//     a branch could not be read anywhere else; make them outside and list them in reads.
func shortcut(pred *Node, reads []*Node, cheap, general func() *Node) *Node {
	g := pred.Graph()
	branch := func(f func() *Node) *Function {
		return NewClosure(g, func(*Graph) []*Node {
			for _, r := range reads {
				_ = Identity(r) // reads r: see above; the unused result is not computed
			}
			return []*Node{f()}
		})
	}
	return If(pred, branch(cheap), branch(general))[0]
}
