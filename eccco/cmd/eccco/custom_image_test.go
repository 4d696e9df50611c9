package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// The test's images: 12 × 12 pixels (SSIM's 11 × 11 window fits), classes by which third of the rows is
// brightest.
const imgSide = 12

// regionWeights is the model's Gemm: class k's logit is 4 × the mean of its third of the image's rows
// (rows 4k … 4k+3) minus 2 × the mean of the whole image.
func regionWeights() []float32 {
	n := imgSide * imgSide
	w := make([]float32, n*3)
	for p := range n {
		for k := range 3 {
			v := -2 / float32(n)
			if p/imgSide/4 == k {
				v += 4 / float32(n/3)
			}
			w[p*3+k] = v
		}
	}
	return w
}

// regionLogits computes the model by hand, in float64, for the test's own check of validity.
func regionLogits(x []float64) [3]float64 {
	w := regionWeights()
	var z [3]float64
	for p, v := range x {
		for k := range 3 {
			z[k] += v * float64(w[p*3+k])
		}
	}
	for k := range z {
		z[k] += 0.1 * float64(k) // the bias
	}
	return z
}

// writeImageONNX writes the model as torch.onnx.export writes one by default: a fixed batch of 1, a
// Gemm with transB = 1 on the flat pixels.
func writeImageONNX(t *testing.T, path string) {
	t.Helper()
	n := imgSide * imgSide
	w := regionWeights()
	wt := make([]float32, len(w)) // [3, n] for transB
	for p := range n {
		for k := range 3 {
			wt[k*n+p] = w[p*3+k]
		}
	}
	f := int32(protos.TensorProto_FLOAT)
	vi := func(name string, dims ...int64) *protos.ValueInfoProto {
		var ds []*protos.TensorShapeProto_Dimension
		for _, d := range dims {
			ds = append(ds, &protos.TensorShapeProto_Dimension{Value: &protos.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &protos.ValueInfoProto{Name: name, Type: &protos.TypeProto{Value: &protos.TypeProto_TensorType{TensorType: &protos.TypeProto_Tensor{ElemType: f, Shape: &protos.TensorShapeProto{Dim: ds}}}}}
	}
	g := &protos.GraphProto{
		Node: []*protos.NodeProto{{OpType: "Gemm", Name: "fc", Input: []string{"input", "W", "b"}, Output: []string{"logits"},
			Attribute: []*protos.AttributeProto{{Name: "transB", Type: protos.AttributeProto_INT, I: 1}}}},
		Input:  []*protos.ValueInfoProto{vi("input", 1, int64(n))},
		Output: []*protos.ValueInfoProto{vi("logits", 1, 3)},
		Initializer: []*protos.TensorProto{
			{Name: "W", Dims: []int64{3, int64(n)}, DataType: f, FloatData: wt},
			{Name: "b", Dims: []int64{3}, DataType: f, FloatData: []float32{0, 0.1, 0.2}},
		},
	}
	raw, err := proto.Marshal(&protos.ModelProto{IrVersion: 8, Graph: g, OpsetImport: []*protos.OperatorSetIdProto{{Domain: "", Version: 13}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExplainONNXImage explains 12 × 12 images for an ONNX Gemm exported as torch.onnx.export would
// (fixed batch of 1) with an image schema: the written pixels stay within the schema's [0, 1], the
// written "valid" is what the model computed here by hand predicts for the written pixels, the
// implausibility is the mean structural dissimilarity (pixels mapped onto [−1, 1]) to the target class's
// rows, not a Euclidean distance, and
// stderr says which backend ran the images.
func TestExplainONNXImage(t *testing.T) {
	t.Setenv("ECCCO_IMAGE_BACKEND", "go")
	dir := t.TempDir()
	model, csvPath, schema, out := filepath.Join(dir, "m.onnx"), filepath.Join(dir, "img.csv"), filepath.Join(dir, "schema.json"), filepath.Join(dir, "cf.csv")
	writeImageONNX(t, model)
	var b strings.Builder
	for p := range imgSide * imgSide {
		fmt.Fprintf(&b, "px%d,", p)
	}
	b.WriteString("y\n")
	classes := []string{"top", "mid", "bot"}
	for i := range 24 {
		k := i % 3
		for p := range imgSide * imgSide {
			v := 0.1 + 0.3*float64((i*7+p*3)%5)/4 // 0.1 … 0.4
			if p/imgSide/4 == k {
				v += 0.5
			}
			fmt.Fprintf(&b, "%.3f,", v)
		}
		b.WriteString(classes[k] + "\n")
	}
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schema, []byte(`{"target": "y", "classes": ["top", "mid", "bot"], "image": {"height": 12, "width": 12, "prefix": "px", "min": 0, "max": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLI(t, "explain-onnx", "--model", model, "--data", csvPath, "--schema", schema, "--generator", "Wachter", "--rows", "0-5", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "images run on pure Go") || !strings.Contains(stderr, "ECCCO_IMAGE_BACKEND=go") {
		t.Errorf("stderr does not say which backend ran the images:\n%s", stderr)
	}
	written := readCSVFile(t, out)
	if len(written) != 6 {
		t.Fatalf("%d rows written, want 6", len(written))
	}
	facts := readCSVFile(t, csvPath)
	moved := 0
	for i, r := range written {
		row, _ := strconv.Atoi(r["row"])
		x, cf := make([]float64, imgSide*imgSide), make([]float64, imgSide*imgSide)
		xs, cfs := make([]float32, len(x)), make([]float32, len(x))
		for p := range x {
			col := "px" + strconv.Itoa(p)
			if cf[p], err = strconv.ParseFloat(r[col], 64); err != nil {
				t.Fatalf("row %d, %s = %q: %v", i, col, r[col], err)
			}
			if !(cf[p] >= 0 && cf[p] <= 1) {
				t.Errorf("row %d: pixel %s = %v outside [0, 1]", i, col, cf[p])
			}
			x[p], _ = strconv.ParseFloat(facts[row][col], 64)
			xs[p], cfs[p] = float32(2*x[p]-1), float32(2*cf[p]-1)
			if cf[p] != x[p] {
				moved++
			}
		}
		z := regionLogits(cf)
		target := strings.Index("top mid bot", r["target"]) / 4
		valid := z[target] > z[(target+1)%3] && z[target] > z[(target+2)%3]
		if r["valid"] != strconv.FormatBool(valid) {
			t.Errorf("row %d (target %s): written valid = %s, the model's logits of the written pixels %v", row, r["target"], r["valid"], z)
		}
		// The implausibility: the mean structural dissimilarity to the table's rows of the target class.
		var want float64
		var n int
		for _, f := range facts {
			if f["y"] != r["target"] {
				continue
			}
			ys := make([]float32, len(xs))
			for p := range ys {
				v, _ := strconv.ParseFloat(f["px"+strconv.Itoa(p)], 64)
				ys[p] = float32(2*v - 1)
			}
			d, err := metrics.StructuralDissimilarity(cfs, ys, imgSide, imgSide)
			if err != nil {
				t.Fatal(err)
			}
			want, n = want+d, n+1
		}
		want /= float64(n)
		if got, _ := strconv.ParseFloat(r["implausibility"], 64); math.Abs(got-want) > 1e-5*max(1, want) {
			t.Errorf("row %d: implausibility %v, want the mean structural dissimilarity to the %d rows of %s, %v", row, got, n, r["target"], want)
		}
		if v, err := strconv.ParseFloat(r["unfaithfulness"], 64); err != nil || !(v >= 0 && v <= 1) {
			t.Errorf("row %d: unfaithfulness = %q, want a structural dissimilarity in [0, 1]", row, r["unfaithfulness"])
		}
	}
	if moved == 0 {
		t.Error("no pixel moved")
	}
}
