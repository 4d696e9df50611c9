package models

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

const exampleDir = "../../examples/onnx-credit"

// TestFromONNXMatchesPyTorch compares the converted graph's logits with PyTorch's own, written by the
// example's train.py (reference.csv), on the first 20 rows of its CSV encoded by the schema.
func TestFromONNXMatchesPyTorch(t *testing.T) {
	b := testBackend(t)
	s, err := data.ReadSchema(filepath.Join(exampleDir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := data.ReadTable(filepath.Join(exampleDir, "credit.csv"), s)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(exampleDir, "reference.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs = recs[1:]
	x := tb.Data.X[:len(recs)*tb.Data.D()]
	for _, name := range []string{"credit.onnx", "credit-softmax.onnx"} {
		clf, err := FromONNX(b, filepath.Join(exampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if clf.NumFeatures() != s.Width() || clf.NumClasses() != 2 {
			t.Fatalf("%s: D = %d, K = %d; want %d, 2", name, clf.NumFeatures(), clf.NumClasses(), s.Width())
		}
		if want := map[string]string{"credit.onnx": "logits", "credit-softmax.onnx": "softmax"}[name]; clf.Output() != want {
			t.Errorf("%s: Output() = %q, want %q", name, clf.Output(), want)
		}
		got, err := Logits(b, clf, x)
		if err != nil {
			t.Fatal(err)
		}
		for i, rec := range recs {
			for k := range 2 {
				want, _ := strconv.ParseFloat(rec[1+k], 64)
				if d := math.Abs(float64(got[i*2+k]) - want); d > 1e-5*max(1, math.Abs(want)) {
					t.Errorf("%s row %d logit %d = %v, PyTorch's %v", name, i, k, got[i*2+k], want)
				}
			}
		}
	}
}

// TestFromONNXBinaryGradient checks a one-output model, Sigmoid(x·w + b), against its hand-computed
// logits (0, z) and their exact gradient w.
func TestFromONNXBinaryGradient(t *testing.T) {
	b := testBackend(t)
	clf, err := FromONNX(b, "testdata/binary-sigmoid.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if clf.NumFeatures() != 3 || clf.NumClasses() != 2 || clf.Output() != "binary logit" {
		t.Fatalf("D %d K %d output %q", clf.NumFeatures(), clf.NumClasses(), clf.Output())
	}
	got, err := Logits(b, clf, []float32{1, 1, 1, 2, 0, -2})
	if err != nil {
		t.Fatal(err)
	}
	// z = x·(1, −2, 0.5) + 0.25: −0.25 and 1.25.
	for i, want := range []float32{0, -0.25, 0, 1.25} {
		if math.Abs(float64(got[i]-want)) > 1e-6 {
			t.Fatalf("logits = %v, want [0 -0.25 0 1.25]", got)
		}
	}
	exec, err := model.NewExec(b, model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		l := clf.Logits(x)
		return Gradient(ReduceAllSum(Slice(l, AxisRange(), AxisElem(1))), x)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	grad, err := exec.Call1(tensors.FromFlatDataAndDimensions([]float32{1, 1, 1}, 1, 3))
	if err != nil {
		t.Fatal(err)
	}
	if g := tensors.MustCopyFlatData[float32](grad); g[0] != 1 || g[1] != -2 || g[2] != 0.5 {
		t.Fatalf("gradient %v, want the weights [1 -2 0.5]", g)
	}
}

func TestFromONNXErrors(t *testing.T) {
	b := testBackend(t)
	junk := filepath.Join(t.TempDir(), "junk.onnx")
	if err := os.WriteFile(junk, []byte("this is not a protobuf\x00\xff"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"testdata/two-inputs.onnx":  "2 inputs",
		"testdata/rank3.onnx":       "want [B, D]",
		"testdata/unsupported.onnx": "LinearClassifier",
		junk:                        "not an ONNX model",
	} {
		_, err := FromONNX(b, path)
		t.Log(err)
		if !errors.Is(err, ErrONNX) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want ErrONNX containing %q", path, err, want)
		}
	}
	if _, err := FromONNX(b, "testdata/absent.onnx"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: err = %v", err)
	}
}
