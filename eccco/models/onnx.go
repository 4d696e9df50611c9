package models

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute-onnx/support/protos"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/onnx-gomlx/onnx"
	"github.com/gomlx/onnx-gomlx/onnx/parser"
	"google.golang.org/protobuf/proto"
)

// ErrONNX: an ONNX file cannot be explained: it does not parse, its graph does not have one [B, D]
// float input and one [B, K] output, or it uses an operator that onnx-gomlx cannot convert.
var ErrONNX = errors.New("unusable ONNX model")

// ONNX is a classifier read from an ONNX file (FromONNX): its graph converted to GoMLX operations by
// github.com/gomlx/onnx-gomlx, so that gradients with respect to the inputs are exact.
type ONNX struct {
	m             onnx.Model
	store         *model.Store
	input, logits string
	d, k          int
	fromSoftmax   bool
	binary, sigm  bool
	// inDType is the input's type (float32, or float64 for a model exported in double).
	inDType dtypes.DType
	// chunk > 0 is the input's fixed batch dimension: Logits feeds chunk rows at a time.
	chunk int
	notes []string
}

// FromONNX reads a classifier from an ONNX file (e.g. written by torch.onnx.export). Its graph must have
// one input of shape [B, D] (B may be dynamic; D fixed) and one output of shape [B, K]:
//
//   - K ≥ 2 logits are used as they are;
//   - when the output is a Softmax or LogSoftmax over the last axis (probabilities of K ≥ 2 classes), the
//     logits are that operator's input, so the gradients are those of the logits, not of saturated
//     probabilities; a probability computed otherwise (say, exp divided by a sum) would be read as logits,
//     so export logits or end with Softmax;
//   - K = 1 is a binary classifier's logit z (or Sigmoid(z), whose input z is then used): the logits of
//     the classes 0 and 1 are (0, z), whose softmax is (1 − σ(z), σ(z)).
//
// Tensor data stored in separate files (external data) is read from beside the model file.
//
// What the common exporters write is accepted: a fixed batch dimension (torch.onnx.export's default,
// input [1, D]) is made free where the graph gives the same results so (a Reshape that hard-codes the
// batch reads −1 instead), and is otherwise kept, the rows then fed a batch at a time (Notes says which);
// a model in double precision reads the rows converted to float64; initialisers also listed as graph
// inputs (older exporters) are the weights. A weight that is missing or whose shape does not fit its node
// is an error naming it.
//
// Operators: those onnx-gomlx v0.5.5 converts (Abs, Add, And, ArgMax, ArgMin, AveragePool,
// BatchNormalization, Cast, Ceil, Clip, Concat, Constant, ConstantOfShape, Conv, Cos, CumSum, Div,
// Einsum, Equal, Erf, Exp, Expand, FastGelu, Flatten, Floor, Gather, GatherElements, GatherND, Gelu, Gemm,
// GlobalAveragePool, Greater, GreaterOrEqual, HardSwish, Identity, If, IsNaN, LayerNormalization, Less,
// LessOrEqual, Log, LSTM, MatMul, Max, MaxPool, Min, Mod, Mul, Neg, NonZero, Not, Or, Pad, Pow, Range,
// Reciprocal, ReduceL2, ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum, Relu, Reshape, Resize,
// ScatterND, Shape, Sigmoid, Sign, Sin, Size, Slice, Softmax, Split, Sqrt, Squeeze, Sub, Tanh, Tile,
// TopK, Transpose, Trilu, Unsqueeze, Where, Xor and the quantisation and attention operators), and
// LeakyRelu, PRelu, Elu, Selu and Softplus, which are rewritten into those before the conversion; a final
// LogSoftmax is read as a Softmax. Any other operator is an error naming it.
//
// The whole graph is converted once, on the backend, when the file is read, so an unsupported operator is
// an error here (wrapping ErrONNX and naming it), not in a later search.
func FromONNX(backend compute.Backend, path string) (*ONNX, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the ONNX model: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("reading the ONNX model %s: %w", path, err)
	}
	c, err := fromONNX(backend, raw, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// fromONNX reads a model's bytes; baseDir is the model file's folder, where the ONNX format places the
// files of external tensor data (their "location" is relative to the model, not to the working directory).
//
// A graph whose input has a fixed batch dimension n (torch.onnx.export's default: 1) is converted twice:
// as it is, evaluated n rows at a time, and with that dimension made free (freeBatch). The free one is
// kept where it gives the same logits on n + 2 rows; otherwise the first, saying why in Notes.
func fromONNX(backend compute.Backend, raw []byte, baseDir string) (*ONNX, error) {
	var pm protos.ModelProto
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: the file is empty", ErrONNX)
	}
	if err := proto.Unmarshal(raw, &pm); err != nil {
		return nil, fmt.Errorf("%w: not an ONNX model file (%v)", ErrONNX, err)
	}
	if pm.Graph == nil {
		return nil, fmt.Errorf("%w: not an ONNX model file (it holds no graph)", ErrONNX)
	}
	if err := prepareGraph(&pm); err != nil {
		return nil, err
	}
	if err := checkExternalData(&pm, baseDir); err != nil {
		return nil, err
	}
	n := fixedBatch(&pm)
	c, err := buildONNX(backend, &pm, baseDir, n)
	if err != nil || n == 0 {
		return c, err
	}
	rows := make([]float32, (n+2)*c.d)
	for i := range rows {
		rows[i] = float32(math.Sin(0.7*float64(i) + 0.3))
	}
	want, err := Logits(backend, c, rows)
	if err != nil {
		return nil, fmt.Errorf("%w: evaluating it: %v", ErrONNX, err)
	}
	var why string
	free, err := buildONNX(backend, freeBatch(&pm, n), baseDir, 0)
	if err == nil {
		var got []float32
		if got, err = Logits(backend, free, rows); err == nil && agree(got, want) {
			free.notes = append(free.notes, fmt.Sprintf("the batch dimension of input %q is fixed at %d in the file; it is made free, with the same results on %d test rows", c.input, n, n+2))
			return free, nil
		}
		if err == nil {
			why = fmt.Sprintf("made free, the graph gives other results than %d rows at a time: it mixes its rows (a Reshape or a reduction over the batch)", n)
		}
	}
	if ne := (*nodeError)(nil); why == "" && errors.As(err, &ne) {
		why = fmt.Sprintf("made free, node %q (%s) does not convert: %s", ne.node, ne.op, ne.msg)
	} else if why == "" {
		why = "made free, the graph does not convert: " + firstLine(err.Error())
	}
	what := "one row at a time"
	if n > 1 {
		what = fmt.Sprintf("%d rows at a time (the last batch padded)", n)
	}
	c.notes = append(c.notes, fmt.Sprintf("the batch dimension of input %q is fixed at %d in the file and is left so (%s): the model is evaluated %s, which is slower; %s", c.input, n, why, what, batchAdvice))
	return c, nil
}

