package models

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// float32Bytes is the little-endian encoding of v, ONNX's raw and external tensor data.
func float32Bytes(v ...float32) []byte {
	out := make([]byte, 0, 4*len(v))
	for _, x := range v {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x))
	}
	return out
}

// readBinarySigmoid reads testdata/binary-sigmoid.onnx (z = x·w + 0.25, w = (1, −2, 0.5)) as a protobuf.
func readBinarySigmoid(t *testing.T) *protos.ModelProto {
	t.Helper()
	raw, err := os.ReadFile("testdata/binary-sigmoid.onnx")
	if err != nil {
		t.Fatal(err)
	}
	var pm protos.ModelProto
	if err := proto.Unmarshal(raw, &pm); err != nil {
		t.Fatal(err)
	}
	return &pm
}

// TestFromONNXExternalDataBesideModel: a tensor stored in a separate file (external data, its "location"
// relative to the model, as the ONNX format defines it) is read from beside the model file, not from the
// working directory, even where the working directory has a file of that name. The model is
// binary-sigmoid.onnx (z = x·w + 0.25) with w = (1, −2, 0.5) moved to weights.data.
func TestFromONNXExternalDataBesideModel(t *testing.T) {
	pm := readBinarySigmoid(t)
	var moved bool
	for _, init := range pm.Graph.Initializer {
		if init.Name == "w" {
			init.RawData, init.FloatData = nil, nil
			init.DataLocation = protos.TensorProto_EXTERNAL
			init.ExternalData = []*protos.StringStringEntryProto{{Key: "location", Value: "weights.data"}, {Key: "offset", Value: "0"}, {Key: "length", Value: "12"}}
			moved = true
		}
	}
	if !moved {
		t.Fatal("binary-sigmoid.onnx has no initializer w")
	}
	out, err := proto.Marshal(pm)
	if err != nil {
		t.Fatal(err)
	}
	modelDir, workDir := t.TempDir(), t.TempDir()
	path := filepath.Join(modelDir, "model.onnx")
	for p, b := range map[string][]byte{path: out, filepath.Join(modelDir, "weights.data"): float32Bytes(1, -2, 0.5),
		filepath.Join(workDir, "weights.data"): float32Bytes(10, 10, 10)} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(workDir)
	b := testBackend(t)
	clf, err := FromONNX(b, path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Logits(b, clf, []float32{1, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	// z = 1 − 2 + 0.5·2 + 0.25 = 0.25 with the model's weights (another folder's give 40.25); logits (0, z).
	if len(got) != 2 || math.Abs(float64(got[1])-0.25) > 1e-6 || got[0] != 0 {
		t.Errorf("logits %v, want (0, 0.25): the model's own weights.data", got)
	}
}

// TestFromONNXExternalDataMissing: a missing external data file is an error naming it, not a model.
func TestFromONNXExternalDataMissing(t *testing.T) {
	pm := readBinarySigmoid(t)
	for _, init := range pm.Graph.Initializer {
		if init.Name == "w" {
			init.RawData, init.FloatData = nil, nil
			init.DataLocation = protos.TensorProto_EXTERNAL
			init.ExternalData = []*protos.StringStringEntryProto{{Key: "location", Value: "weights.data"}, {Key: "length", Value: "12"}}
		}
	}
	out, err := proto.Marshal(pm)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FromONNX(testBackend(t), path); err == nil || !strings.Contains(err.Error(), "weights.data") {
		t.Errorf("err = %v, want one naming weights.data", err)
	}
}

// TestFromONNXExternalDataUnreadable: an external data file that is missing, or shorter than the tensors
// it should hold, is an error in the user's words, naming the tensor and the file beside the model, and
// no Go API name (onnx-gomlx's own error named Model.VariablesToScope()).
func TestFromONNXExternalDataUnreadable(t *testing.T) {
	pm := readBinarySigmoid(t)
	for _, init := range pm.Graph.Initializer {
		if init.Name == "w" {
			init.RawData, init.FloatData = nil, nil
			init.DataLocation = protos.TensorProto_EXTERNAL
			init.ExternalData = []*protos.StringStringEntryProto{{Key: "location", Value: "weights.data"}, {Key: "offset", Value: "0"}, {Key: "length", Value: "12"}}
		}
	}
	out, err := proto.Marshal(pm)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"missing": nil, "short": float32Bytes(1, -2)} {
		dir := t.TempDir()
		path := filepath.Join(dir, "model.onnx")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		if data != nil {
			if err := os.WriteFile(filepath.Join(dir, "weights.data"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := FromONNX(testBackend(t), path)
		t.Log(err)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "weights.data")) || !strings.Contains(err.Error(), `"w"`) ||
			strings.Contains(err.Error(), "Model.") || strings.Contains(err.Error(), "()") {
			t.Errorf("%s: err = %v, want one naming the tensor \"w\" and %s, no Go API names", name, err, filepath.Join(dir, "weights.data"))
		}
	}
}

// TestFromONNXEmptyFile: an empty file is said to be empty, not "not an ONNX model file (<nil>)".
func TestFromONNXEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.onnx")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := FromONNX(testBackend(t), path)
	if err == nil || !strings.Contains(err.Error(), "empty") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("err = %v, want one saying the file is empty", err)
	}
}
