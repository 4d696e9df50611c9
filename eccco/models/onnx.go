package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute-onnx/support/protos"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
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
func fromONNX(backend compute.Backend, raw []byte, baseDir string) (c *ONNX, err error) {
	var pm protos.ModelProto
	if err := proto.Unmarshal(raw, &pm); err != nil || pm.Graph == nil {
		return nil, fmt.Errorf("%w: not an ONNX model file (%v)", ErrONNX, err)
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
	c = &ONNX{m: m, store: model.NewStore(), input: inNames[0], logits: outNames[0], d: is.Dimensions[1], k: os.Dimensions[1]}
	if node := producer(&pm, outNames[0]); node != nil && len(node.Input) == 1 {
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
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("%w: converting its graph: %v", ErrONNX, r)
		}
	}()
	exec, err := model.NewExec(backend, c.store, func(_ *model.Scope, x *Node) *Node { return c.Logits(x) })
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrONNX, err)
	}
	defer exec.Finalize()
	out, err := exec.Call1(tensorRows(make([]float32, 2*c.d), 2, c.d))
	if err != nil {
		if m := unimplementedOp.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%w: operator %s is not supported by onnx-gomlx (in %s)", ErrONNX, m[1], m[2])
		}
		return nil, fmt.Errorf("%w: converting its graph: %v", ErrONNX, err)
	}
	out.MustFinalizeAll()
	return c, nil
}

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
	out := c.m.CallGraph(c.store.RootScope(), x.Graph(), map[string]*Node{c.input: x}, c.logits)[0]
	if out.DType() != dt {
		out = ConvertDType(out, dt)
	}
	if c.binary {
		return Concatenate([]*Node{ZerosLike(out), out}, -1)
	}
	return out
}

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
