package models

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"google.golang.org/protobuf/proto"
)

// The ONNX graphs of these tests are written here, node by node, as the exporters people use write them
// (torch.onnx.export's defaults, double precision, old exporters' initialisers listed as inputs), and
// each one's output is computed by hand in the test.

// dim is one dimension of a value's shape: an int (fixed) or a string (symbolic).
type dim any

func valueInfo(name string, dt protos.TensorProto_DataType, dims ...dim) *protos.ValueInfoProto {
	var ds []*protos.TensorShapeProto_Dimension
	for _, d := range dims {
		switch v := d.(type) {
		case int:
			ds = append(ds, &protos.TensorShapeProto_Dimension{Value: &protos.TensorShapeProto_Dimension_DimValue{DimValue: int64(v)}})
		case string:
			ds = append(ds, &protos.TensorShapeProto_Dimension{Value: &protos.TensorShapeProto_Dimension_DimParam{DimParam: v}})
		}
	}
	return &protos.ValueInfoProto{Name: name, Type: &protos.TypeProto{Value: &protos.TypeProto_TensorType{TensorType: &protos.TypeProto_Tensor{
		ElemType: int32(dt), Shape: &protos.TensorShapeProto{Dim: ds}}}}}
}

func onnxNode(op string, in, out []string, attrs ...*protos.AttributeProto) *protos.NodeProto {
	return &protos.NodeProto{OpType: op, Name: op + "_" + out[0], Input: in, Output: out, Attribute: attrs}
}

func floatAttr(name string, v float32) *protos.AttributeProto {
	return &protos.AttributeProto{Name: name, Type: protos.AttributeProto_FLOAT, F: v}
}

func floatTensor(name string, dims []int64, v ...float32) *protos.TensorProto {
	return &protos.TensorProto{Name: name, Dims: dims, DataType: int32(protos.TensorProto_FLOAT), FloatData: v}
}

func doubleTensor(name string, dims []int64, v ...float64) *protos.TensorProto {
	return &protos.TensorProto{Name: name, Dims: dims, DataType: int32(protos.TensorProto_DOUBLE), DoubleData: v}
}

func int64Tensor(name string, v ...int64) *protos.TensorProto {
	return &protos.TensorProto{Name: name, Dims: []int64{int64(len(v))}, DataType: int32(protos.TensorProto_INT64), Int64Data: v}
}

