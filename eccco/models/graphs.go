package models

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/ml/model"
)

// Graphs keeps compiled graphs (and values that hold them: samplers, searchers) for reuse across calls,
// keyed by what they compute. Building a graph is cheap on the pure-Go backend, but XLA compiles each one
// (tenths of a second to seconds for a search step), and a benchmark run of a small tabular model
// computes far less than that: the experiment layer keeps one Graphs per data set, so that each model's
// graphs are compiled once for all its runs instead of once per run. A kept graph computes exactly what a
// fresh one does, so results are the same bit for bit with or without a cache.
//
// A key must be comparable (Comparable) and must name everything the graph bakes in as constants (the
// classifier, q̂, SGLD settings …): calls with equal keys share one value. At most Max values are kept;
// beyond it the least recently used one is released as soon as no caller holds it. The zero Graphs is
// ready to use; a nil *Graphs keeps nothing (every call builds afresh). Graphs itself is safe for
// concurrent use; a kept value is as safe as its type is (a counterfactual.Searcher is, an energy.Sampler
// is not).
type Graphs struct {
	// Max bounds the kept values (0: DefaultMaxGraphs).
	Max int

	mu   sync.Mutex
	kept map[any]*keptValue
	uses int
}

// DefaultMaxGraphs is the default bound of Graphs: enough for every graph of five models × ten generators.
const DefaultMaxGraphs = 128

type keptValue struct {
	v       any
	release func()
	refs    int  // callers holding it
	lastUse int  // for the LRU order
	evicted bool // released when the last holder is done
}

// Kept returns the value kept under key in g, building it with build on first use, and done, which the
// caller calls when it no longer uses the value (release then runs if the value was evicted meanwhile).
// With a nil g it builds a fresh value every time, and done releases it.
func Kept[T any](g *Graphs, key any, build func() (T, error), release func(T)) (v T, done func(), err error) {
	if g == nil {
		if v, err = build(); err != nil {
			return v, func() {}, err
		}
		return v, func() { release(v) }, nil
	}
	if !Comparable(key) {
		return v, func() {}, fmt.Errorf("models: graph key %T is not comparable", key)
	}
	g.mu.Lock()
	g.uses++
	kv, ok := g.kept[key]
	if ok {
		t, isT := kv.v.(T)
		if !isT {
			g.mu.Unlock()
			return v, func() {}, fmt.Errorf("models: graph key %v holds a %T, not a %T", key, kv.v, v)
		}
		kv.refs++
		kv.lastUse = g.uses
		g.mu.Unlock()
		return t, g.doneFunc(kv), nil
	}
	g.mu.Unlock()
	// Built outside the lock: compiling may take seconds. Two callers may build the same key at once;
	// the second one's value is then released when it is done.
	if v, err = build(); err != nil {
		return v, func() {}, err
	}
	kv = &keptValue{v: v, release: func() { release(v) }, refs: 1}
	g.mu.Lock()
	defer g.mu.Unlock()
	if have, ok := g.kept[key]; ok {
		release(v)
		t, isT := have.v.(T)
		if !isT {
			return t, func() {}, fmt.Errorf("models: graph key %v holds a %T, not a %T", key, have.v, v)
		}
		have.refs++
		have.lastUse = g.uses
		return t, g.doneFunc(have), nil
	}
	if g.kept == nil {
		g.kept = map[any]*keptValue{}
	}
	kv.lastUse = g.uses
	g.kept[key] = kv
	g.evictLocked()
	return v, g.doneFunc(kv), nil
}

// doneFunc returns the done of one holder of kv.
func (g *Graphs) doneFunc(kv *keptValue) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			kv.refs--
			free := kv.evicted && kv.refs == 0
			g.mu.Unlock()
			if free {
				kv.release()
			}
		})
	}
}

// evictLocked drops the least recently used values beyond Max (releasing those nobody holds).
func (g *Graphs) evictLocked() {
	limit := g.Max
	if limit <= 0 {
		limit = DefaultMaxGraphs
	}
	for len(g.kept) > limit {
		var oldKey any
		var old *keptValue
		for k, kv := range g.kept {
			if old == nil || kv.lastUse < old.lastUse {
				oldKey, old = k, kv
			}
		}
		delete(g.kept, oldKey)
		old.evicted = true
		if old.refs == 0 {
			old.release()
		}
	}
}

// Len returns the number of kept values.
func (g *Graphs) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.kept)
}