// The largest shapes buildONNX accepts, so that a file declaring an absurd one (a fixed batch of 2⁴⁰ rows)
// is an error rather than an allocation that kills the process: D at most the largest image of a schema
// (4096 × 4096 pixels), K at most 65,536 classes, a fixed batch of at most 2²⁶ inputs (B·D).
const (
	maxONNXFeatures    = 1 << 24
	maxONNXClasses     = 1 << 16
	maxONNXBatchInputs = 1 << 26
)

// buildONNX converts a prepared graph (prepareGraph); chunk > 0 is its input's fixed batch dimension,
// which Logits then feeds chunk rows at a time.
func buildONNX(backend compute.Backend, pm *protos.ModelProto, baseDir string, chunk int) (c *ONNX, err error) {
	// onnx-gomlx's parser panics on some malformed files (a graph input without a type, say): an error here.
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("%w: the converter cannot read this file (a malformed graph): %v", ErrONNX, r)
		}
	}()
	raw, err := proto.Marshal(pm)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrONNX, err)
	}
	m, err := parser.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrONNX, err)
	}
	m = m.WithBaseDir(baseDir)
	inNames, inShapes := m.Inputs()
	outNames, outShapes := m.Outputs()
	if len(inNames) != 1 {
		return nil, fmt.Errorf("%w: the graph has %d inputs %q, want one [B, D] input", ErrONNX, len(inNames), inNames)
	}
	if len(outNames) != 1 {
		return nil, fmt.Errorf("%w: the graph has %d outputs %q, want one [B, K] output (logits or probabilities)", ErrONNX, len(outNames), outNames)
	}
	is, os := inShapes[0], outShapes[0]
	if is.Rank() != 2 || is.Dimensions[1] <= 0 || !is.DType.IsFloat() {
		return nil, fmt.Errorf("%w: input %q has shape %s, want [B, D] floats with D fixed", ErrONNX, inNames[0], is)
	}
	if os.Rank() != 2 || os.Dimensions[1] <= 0 {
		return nil, fmt.Errorf("%w: output %q has shape %s, want [B, K]", ErrONNX, outNames[0], os)
	}
	if d, k := is.Dimensions[1], os.Dimensions[1]; d > maxONNXFeatures || k > maxONNXClasses || chunk > maxONNXBatchInputs/d {
		return nil, fmt.Errorf("%w: input %q has shape %s and output %q %s: beyond what a model is evaluated with (at most %d features, %d classes, %d inputs in a fixed batch)",
			ErrONNX, inNames[0], is, outNames[0], os, maxONNXFeatures, maxONNXClasses, maxONNXBatchInputs)
	}
	c = &ONNX{m: m, store: model.NewStore(), input: inNames[0], logits: outNames[0], d: is.Dimensions[1], k: os.Dimensions[1],
		inDType: is.DType, chunk: chunk}
	if node := producer(pm, outNames[0]); node != nil && len(node.Input) == 1 {
		switch node.OpType {
		case "Softmax", "LogSoftmax":
			if !lastAxis(node) {
				return nil, fmt.Errorf("%w: the output is a %s over another axis than the classes'", ErrONNX, node.OpType)
			}
			c.logits, c.fromSoftmax = node.Input[0], true
		case "Sigmoid":
			if c.k == 1 {
				c.logits, c.sigm = node.Input[0], true
			}
		}
	}
	if c.k == 1 {
		c.binary, c.k = true, 2
	}
	if err := m.VariablesToScope(c.store.RootScope()); err != nil {
		return nil, fmt.Errorf("%w: reading its weights: %v", ErrONNX, err)
	}
	// Convert the graph once, to report an unsupported operator now.
	if err := c.try(backend, c.logits); err != nil {
		if m := unimplementedOp.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%w: operator %s is not supported by onnx-gomlx (in %s)", ErrONNX, m[1], m[2])
		}
		if d := c.diagnose(backend, pm); d != nil {
			return nil, d
		}
		return nil, fmt.Errorf("%w: converting its graph: %v", ErrONNX, firstLine(err.Error()))
	}
	return c, nil
}

