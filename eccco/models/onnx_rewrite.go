package models

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// rewrittenOps are the operators that onnx-gomlx v0.5.5 does not convert and that rewriteOps writes as
// ones it does (their ONNX definitions).
var rewrittenOps = []string{"LeakyRelu", "PRelu", "Elu", "Selu", "Softplus"}

// prepareGraph makes what the common exporters write readable by onnx-gomlx: initialisers also listed as
// graph inputs (older exporters, IR version < 4) are dropped from the inputs (the initialiser is the
// value), a tensor that no node, initialiser or input provides is an error naming it, and the
// operators of rewrittenOps are rewritten.
func prepareGraph(pm *protos.ModelProto) error {
	g := pm.Graph
	inits := map[string]*protos.TensorProto{}
	for _, t := range g.Initializer {
		inits[t.Name] = t
	}
	g.Input = slices.DeleteFunc(g.Input, func(v *protos.ValueInfoProto) bool { return inits[v.Name] != nil })
	known := map[string]bool{}
	for name := range inits {
		known[name] = true
	}
	for _, v := range g.Input {
		known[v.Name] = true
	}
	for _, n := range g.Node {
		for _, in := range n.Input {
			if in != "" && !known[in] {
				return fmt.Errorf("%w: node %q (%s) reads the tensor %q, which no initialiser, node or graph input provides: the file lacks that weight (a model saved without its weights or its external data file, or a graph edited by hand); export the model again",
					ErrONNX, n.Name, n.OpType, in)
			}
		}
		for _, out := range n.Output {
			known[out] = true
		}
	}
	if len(g.Input) == 1 {
		if tt, ok := g.Input[0].GetType().GetValue().(*protos.TypeProto_TensorType); ok {
			rewriteOps(g, protos.TensorProto_DataType(tt.TensorType.ElemType))
		}
	}
	return nil
}

// rewriteOps replaces LeakyRelu, PRelu, Elu, Selu and Softplus nodes by their definitions in operators
// that onnx-gomlx converts, with constants of type dt (the input's: float or double; other types leave
// the nodes as they are, and onnx-gomlx refuses them by name):
//
//	LeakyRelu(x) = Relu(x) − α·Relu(−x)               (α default 0.01)
//	PRelu(x, s)  = Relu(x) − s·Relu(−x)
//	Elu(x)       = Relu(x) + α·(exp(min(x, 0)) − 1)   (α default 1)
//	Selu(x)      = γ·(Relu(x) + α·(exp(min(x, 0)) − 1)) (α ≈ 1.6733, γ ≈ 1.0507)
//	Softplus(x)  = x where x > 20, else log(1 + exp(min(x, 20)))
//
// Softplus's form keeps exp from overflowing and its gradient σ(x) exact (1/2 at 0); above 20,
// log(1 + eˣ) and x differ by less than 2.1e−9.
func rewriteOps(g *protos.GraphProto, dt protos.TensorProto_DataType) {
	if dt != protos.TensorProto_FLOAT && dt != protos.TensorProto_DOUBLE {
		return
	}
	used := map[string]bool{}
	for _, t := range g.Initializer {
		used[t.Name] = true
	}
	for _, n := range g.Node {
		for _, o := range n.Output {
			used[o] = true
		}
	}
	fresh := func(base string) string {
		for i := 0; ; i++ {
			name := fmt.Sprintf("%s__eccco%d", base, i)
			if !used[name] {
				used[name] = true
				return name
			}
		}
	}
	konst := func(base string, v float64) string {
		name := fresh(base)
		t := &protos.TensorProto{Name: name, DataType: int32(dt)}
		if dt == protos.TensorProto_DOUBLE {
			t.DoubleData = []float64{v}
		} else {
			t.FloatData = []float32{float32(v)}
		}
		g.Initializer = append(g.Initializer, t)
		return name
	}
	var out []*protos.NodeProto
	for _, n := range g.Node {
		if n.Domain != "" && n.Domain != "ai.onnx" || !slices.Contains(rewrittenOps, n.OpType) || len(n.Input) == 0 || len(n.Output) != 1 {
			out = append(out, n)
			continue
		}
		x, y := n.Input[0], n.Output[0]
		op := func(typ string, in ...string) string {
			o := fresh(y)
			out = append(out, &protos.NodeProto{OpType: typ, Name: o, Input: in, Output: []string{o}})
			return o
		}
		last := func(typ string, in ...string) {
			out = append(out, &protos.NodeProto{OpType: typ, Name: n.Name, Input: in, Output: []string{y}})
		}
		attr := func(name string, def float64) float64 {
			for _, a := range n.Attribute {
				if a.Name == name {
					return float64(a.F)
				}
			}
			return def
		}
		elu := func(alpha float64) (relu, neg string) {
			e := op("Exp", op("Min", x, konst(y, 0)))
			return op("Relu", x), op("Mul", op("Sub", e, konst(y, 1)), konst(y, alpha))
		}
		switch n.OpType {
		case "LeakyRelu", "PRelu":
			slope := ""
			if n.OpType == "PRelu" {
				if len(n.Input) < 2 {
					out = append(out, n)
					continue
				}
				slope = n.Input[1]
			} else {
				slope = konst(y, attr("alpha", 0.01))
			}
			last("Sub", op("Relu", x), op("Mul", op("Relu", op("Neg", x)), slope))
		case "Elu":
			r, e := elu(attr("alpha", 1))
			last("Add", r, e)
		case "Selu":
			r, e := elu(attr("alpha", 1.67326319217681884765625))
			last("Mul", op("Add", r, e), konst(y, attr("gamma", 1.05070102214813232421875)))
		case "Softplus":
			t := konst(y, 20)
			soft := op("Log", op("Add", op("Exp", op("Min", x, t)), konst(y, 1)))
			last("Where", op("Greater", x, t), x, soft)
		}
	}
	g.Node = out
}