// Close releases every kept value (those still held when their holders are done); g may be used again.
func (g *Graphs) Close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, kv := range g.kept {
		delete(g.kept, k)
		kv.evicted = true
		if kv.refs == 0 {
			kv.release()
		}
	}
}

// Comparable reports whether v can be a key of Graphs: a value of a comparable type (a pointer to a
// model, a string, a struct of those). A Classifier from FromFunc is not (it holds a function).
func Comparable(v any) bool {
	return v != nil && comparableValue(reflect.ValueOf(v))
}

// comparableValue reports whether rv can be compared with == without a panic: its type is comparable,
// and so are the dynamic values of the interfaces it holds (in struct fields and array elements).
func comparableValue(rv reflect.Value) bool {
	if !rv.Type().Comparable() {
		return false
	}
	switch rv.Kind() {
	case reflect.Interface:
		return rv.IsNil() || comparableValue(rv.Elem())
	case reflect.Struct:
		for i := range rv.NumField() {
			if !comparableValue(rv.Field(i)) {
				return false
			}
		}
	case reflect.Array:
		for i := range rv.Len() {
			if !comparableValue(rv.Index(i)) {
				return false
			}
		}
	}
	return true
}

// OutputKey names an evaluation graph of a classifier for Graphs: What says what it computes beyond the
// logits ("probabilities", or a description of the constants it bakes in).
type OutputKey struct {
	Clf  Classifier
	What string
}

// KeptOutputs is Outputs with the graph kept in g under key (nil g, or a key that is not comparable, such
// as a FromFunc classifier's: compiled for this call only). The values are those of Outputs, bit for bit.
func KeptOutputs(g *Graphs, key any, backend compute.Backend, clf Classifier, x []float32, fn func(clf Classifier, x *Node) *Node) (out []float32, width int, err error) {
	if d := clf.NumFeatures(); d <= 0 || len(x)%d != 0 {
		return nil, 0, fmt.Errorf("input has %d values, not a whole number of rows of %d features", len(x), d)
	}
	if g != nil && !Comparable(key) {
		g = nil
	}
	exec, done, err := Kept(g, key, func() (*model.Exec, error) {
		e, err := model.NewExec(backend, model.NewStore(), func(_ *model.Scope, xb *Node) *Node { return fn(clf, xb) })
		if err != nil {
			return nil, fmt.Errorf("building prediction graph: %w", err)
		}
		return e, nil
	}, func(e *model.Exec) { e.Finalize() })
	if err != nil {
		return nil, 0, err
	}
	defer done()
	return outputsWith(exec, clf, x)
}

// KeptProbabilities is Probabilities with its graph kept in g.
func KeptProbabilities(g *Graphs, backend compute.Backend, clf Classifier, x []float32) ([]float32, error) {
	out, _, err := KeptOutputs(g, OutputKey{Clf: clf, What: "probabilities"}, backend, clf, x,
		func(c Classifier, xb *Node) *Node { return SoftmaxKeepingNaN(c.Logits(xb)) })
	return out, err
}

// SoftmaxKeepingNaN is the softmax of logits [B, K] over the classes, NaN on every class of a row whose
// logits are not all finite, as the softmax's formula gives in IEEE arithmetic. GoMLX's Softmax on the
// pure-Go backend's SIMD kernels gives a number there instead (exp(NaN) = 0, and max drops a NaN
// operand): softmax(0, NaN) = (1, 0). Finite rows are Softmax's values exactly (each plus 0).
func SoftmaxKeepingNaN(logits *Node) *Node {
	marker := ReduceSum(MulScalar(logits, 0), -1) // 0, or NaN where a logit is NaN or ±Inf (0·∞ = NaN)
	return Add(Softmax(logits, -1), InsertAxes(marker, -1))
}

// KeptLogits is Logits with its graph kept in g.
func KeptLogits(g *Graphs, backend compute.Backend, clf Classifier, x []float32) ([]float32, error) {
	out, _, err := KeptOutputs(g, OutputKey{Clf: clf, What: "logits"}, backend, clf, x,
		func(c Classifier, xb *Node) *Node { return c.Logits(xb) })
	return out, err
}

// KeptPredict is Predict with its graph kept in g.
func KeptPredict(g *Graphs, backend compute.Backend, clf Classifier, x []float32) ([]int, error) {
	logits, err := KeptLogits(g, backend, clf, x)
	if err != nil {
		return nil, err
	}
	return argmaxRows(logits, clf.NumClasses()), nil
}