// try converts and evaluates the graph up to the given tensors on two rows of zeros (a panic is an error).
func (c *ONNX) try(backend compute.Backend, names ...string) error {
	out, err := c.evalNames(backend, names...)
	for _, t := range out {
		t.MustFinalizeAll()
	}
	return err
}

// evalNames evaluates the graph's tensors of the given names on two rows of zeros.
func (c *ONNX) evalNames(backend compute.Backend, names ...string) (out []*tensors.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%v", r)
		}
	}()
	exec, err := model.NewExec(backend, c.store, func(_ *model.Scope, x *Node) []*Node { return c.call(x, names...) })
	if err != nil {
		return nil, err
	}
	defer exec.Finalize()
	return exec.Call(tensorRows(make([]float32, 2*c.d), 2, c.d))
}

// diagnose names the first node whose conversion fails and the shapes of its inputs (a weight of the
// wrong shape, say); nil when every node converts on its own.
func (c *ONNX) diagnose(backend compute.Backend, pm *protos.ModelProto) error {
	inits := map[string]bool{}
	for _, t := range pm.Graph.Initializer {
		inits[t.Name] = true
	}
	for _, n := range pm.Graph.Node {
		if len(n.Output) == 0 || n.Output[0] == "" {
			continue
		}
		err := c.try(backend, n.Output[0])
		if err == nil {
			continue
		}
		var ins []string
		var names []string
		for _, in := range n.Input {
			if in != "" {
				names = append(names, in)
			}
		}
		vals, verr := c.evalNames(backend, names...)
		for i, in := range names {
			s := fmt.Sprintf("%q", in)
			if verr == nil {
				s += fmt.Sprintf(" %v", vals[i].Shape().Dimensions)
				vals[i].MustFinalizeAll()
			}
			if inits[in] {
				s += " (initialiser)"
			}
			ins = append(ins, s)
		}
		return &nodeError{node: n.Name, op: n.OpType, inputs: strings.Join(ins, ", "), msg: firstLine(err.Error())}
	}
	return nil
}