// fixedBatch returns the fixed batch dimension of the graph's one input (0 when it is symbolic or
// absent).
func fixedBatch(pm *protos.ModelProto) int {
	if len(pm.Graph.Input) != 1 {
		return 0
	}
	tt, ok := pm.Graph.Input[0].GetType().GetValue().(*protos.TypeProto_TensorType)
	if !ok || tt.TensorType.Shape == nil || len(tt.TensorType.Shape.Dim) == 0 {
		return 0
	}
	if v, ok := tt.TensorType.Shape.Dim[0].Value.(*protos.TensorShapeProto_Dimension_DimValue); ok && v.DimValue > 0 {
		return int(v.DimValue)
	}
	return 0
}

// freeBatch returns a copy of a graph whose input has the fixed batch dimension n with that dimension
// made symbolic: in the input, in the outputs whose first dimension is n, and in every Reshape whose
// target shape (an initialiser or a Constant) starts with n, which then reads −1 (or 0, "as the input's
// first axis", where another axis is −1). The shapes recorded for intermediate values are dropped (the
// converter infers them). A graph that mixes its rows otherwise is found out by the comparison in
// fromONNX.
func freeBatch(pm *protos.ModelProto, n int) *protos.ModelProto {
	c := proto.Clone(pm).(*protos.ModelProto)
	g := c.Graph
	free := func(v *protos.ValueInfoProto) {
		tt, ok := v.GetType().GetValue().(*protos.TypeProto_TensorType)
		if !ok || tt.TensorType.Shape == nil || len(tt.TensorType.Shape.Dim) == 0 {
			return
		}
		if d, ok := tt.TensorType.Shape.Dim[0].Value.(*protos.TensorShapeProto_Dimension_DimValue); ok && d.DimValue == int64(n) {
			tt.TensorType.Shape.Dim[0].Value = &protos.TensorShapeProto_Dimension_DimParam{DimParam: "batch"}
		}
	}
	free(g.Input[0])
	for _, v := range g.Output {
		free(v)
	}
	g.ValueInfo = nil
	inits := map[string]*protos.TensorProto{}
	for _, t := range g.Initializer {
		inits[t.Name] = t
	}
	consts := map[string]*protos.TensorProto{}
	for _, nd := range g.Node {
		if nd.OpType == "Constant" && len(nd.Output) == 1 {
			for _, a := range nd.Attribute {
				if a.Name == "value" && a.T != nil {
					consts[nd.Output[0]] = a.T
				}
			}
		}
	}
	k := 0
	for _, nd := range g.Node {
		if nd.OpType != "Reshape" || len(nd.Input) < 2 {
			continue
		}
		t := inits[nd.Input[1]]
		if t == nil {
			t = consts[nd.Input[1]]
		}
		shape, ok := int64s(t)
		if !ok || len(shape) == 0 || shape[0] != int64(n) {
			continue
		}
		shape = slices.Clone(shape)
		shape[0] = -1
		if slices.Contains(shape[1:], -1) {
			shape[0] = 0
		}
		name := fmt.Sprintf("%s__eccco_batch%d", nd.Input[1], k)
		k++
		g.Initializer = append(g.Initializer, &protos.TensorProto{Name: name, Dims: []int64{int64(len(shape))}, DataType: int32(protos.TensorProto_INT64), Int64Data: shape})
		nd.Input[1] = name
	}
	return c
}

// int64s reads an INT64 tensor's values, stored as int64_data or raw_data.
func int64s(t *protos.TensorProto) ([]int64, bool) {
	if t == nil || t.DataType != int32(protos.TensorProto_INT64) || t.DataLocation == protos.TensorProto_EXTERNAL {
		return nil, false
	}
	if len(t.RawData) > 0 {
		if len(t.RawData)%8 != 0 {
			return nil, false
		}
		v := make([]int64, len(t.RawData)/8)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(t.RawData[8*i:]))
		}
		return v, true
	}
	return t.Int64Data, true
}

// batchAdvice is how to export a free batch dimension from PyTorch.
const batchAdvice = "export with torch.onnx.export(..., input_names=['x'], output_names=['logits'], dynamic_axes={'x': {0: 'batch'}, 'logits': {0: 'batch'}})"

// firstLine is the first line of an error message, without GoMLX's wrapping of the graph function.
func firstLine(s string) string {
	if i := strings.LastIndex(s, "panicked: "); i >= 0 {
		s = s[i+len("panicked: "):]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// agree reports whether two [n, k] results agree to float32 rounding.
func agree(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) || d > 1e-4*max(1, math.Abs(float64(a[i]))) {
			return false
		}
	}
	return true
}
