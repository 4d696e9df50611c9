package models

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// FuzzFromONNX feeds the ONNX loader of `eccco explain --model M.onnx` and `eccco score` any bytes: it
// never panics (nor dies of an allocation), every error wraps ErrONNX, and a model it returns has D ≥ 1
// inputs and K ≥ 2 classes and gives K finite-shaped logits for each of two rows. Seeds: testdata's small
// models and the example's credit models (examples/onnx-credit), and text that is no protobuf. `go test`
// runs the seeds only (a second or so: each model is converted on the backend); fuzz with
// go test -run '^$' -fuzz FuzzFromONNX -fuzztime 45s ./eccco/models. Crashers found are kept in
// testdata/fuzz/FuzzFromONNX.
func FuzzFromONNX(f *testing.F) {
	for _, p := range []string{"testdata/binary-sigmoid.onnx", "testdata/two-inputs.onnx", "testdata/rank3.onnx", "testdata/unsupported.onnx",
		filepath.Join(exampleDir, "credit.onnx"), filepath.Join(exampleDir, "credit-softmax.onnx")} {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte("this is not a protobuf\x00\xff"))
	f.Add([]byte{})
	b := testBackend(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := fromONNX(b, raw, t.TempDir())
		if err != nil {
			if !errors.Is(err, ErrONNX) {
				t.Fatalf("error does not wrap ErrONNX: %v", err)
			}
			return
		}
		d, k := c.NumFeatures(), c.NumClasses()
		if d < 1 || k < 2 {
			t.Fatalf("a model of %d inputs and %d classes", d, k)
		}
		logits, err := Logits(b, c, make([]float32, 2*d))
		if err != nil {
			return // a graph that converts but fails on these rows (a Reshape to another batch, say)
		}
		if len(logits) != 2*k {
			t.Fatalf("%d logits for 2 rows of %d classes", len(logits), k)
		}
	})
}

// A file that declares a fixed batch of 2⁴⁰ rows, or 2⁴⁰ features, was converted with buffers of that
// many rows: the process died of "fatal error: out of memory" (found while writing FuzzFromONNX).
func TestFromONNXRefusesAbsurdShapes(t *testing.T) {
	raw, err := os.ReadFile("testdata/binary-sigmoid.onnx")
	if err != nil {
		t.Fatal(err)
	}
	for _, dim := range []int{0, 1} {
		var pm protos.ModelProto
		if err := proto.Unmarshal(raw, &pm); err != nil {
			t.Fatal(err)
		}
		tt := pm.Graph.Input[0].GetType().GetValue().(*protos.TypeProto_TensorType)
		tt.TensorType.Shape.Dim[dim].Value = &protos.TensorShapeProto_Dimension_DimValue{DimValue: 1 << 40}
		huge, err := proto.Marshal(&pm)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fromONNX(testBackend(t), huge, t.TempDir())
		if !errors.Is(err, ErrONNX) || !strings.Contains(err.Error(), "beyond what a model is evaluated with") {
			t.Errorf("dimension %d of the input at 2⁴⁰: err = %v", dim, err)
		}
	}
}

// A graph input without a type made onnx-gomlx's parser dereference nil: the process panicked (found by
// FuzzFromONNX, testdata/fuzz/FuzzFromONNX/input-without-type). Now it is ErrONNX.
func TestFromONNXInputWithoutType(t *testing.T) {
	raw, err := os.ReadFile("testdata/binary-sigmoid.onnx")
	if err != nil {
		t.Fatal(err)
	}
	var pm protos.ModelProto
	if err := proto.Unmarshal(raw, &pm); err != nil {
		t.Fatal(err)
	}
	pm.Graph.Input[0].Type = nil
	bad, err := proto.Marshal(&pm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fromONNX(testBackend(t), bad, t.TempDir()); !errors.Is(err, ErrONNX) {
		t.Errorf("err = %v, want ErrONNX", err)
	}
}