// nodeError: a node of the graph does not convert with its inputs' shapes.
type nodeError struct{ node, op, inputs, msg string }

func (e *nodeError) Error() string {
	return fmt.Sprintf("%v: node %q (%s) cannot take its inputs %s, evaluated on 2 rows: %s; is a weight's shape not the layer's (saved from another model or layer size)?",
		ErrONNX, e.node, e.op, e.inputs, e.msg)
}

func (e *nodeError) Unwrap() error { return ErrONNX }

// unimplementedOp matches onnx-gomlx's error for an operator it cannot convert.
var unimplementedOp = regexp.MustCompile(`unimplemented ONNX op "([^"]+)" in ([^\n]*?)(?:\n|$)`)

// producer returns the node whose output is name.
func producer(pm *protos.ModelProto, name string) *protos.NodeProto {
	for _, n := range pm.Graph.Node {
		for _, o := range n.Output {
			if o == name {
				return n
			}
		}
	}
	return nil
}

// lastAxis reports whether a Softmax node normalises over the last axis (ONNX's default since opset 13;
// for a rank-2 output, axis 1 before it).
func lastAxis(n *protos.NodeProto) bool {
	for _, a := range n.Attribute {
		if a.Name == "axis" {
			return a.I == -1 || a.I == 1
		}
	}
	return true
}

// Logits implements Classifier.
func (c *ONNX) Logits(x *Node) *Node {
	dt := x.DType()
	out := c.call(x, c.logits)[0]
	if out.DType() != dt {
		out = ConvertDType(out, dt)
	}
	if c.binary {
		return Concatenate([]*Node{ZerosLike(out), out}, -1)
	}
	return out
}

// call builds the graph's tensors of the given names for the rows x [B, D], x converted to the input's
// type (a model exported in double reads float64) and, for a fixed batch dimension (chunk > 0), fed chunk
// rows at a time, the last chunk padded with zeros and the padding's results dropped.
func (c *ONNX) call(x *Node, names ...string) []*Node {
	if x.DType() != c.inDType {
		x = ConvertDType(x, c.inDType)
	}
	if c.chunk == 0 {
		return c.m.CallGraph(c.store.RootScope(), x.Graph(), map[string]*Node{c.input: x}, names...)
	}
	b := x.Shape().Dimensions[0]
	parts := make([][]*Node, len(names))
	for s := 0; s < b; s += c.chunk {
		e := min(s+c.chunk, b)
		in := Slice(x, AxisRange(s, e))
		if e-s < c.chunk {
			in = Concatenate([]*Node{in, Zeros(x.Graph(), shapes.Make(c.inDType, c.chunk-(e-s), c.d))}, 0)
		}
		outs := c.m.CallGraph(c.store.RootScope(), x.Graph(), map[string]*Node{c.input: in}, names...)
		for i, o := range outs {
			if e-s < c.chunk && o.Rank() > 0 && o.Shape().Dimensions[0] == c.chunk {
				o = Slice(o, AxisRange(0, e-s))
			}
			parts[i] = append(parts[i], o)
		}
	}
	out := make([]*Node, len(names))
	for i, p := range parts {
		out[i] = p[0]
		if len(p) > 1 && p[0].Rank() > 0 {
			out[i] = Concatenate(p, 0)
		}
	}
	return out
}

