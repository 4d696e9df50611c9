package models

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Classifier is what the rest of eccco needs from a model: a batched, differentiable graph function from
// inputs x of shape [B, D] to logits of shape [B, K]. Counterfactual search, SGLD sampling and conformal
// prediction all call Logits inside their own graphs, possibly several times per graph, so Logits must be
// a pure function of x (the weights are read, never written).
//
// Any GoMLX model can be explained: wrap its model function with FromFunc.
type Classifier interface {
	// Logits builds the [B, K] logits of the [B, D] inputs x in x's graph.
	Logits(x *Node) *Node
	// NumFeatures returns D, the input width.
	NumFeatures() int
	// NumClasses returns K, the number of classes.
	NumClasses() int
}

// FromFunc wraps a user's GoMLX model function as a Classifier. fn is called with a fresh root scope of
// store each time Logits is called, so it may use scope.In freely; its variables must already hold values
// (train the model, or load a checkpoint into store, before explaining it).
func FromFunc(store *model.Store, fn func(scope *model.Scope, x *Node) *Node, numFeatures, numClasses int) Classifier {
	return funcClassifier{store: store, fn: fn, d: numFeatures, k: numClasses}
}

type funcClassifier struct {
	store *model.Store
	fn    func(scope *model.Scope, x *Node) *Node
	d, k  int
}

func (c funcClassifier) Logits(x *Node) *Node { return c.fn(c.store.RootScope(), x) }
func (c funcClassifier) NumFeatures() int     { return c.d }
func (c funcClassifier) NumClasses() int      { return c.k }

// PredictionChunk is the number of rows evaluated per graph call by Logits/Probabilities/Predict: large
// enough to amortise the call overhead, small enough to bound memory on 784-dimensional inputs.
const PredictionChunk = 4096

// Outputs evaluates fn(clf, x) on the rows of x (row-major, n·D values) in chunks of PredictionChunk rows
// and returns the concatenated row-major [n, width] results. fn must return a [B, width] float32 node.
func Outputs(backend compute.Backend, clf Classifier, x []float32, fn func(clf Classifier, x *Node) *Node) (out []float32, width int, err error) {
	return KeptOutputs(nil, nil, backend, clf, x, fn)
}

// outputsWith runs a compiled evaluation graph over the rows of x in chunks of PredictionChunk rows.
func outputsWith(exec *model.Exec, clf Classifier, x []float32) (out []float32, width int, err error) {
	d := clf.NumFeatures()
	if d <= 0 || len(x)%d != 0 {
		return nil, 0, fmt.Errorf("input has %d values, not a whole number of rows of %d features", len(x), d)
	}
	n := len(x) / d
	for start := 0; start < n; start += PredictionChunk {
		end := min(start+PredictionChunk, n)
		t, err := exec.Call1(tensors.FromFlatDataAndDimensions(x[start*d:end*d], end-start, d))
		if err != nil {
			return nil, 0, fmt.Errorf("evaluating rows %d–%d: %w", start, end-1, err)
		}
		if width == 0 {
			width = t.Shape().Dimensions[1]
			out = make([]float32, 0, n*width)
		}
		out = append(out, tensors.MustCopyFlatData[float32](t)...)
		t.MustFinalizeAll()
	}
	return out, width, nil
}

// Logits returns the row-major [n, K] logits of the rows of x.
func Logits(backend compute.Backend, clf Classifier, x []float32) ([]float32, error) {
	return KeptLogits(nil, backend, clf, x)
}

// Probabilities returns the row-major [n, K] softmax probabilities of the rows of x.
func Probabilities(backend compute.Backend, clf Classifier, x []float32) ([]float32, error) {
	return KeptProbabilities(nil, backend, clf, x)
}

// Predict returns the arg-max class of each row of x.
func Predict(backend compute.Backend, clf Classifier, x []float32) ([]int, error) {
	return KeptPredict(nil, backend, clf, x)
}

func argmaxRows(v []float32, k int) []int {
	out := make([]int, len(v)/k)
	for i := range out {
		row := v[i*k : (i+1)*k]
		best := 0
		for j, x := range row {
			if x > row[best] {
				best = j
			}
		}
		out[i] = best
	}
	return out
}