// writeONNX writes a model of opset 13 to a temporary file and returns its path.
func writeONNX(t *testing.T, g *protos.GraphProto) string {
	t.Helper()
	g.Name = "test"
	raw, err := proto.Marshal(&protos.ModelProto{IrVersion: 8, Graph: g, OpsetImport: []*protos.OperatorSetIdProto{{Domain: "", Version: 13}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// linear2 is the graph z = x·W + b with W = [[1, −1], [2, 0], [0, 3]] and b = (0.5, −0.5): D = 3, K = 2,
// its input and output of the given batch dimension.
func linear2(batch dim) *protos.GraphProto {
	f := protos.TensorProto_FLOAT
	return &protos.GraphProto{
		Node:        []*protos.NodeProto{onnxNode("MatMul", []string{"x", "W"}, []string{"xw"}), onnxNode("Add", []string{"xw", "b"}, []string{"z"})},
		Input:       []*protos.ValueInfoProto{valueInfo("x", f, batch, 3)},
		Output:      []*protos.ValueInfoProto{valueInfo("z", f, batch, 2)},
		Initializer: []*protos.TensorProto{floatTensor("W", []int64{3, 2}, 1, -1, 2, 0, 0, 3), floatTensor("b", []int64{2}, 0.5, -0.5)},
	}
}

// rowsIn and linear2Want: three rows and their logits under linear2, by hand.
var (
	rowsIn      = []float32{1, 1, 1, 2, 0, -2, -1, 0.5, 0}
	linear2Want = []float32{
		1 + 2 + 0.5, -1 + 3 - 0.5, // (1, 1, 1)
		2 + 0.5, -2 - 6 - 0.5, // (2, 0, −2)
		-1 + 1 + 0.5, 1 - 0.5, // (−1, 0.5, 0)
	}
)

func checkLogits(t *testing.T, clf *ONNX, x, want []float32, tol float64) {
	t.Helper()
	got, err := Logits(testBackend(t), clf, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("logits %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("logits %v, want %v", got, want)
		}
	}
}

// TestFromONNXFixedBatchOfOne: torch.onnx.export's defaults fix the batch dimension at 1 (input [1, 3],
// output [1, 2]); the model is read and explains any number of rows at once.
func TestFromONNXFixedBatchOfOne(t *testing.T) {
	clf, err := FromONNX(testBackend(t), writeONNX(t, linear2(1)))
	if err != nil {
		t.Fatal(err)
	}
	checkLogits(t, clf, rowsIn, linear2Want, 1e-6)
	if !strings.Contains(strings.Join(clf.Notes(), "\n"), "batch") {
		t.Errorf("notes %q: want one saying the fixed batch dimension was made free", clf.Notes())
	}
}

// TestFromONNXFixedBatchReshape: a fixed-batch export whose Reshape hard-codes the batch (shape
// [1, 3], or [1, −1]) is rewritten to [−1, 3] or [0, −1] and made free; one that flattens its row to a
// vector (Reshape [3], then [1, 2]) cannot be and is evaluated one row at a time, saying so and why. All
// give the hand-computed logits.
func TestFromONNXFixedBatchReshape(t *testing.T) {
	for _, c := range []struct {
		shape []int64
		note  string
	}{{[]int64{1, 3}, "made free"}, {[]int64{1, -1}, "made free"}, {[]int64{3}, "one row at a time"}} {
		g := linear2(1)
		g.Node = append([]*protos.NodeProto{onnxNode("Reshape", []string{"x", "shape"}, []string{"xr"})}, g.Node...)
		g.Node[1].Input[0] = "xr"
		g.Initializer = append(g.Initializer, int64Tensor("shape", c.shape...))
		if len(c.shape) == 1 { // xr [3]·W [3, 2] = [2], + b, then Reshape [1, 2]
			g.Node[2].Output[0] = "zv"
			g.Node = append(g.Node, onnxNode("Reshape", []string{"zv", "shape2"}, []string{"z"}))
			g.Initializer = append(g.Initializer, int64Tensor("shape2", 1, 2))
		}
		clf, err := FromONNX(testBackend(t), writeONNX(t, g))
		if err != nil {
			t.Fatalf("Reshape %v: %v", c.shape, err)
		}
		checkLogits(t, clf, rowsIn, linear2Want, 1e-6)
		notes := strings.Join(clf.Notes(), "\n")
		t.Log(notes)
		if !strings.Contains(notes, c.note) {
			t.Errorf("Reshape %v: notes %q, want %q", c.shape, notes, c.note)
		}
	}
}

// TestFromONNXDouble: a model exported in double precision (input, weights and output float64) is read
// and evaluated on float32 rows, its gradient the weights'.
func TestFromONNXDouble(t *testing.T) {
	d := protos.TensorProto_DOUBLE
	g := &protos.GraphProto{
		Node:        []*protos.NodeProto{onnxNode("MatMul", []string{"x", "W"}, []string{"xw"}), onnxNode("Add", []string{"xw", "b"}, []string{"z"})},
		Input:       []*protos.ValueInfoProto{valueInfo("x", d, "batch", 3)},
		Output:      []*protos.ValueInfoProto{valueInfo("z", d, "batch", 2)},
		Initializer: []*protos.TensorProto{doubleTensor("W", []int64{3, 2}, 1, -1, 2, 0, 0, 3), doubleTensor("b", []int64{2}, 0.5, -0.5)},
	}
	clf, err := FromONNX(testBackend(t), writeONNX(t, g))
	if err != nil {
		t.Fatal(err)
	}
	checkLogits(t, clf, rowsIn, linear2Want, 1e-6)
	exec, err := model.NewExec(testBackend(t), model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		return Gradient(ReduceAllSum(Slice(clf.Logits(x), AxisRange(), AxisElem(1))), x)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	grad, err := exec.Call1(tensors.FromFlatDataAndDimensions([]float32{1, 1, 1}, 1, 3))
	if err != nil {
		t.Fatal(err)
	}
	if g := tensors.MustCopyFlatData[float32](grad); g[0] != -1 || g[1] != 0 || g[2] != 3 {
		t.Fatalf("gradient of logit 1: %v, want W's column 1, [-1 0 3]", g)
	}
}

// TestFromONNXInitialisersAsInputs: older exporters list every initialiser among the graph's inputs
// too; the initialiser is the value and x the one input.
func TestFromONNXInitialisersAsInputs(t *testing.T) {
	g := linear2("batch")
	g.Input = append(g.Input, valueInfo("W", protos.TensorProto_FLOAT, 3, 2), valueInfo("b", protos.TensorProto_FLOAT, 2))
	clf, err := FromONNX(testBackend(t), writeONNX(t, g))
	if err != nil {
		t.Fatal(err)
	}
	checkLogits(t, clf, rowsIn, linear2Want, 1e-6)
}

// TestFromONNXActivations: LeakyRelu, Elu, Selu, Softplus and PRelu, which onnx-gomlx v0.5.5 does not
// convert, are rewritten into operators it does; their values are the ONNX definitions' by hand at
// x = (−2, 0, 3) after the identity layer z = x.
func TestFromONNXActivations(t *testing.T) {
	e2 := math.Exp(-2)
	selu := func(v float64) float64 {
		const a, g = 1.67326319217681884765625, 1.05070102214813232421875
		if v > 0 {
			return g * v
		}
		return g * a * (math.Exp(v) - 1)
	}
	sp := func(v float64) float64 { return math.Log1p(math.Exp(v)) }
	cases := []struct {
		op    string
		attrs []*protos.AttributeProto
		slope []float32 // PRelu's second input
		want  []float64
	}{
		{"LeakyRelu", nil, nil, []float64{-0.02, 0, 3}},
		{"LeakyRelu", []*protos.AttributeProto{floatAttr("alpha", 0.2)}, nil, []float64{-0.4, 0, 3}},
		{"Elu", nil, nil, []float64{e2 - 1, 0, 3}},
		{"Elu", []*protos.AttributeProto{floatAttr("alpha", 0.5)}, nil, []float64{0.5 * (e2 - 1), 0, 3}},
		{"Selu", nil, nil, []float64{selu(-2), 0, selu(3)}},
		{"Softplus", nil, nil, []float64{sp(-2), math.Ln2, sp(3)}},
		{"PRelu", nil, []float32{0.25, 0.5, 2}, []float64{-0.5, 0, 3}},
	}
	f := protos.TensorProto_FLOAT
	for _, c := range cases {
		in := []string{"x"}
		var inits []*protos.TensorProto
		if c.slope != nil {
			in = append(in, "slope")
			inits = append(inits, floatTensor("slope", []int64{3}, c.slope...))
		}
		g := &protos.GraphProto{
			Node:        []*protos.NodeProto{onnxNode(c.op, in, []string{"z"}, c.attrs...)},
			Input:       []*protos.ValueInfoProto{valueInfo("x", f, "batch", 3)},
			Output:      []*protos.ValueInfoProto{valueInfo("z", f, "batch", 3)},
			Initializer: inits,
		}
		clf, err := FromONNX(testBackend(t), writeONNX(t, g))
		if err != nil {
			t.Errorf("%s: %v", c.op, err)
			continue
		}
		want := make([]float32, 3)
		for i, v := range c.want {
			want[i] = float32(v)
		}
		checkLogits(t, clf, []float32{-2, 0, 3}, want, 1e-6)
	}
}

// TestFromONNXSoftplusLarge: Softplus(x) is x for large x (no overflow of exp) and its gradient is
// σ(x), 1/2 at 0.
func TestFromONNXSoftplusLarge(t *testing.T) {
	f := protos.TensorProto_FLOAT
	clf, err := FromONNX(testBackend(t), writeONNX(t, &protos.GraphProto{
		Node:   []*protos.NodeProto{onnxNode("Softplus", []string{"x"}, []string{"z"})},
		Input:  []*protos.ValueInfoProto{valueInfo("x", f, "batch", 2)},
		Output: []*protos.ValueInfoProto{valueInfo("z", f, "batch", 2)},
	}))
	if err != nil {
		t.Fatal(err)
	}
	checkLogits(t, clf, []float32{200, -200}, []float32{200, 0}, 1e-4)
	exec, err := model.NewExec(testBackend(t), model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		return Gradient(ReduceAllSum(clf.Logits(x)), x)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	grad, err := exec.Call1(tensors.FromFlatDataAndDimensions([]float32{0, 200}, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if g := tensors.MustCopyFlatData[float32](grad); math.Abs(float64(g[0])-0.5) > 1e-6 || math.Abs(float64(g[1])-1) > 1e-6 {
		t.Fatalf("gradient %v, want [0.5 1]", g)
	}
}

// TestFromONNXWeightErrors: a weight that is missing, or whose shape does not fit, is named.
func TestFromONNXWeightErrors(t *testing.T) {
	missing := linear2("batch")
	missing.Initializer = missing.Initializer[1:] // W gone
	misShaped := linear2("batch")
	misShaped.Initializer[0] = floatTensor("W", []int64{4, 2}, 1, -1, 2, 0, 0, 3, 1, 1)
	for name, c := range map[string]struct {
		g    *protos.GraphProto
		want []string
	}{
		"missing":    {missing, []string{`"W"`, "MatMul", "no initialiser"}},
		"mis-shaped": {misShaped, []string{`"W" [4 2] (initialiser)`, "MatMul"}},
	} {
		_, err := FromONNX(testBackend(t), writeONNX(t, c.g))
		t.Log(err)
		if !errors.Is(err, ErrONNX) {
			t.Errorf("%s: err = %v, want ErrONNX", name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want it to contain %s", name, err, w)
			}
		}
	}
}