// Notes are what reading the file changed or chose, for the user to know (empty for most models): a
// fixed batch dimension made free, or kept and evaluated a batch at a time.
func (c *ONNX) Notes() []string { return c.notes }

// NumFeatures implements Classifier.
func (c *ONNX) NumFeatures() int { return c.d }

// NumClasses implements Classifier (2 for a model with one output).
func (c *ONNX) NumClasses() int { return c.k }

// Output describes how the model's output is read: "logits", "softmax" (the logits before it) or
// "binary logit" (with or without a final sigmoid).
func (c *ONNX) Output() string {
	switch {
	case c.binary:
		return "binary logit"
	case c.fromSoftmax:
		return "softmax"
	}
	return "logits"
}

// checkExternalData checks, before onnx-gomlx reads them, that every tensor stored as external data has
// its file beside the model (baseDir) and that the file holds the tensor's bytes, naming the tensor and
// the file where not.
func checkExternalData(pm *protos.ModelProto, baseDir string) error {
	size := map[protos.TensorProto_DataType]int64{protos.TensorProto_FLOAT: 4, protos.TensorProto_DOUBLE: 8,
		protos.TensorProto_INT64: 8, protos.TensorProto_INT32: 4, protos.TensorProto_FLOAT16: 2, protos.TensorProto_BFLOAT16: 2,
		protos.TensorProto_INT8: 1, protos.TensorProto_UINT8: 1, protos.TensorProto_BOOL: 1}
	for _, t := range pm.Graph.Initializer {
		if t.DataLocation != protos.TensorProto_EXTERNAL {
			continue
		}
		var location string
		offset, length := int64(0), int64(-1)
		for _, kv := range t.ExternalData {
			switch kv.Key {
			case "location":
				location = kv.Value
			case "offset", "length":
				v, err := strconv.ParseInt(kv.Value, 10, 64)
				if err != nil || v < 0 {
					return fmt.Errorf("%w: tensor %q: its external data's %s %q is not a byte count", ErrONNX, t.Name, kv.Key, kv.Value)
				}
				if kv.Key == "offset" {
					offset = v
				} else {
					length = v
				}
			}
		}
		if location == "" {
			return fmt.Errorf("%w: tensor %q is stored as external data but names no file (no \"location\")", ErrONNX, t.Name)
		}
		if length < 0 {
			if es, ok := size[protos.TensorProto_DataType(t.DataType)]; ok {
				length = es
				for _, d := range t.Dims {
					length *= d
				}
			}
		}
		file := filepath.Join(baseDir, location)
		fi, err := os.Stat(file)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%w: tensor %q is stored in the external data file %s (beside the model), which does not exist; copy the model's data file with it, or export the model again", ErrONNX, t.Name, file)
		case err != nil:
			return fmt.Errorf("%w: tensor %q: its external data file: %v", ErrONNX, t.Name, err)
		case fi.IsDir():
			return fmt.Errorf("%w: tensor %q is stored in the external data file %s, which is a folder", ErrONNX, t.Name, file)
		case length >= 0 && offset+length > fi.Size():
			return fmt.Errorf("%w: tensor %q is stored in the external data file %s at bytes %d to %d, but the file holds %d bytes (cut short, or another model's)", ErrONNX, t.Name, file, offset, offset+length, fi.Size())
		}
	}
	return nil
}
