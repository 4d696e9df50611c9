// Command onnxfixtures writes the ONNX models of scripts/faults.sh's "your own model" cases (variants of
// examples/onnx-credit/credit.onnx, as exporters and mistakes write them) and re-checks counterfactuals
// written by eccco against the model by a path of its own: the schema's encoding and the MLP evaluated
// here in float64 from the ONNX file's weights (no eccco code, no onnx-gomlx).
//
//	onnxfixtures write --from credit.onnx DIR   the variants (listed in write's comment) into DIR
//	onnxfixtures check --model M.onnx --schema S.json --data D.csv CF.csv
//	                                            each line's predicted, target_probability and valid against
//	                                            the model, and the schema's bounds, categories and
//	                                            mutability against the factual (the data row "row")
package main

import (
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: onnxfixtures write --from credit.onnx DIR | check --model M --schema S --data D CF.csv")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "write":
		fs := flag.NewFlagSet("write", flag.ExitOnError)
		from := fs.String("from", "", "the model the variants derive from (credit.onnx)")
		_ = fs.Parse(os.Args[2:])
		if fs.NArg() != 1 || *from == "" {
			err = errors.New("write --from credit.onnx DIR")
		} else {
			err = write(*from, fs.Arg(0))
		}
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		model := fs.String("model", "", "the ONNX model")
		schema := fs.String("schema", "", "the schema JSON")
		data := fs.String("data", "", "the data CSV (the factuals)")
		_ = fs.Parse(os.Args[2:])
		if fs.NArg() != 1 || *model == "" || *schema == "" || *data == "" {
			err = errors.New("check --model M --schema S --data D CF.csv")
		} else {
			err = check(*model, *schema, *data, fs.Arg(0))
		}
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "onnxfixtures:", err)
		os.Exit(1)
	}
}

// ---- writing the variants ----------------------------------------------------------------------------

func read(path string) (*protos.ModelProto, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m protos.ModelProto
	if err := proto.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

func save(m *protos.ModelProto, path string) error {
	raw, err := proto.Marshal(m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, raw, 0o644)
}

// values returns a FLOAT or DOUBLE tensor's values (raw or typed data).
func values(t *protos.TensorProto) ([]float64, error) {
	switch protos.TensorProto_DataType(t.DataType) {
	case protos.TensorProto_FLOAT:
		if len(t.RawData) > 0 {
			v := make([]float64, len(t.RawData)/4)
			for i := range v {
				v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:])))
			}
			return v, nil
		}
		v := make([]float64, len(t.FloatData))
		for i, x := range t.FloatData {
			v[i] = float64(x)
		}
		return v, nil
	case protos.TensorProto_DOUBLE:
		if len(t.RawData) > 0 {
			v := make([]float64, len(t.RawData)/8)
			for i := range v {
				v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.RawData[8*i:]))
			}
			return v, nil
		}
		return slices.Clone(t.DoubleData), nil
	}
	return nil, fmt.Errorf("tensor %q: data type %d, not float or double", t.Name, t.DataType)
}

// setFloats stores v in t as raw float32 data.
func setFloats(t *protos.TensorProto, v []float64) {
	raw := make([]byte, 0, 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(x)))
	}
	t.DataType, t.RawData, t.FloatData, t.DoubleData = int32(protos.TensorProto_FLOAT), raw, nil, nil
}

func init1(m *protos.ModelProto, name string) *protos.TensorProto {
	for _, t := range m.Graph.Initializer {
		if t.Name == name {
			return t
		}
	}
	panic("credit.onnx has no initialiser " + name + "; the variants need its layout (Sub, Div, Gemm, Relu, Gemm, Relu, Gemm)")
}

func setDim(vi *protos.ValueInfoProto, axis int, v int64) {
	vi.Type.GetTensorType().Shape.Dim[axis].Value = &protos.TensorShapeProto_Dimension_DimValue{DimValue: v}
}

// write writes into dir, from credit.onnx (x [batch, 35] → Sub mean, Div sd, Gemm, Relu, Gemm, Relu,
// Gemm → logits [batch, 2]):
//
//	batch1.onnx        torch.onnx.export's default: input and output of a fixed batch of 1
//	double.onnx        exported in float64: input, weights and output double
//	inits-inputs.onnx  an older exporter's: every initialiser also listed as a graph input
//	leakyrelu.onnx, elu.onnx, softplus.onnx   the ReLUs replaced (LeakyRelu α 0.01, Elu α 1, Softplus)
//	sigmoid.onnx       a binary head: one output Sigmoid(logit_good − logit_bad)
//	ext/model.onnx, ext/weights.data           the weights as external data beside the model, and
//	weights.data       a decoy at dir's top (the working directory of that case): the weights negated
//	ext-missing/model.onnx                     the same model without its weights.data
//	missing-weight.onnx   mlp.2.weight gone; misshaped-weight.onnx: mlp.2.weight [16, 15]
//	nan-rows.onnx      logits + 0·sqrt(duration_months − 12): NaN at every row of a duration below 12
//	nan-all.onnx       logits + NaN
//	wide.onnx          36 inputs (the schema encodes 35); three-classes.onnx: 3 outputs (the schema has 2)
//	celu.onnx          an operator neither onnx-gomlx nor eccco converts (Celu)
//	not-onnx.onnx      a text file; truncated.onnx: credit.onnx's first half; empty.onnx: no bytes
func write(from, dir string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := func() *protos.ModelProto {
		var m protos.ModelProto
		if err := proto.Unmarshal(raw, &m); err != nil {
			panic(err)
		}
		return &m
	}
	saves := map[string]*protos.ModelProto{}

	m := base()
	setDim(m.Graph.Input[0], 0, 1)
	setDim(m.Graph.Output[0], 0, 1)
	saves["batch1.onnx"] = m

	m = base()
	for _, t := range m.Graph.Initializer {
		v, err := values(t)
		if err != nil {
			return err
		}
		t.DataType, t.RawData, t.FloatData, t.DoubleData = int32(protos.TensorProto_DOUBLE), nil, nil, v
	}
	for _, vi := range []*protos.ValueInfoProto{m.Graph.Input[0], m.Graph.Output[0]} {
		vi.Type.GetTensorType().ElemType = int32(protos.TensorProto_DOUBLE)
	}
	saves["double.onnx"] = m

	m = base()
	for _, t := range m.Graph.Initializer {
		var dims []*protos.TensorShapeProto_Dimension
		for _, d := range t.Dims {
			dims = append(dims, &protos.TensorShapeProto_Dimension{Value: &protos.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		m.Graph.Input = append(m.Graph.Input, &protos.ValueInfoProto{Name: t.Name, Type: &protos.TypeProto{Value: &protos.TypeProto_TensorType{
			TensorType: &protos.TypeProto_Tensor{ElemType: t.DataType, Shape: &protos.TensorShapeProto{Dim: dims}}}}})
	}
	saves["inits-inputs.onnx"] = m

	for name, op := range map[string]string{"leakyrelu.onnx": "LeakyRelu", "elu.onnx": "Elu", "softplus.onnx": "Softplus", "celu.onnx": "Celu"} {
		m = base()
		for _, n := range m.Graph.Node {
			if n.OpType == "Relu" {
				n.OpType = op
			}
		}
		saves[name] = m
	}

	// sigmoid.onnx: z = out·(−1, 1)ᵀ, then Sigmoid; output [batch, 1].
	m = base()
	last := m.Graph.Node[len(m.Graph.Node)-1]
	last.Output[0] = "logits"
	m.Graph.Initializer = append(m.Graph.Initializer, &protos.TensorProto{Name: "diff", Dims: []int64{2, 1}, DataType: int32(protos.TensorProto_FLOAT), FloatData: []float32{-1, 1}})
	m.Graph.Node = append(m.Graph.Node,
		&protos.NodeProto{OpType: "MatMul", Name: "diff", Input: []string{"logits", "diff"}, Output: []string{"z"}},
		&protos.NodeProto{OpType: "Sigmoid", Name: "sigmoid", Input: []string{"z"}, Output: []string{"out"}})
	setDim(m.Graph.Output[0], 1, 1)
	saves["sigmoid.onnx"] = m

	// External data: every initialiser in weights.data, in order.
	ext := func(negate bool) (*protos.ModelProto, []byte) {
		m := base()
		var blob []byte
		for _, t := range m.Graph.Initializer {
			v, err := values(t)
			if err != nil {
				panic(err)
			}
			off := len(blob)
			for _, x := range v {
				if negate {
					x = -x
				}
				blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(float32(x)))
			}
			t.RawData, t.FloatData = nil, nil
			t.DataLocation = protos.TensorProto_EXTERNAL
			t.ExternalData = []*protos.StringStringEntryProto{{Key: "location", Value: "weights.data"},
				{Key: "offset", Value: strconv.Itoa(off)}, {Key: "length", Value: strconv.Itoa(len(blob) - off)}}
		}
		return m, blob
	}
	m, blob := ext(false)
	saves["ext/model.onnx"] = m
	saves["ext-missing/model.onnx"] = m
	_, decoy := ext(true)

	m = base()
	m.Graph.Initializer = slices.DeleteFunc(m.Graph.Initializer, func(t *protos.TensorProto) bool { return t.Name == "mlp.2.weight" })
	saves["missing-weight.onnx"] = m

	m = base()
	w := init1(m, "mlp.2.weight")
	v, _ := values(w)
	w.Dims = []int64{16, 15}
	setFloats(w, v[:16*15])
	saves["misshaped-weight.onnx"] = m

	// nan-rows.onnx: out + 0·Sqrt(Gather(x, 4, axis 1) − 12) (duration_months is input 4).
	m = base()
	last = m.Graph.Node[len(m.Graph.Node)-1]
	last.Output[0] = "logits"
	m.Graph.Initializer = append(m.Graph.Initializer,
		&protos.TensorProto{Name: "col", Dims: []int64{1}, DataType: int32(protos.TensorProto_INT64), Int64Data: []int64{4}},
		&protos.TensorProto{Name: "twelve", DataType: int32(protos.TensorProto_FLOAT), FloatData: []float32{12}},
		&protos.TensorProto{Name: "zero", DataType: int32(protos.TensorProto_FLOAT), FloatData: []float32{0}})
	m.Graph.Node = append(m.Graph.Node,
		&protos.NodeProto{OpType: "Gather", Name: "g", Input: []string{"x", "col"}, Output: []string{"dur"}, Attribute: []*protos.AttributeProto{{Name: "axis", Type: protos.AttributeProto_INT, I: 1}}},
		&protos.NodeProto{OpType: "Sub", Name: "s", Input: []string{"dur", "twelve"}, Output: []string{"d12"}},
		&protos.NodeProto{OpType: "Sqrt", Name: "q", Input: []string{"d12"}, Output: []string{"r"}},
		&protos.NodeProto{OpType: "Mul", Name: "m0", Input: []string{"r", "zero"}, Output: []string{"nan"}},
		&protos.NodeProto{OpType: "Add", Name: "a", Input: []string{"logits", "nan"}, Output: []string{"out"}})
	saves["nan-rows.onnx"] = m

	m = base()
	last = m.Graph.Node[len(m.Graph.Node)-1]
	last.Output[0] = "logits"
	m.Graph.Initializer = append(m.Graph.Initializer, &protos.TensorProto{Name: "nan", DataType: int32(protos.TensorProto_FLOAT), FloatData: []float32{float32(math.NaN())}})
	m.Graph.Node = append(m.Graph.Node, &protos.NodeProto{OpType: "Add", Name: "a", Input: []string{"logits", "nan"}, Output: []string{"out"}})
	saves["nan-all.onnx"] = m

	// wide.onnx: a 36th input (mean 0, sd 1, weight 0).
	m = base()
	for _, name := range []string{"mean", "sd"} {
		t := init1(m, name)
		v, _ := values(t)
		t.Dims = []int64{36}
		setFloats(t, append(v, map[string]float64{"mean": 0, "sd": 1}[name]))
	}
	w = init1(m, "mlp.0.weight")
	v, _ = values(w)
	var v36 []float64
	for r := range 16 {
		v36 = append(append(v36, v[35*r:35*r+35]...), 0)
	}
	w.Dims = []int64{16, 36}
	setFloats(w, v36)
	setDim(m.Graph.Input[0], 1, 36)
	saves["wide.onnx"] = m

	// three-classes.onnx: a third output, logit 0.
	m = base()
	for _, name := range []string{"mlp.4.weight", "mlp.4.bias"} {
		t := init1(m, name)
		v, _ := values(t)
		pad := 16
		if name == "mlp.4.bias" {
			pad = 1
		}
		t.Dims[0] = 3
		setFloats(t, append(v, make([]float64, pad)...))
	}
	setDim(m.Graph.Output[0], 1, 3)
	saves["three-classes.onnx"] = m

	for name, m := range saves {
		if err := save(m, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	for path, b := range map[string][]byte{
		"ext/weights.data": blob, "weights.data": decoy,
		"not-onnx.onnx":  []byte("this is not an ONNX model, just text\n"),
		"truncated.onnx": raw[:len(raw)/2], "empty.onnx": nil,
	} {
		if err := os.WriteFile(filepath.Join(dir, path), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ---- checking counterfactuals by a path of its own -----------------------------------------------------

// mlp evaluates credit.onnx's graph and its variants (Sub, Div, Gemm with transB, the activations,
// MatMul, Sigmoid, Softmax) in float64 on one row; a single output z is read as the logits (0, z) after
// its sigmoid is undone.
type mlp struct {
	nodes []*protos.NodeProto
	init  map[string][]float64
	dims  map[string][]int64
	in    string
	out   string
}

func loadMLP(path string) (*mlp, error) {
	m, err := read(path)
	if err != nil {
		return nil, err
	}
	f := &mlp{nodes: m.Graph.Node, init: map[string][]float64{}, dims: map[string][]int64{}, in: m.Graph.Input[0].Name, out: m.Graph.Output[0].Name}
	for _, t := range m.Graph.Initializer {
		if t.DataLocation == protos.TensorProto_EXTERNAL {
			return nil, fmt.Errorf("%s: external data; check the model it was made from", path)
		}
		v, err := values(t)
		if err != nil {
			return nil, err
		}
		f.init[t.Name], f.dims[t.Name] = v, t.Dims
	}
	return f, nil
}

func attr(n *protos.NodeProto, name string, def float64) float64 {
	for _, a := range n.Attribute {
		if a.Name == name {
			if a.Type == protos.AttributeProto_INT {
				return float64(a.I)
			}
			return float64(a.F)
		}
	}
	return def
}

// logits returns the model's logits at x.
func (f *mlp) logits(x []float64) ([]float64, error) {
	vals := map[string][]float64{f.in: x}
	get := func(name string) []float64 {
		if v, ok := vals[name]; ok {
			return v
		}
		return f.init[name]
	}
	elem := func(a, b []float64, op func(x, y float64) float64) []float64 {
		out := make([]float64, max(len(a), len(b)))
		for i := range out {
			out[i] = op(a[i%len(a)], b[i%len(b)])
		}
		return out
	}
	act := func(a []float64, op func(float64) float64) []float64 {
		out := make([]float64, len(a))
		for i, v := range a {
			out[i] = op(v)
		}
		return out
	}
	sigmoidOut := false
	for _, n := range f.nodes {
		a := get(n.Input[0])
		var r []float64
		switch n.OpType {
		case "Sub":
			r = elem(a, get(n.Input[1]), func(x, y float64) float64 { return x - y })
		case "Div":
			r = elem(a, get(n.Input[1]), func(x, y float64) float64 { return x / y })
		case "Gemm", "MatMul":
			w, dims := get(n.Input[1]), f.dims[n.Input[1]]
			rows, cols := int(dims[0]), int(dims[1]) // W [in, out], or [out, in] with transB
			trans := n.OpType == "Gemm" && attr(n, "transB", 0) == 1
			nOut := cols
			if trans {
				nOut = rows
			}
			r = make([]float64, nOut)
			for o := range nOut {
				for i, v := range a {
					if trans {
						r[o] += v * w[o*cols+i]
					} else {
						r[o] += v * w[i*cols+o]
					}
				}
				if n.OpType == "Gemm" && len(n.Input) > 2 {
					r[o] += get(n.Input[2])[o]
				}
			}
		case "Relu":
			r = act(a, func(v float64) float64 { return max(v, 0) })
		case "LeakyRelu":
			al := attr(n, "alpha", 0.01)
			r = act(a, func(v float64) float64 { return map[bool]float64{true: v, false: al * v}[v >= 0] })
		case "Elu":
			al := attr(n, "alpha", 1)
			r = act(a, func(v float64) float64 { return map[bool]float64{true: v, false: al * (math.Exp(v) - 1)}[v >= 0] })
		case "Softplus":
			r = act(a, func(v float64) float64 { return math.Log1p(math.Exp(v)) })
		case "Sigmoid":
			r, sigmoidOut = slices.Clone(a), n.Output[0] == f.out // read its input, the logit
		case "Softmax":
			r = slices.Clone(a) // logits up to a constant
		default:
			return nil, fmt.Errorf("operator %s: not evaluated by onnxfixtures", n.OpType)
		}
		vals[n.Output[0]] = r
	}
	z := vals[f.out]
	if len(z) == 1 {
		if !sigmoidOut {
			return nil, errors.New("a single output that is not a sigmoid")
		}
		return []float64{0, z[0]}, nil
	}
	return z, nil
}

type feature struct {
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	Categories []string `json:"categories"`
	Levels     []string `json:"levels"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
	Mutable    any      `json:"mutable"`
}

type schema struct {
	Target   string    `json:"target"`
	Classes  []string  `json:"classes"`
	Features []feature `json:"features"`
}

func readCSV(path string) ([]map[string]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rows []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		row := map[string]string{}
		for i, h := range head {
			row[h] = rec[i]
		}
		rows = append(rows, row)
	}
}

// encode is the schema's encoding: numeric as written, categorical one-hot, ordinal its level's index.
func encode(s *schema, row map[string]string) ([]float64, error) {
	var x []float64
	for _, f := range s.Features {
		v, ok := row[f.Name]
		if !ok {
			return nil, fmt.Errorf("no column %q", f.Name)
		}
		switch f.Type {
		case "categorical":
			if !slices.Contains(f.Categories, v) {
				return nil, fmt.Errorf("%s: %q is not one of its categories", f.Name, v)
			}
			for _, c := range f.Categories {
				x = append(x, map[bool]float64{true: 1}[c == v])
			}
		case "ordinal":
			i := slices.Index(f.Levels, v)
			if i < 0 {
				return nil, fmt.Errorf("%s: %q is not one of its levels", f.Name, v)
			}
			x = append(x, float64(i))
		default:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
				return nil, fmt.Errorf("%s: %q is not a finite number", f.Name, v)
			}
			x = append(x, n)
		}
	}
	return x, nil
}

// check re-checks every line of cf: the class probabilities of its features under the model (softmax of
// the logits evaluated here) against its predicted, target_probability and valid columns, and its
// features against the schema and the factual: categories and levels, numeric bounds (the schema's, or
// the data's range), immutable features unchanged, "increase"/"decrease" ones moved that way only.
func check(modelPath, schemaPath, dataPath, cfPath string) error {
	f, err := loadMLP(modelPath)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	data, err := readCSV(dataPath)
	if err != nil {
		return err
	}
	cfs, err := readCSV(cfPath)
	if err != nil {
		return err
	}
	if len(cfs) == 0 {
		return fmt.Errorf("%s: no counterfactuals", cfPath)
	}
	// The data's range of each numeric feature, the default bounds.
	lo, hi := map[string]float64{}, map[string]float64{}
	for _, ft := range s.Features {
		if ft.Type != "numeric" {
			continue
		}
		lo[ft.Name], hi[ft.Name] = math.Inf(1), math.Inf(-1)
		for _, r := range data {
			v, err := strconv.ParseFloat(r[ft.Name], 64)
			if err != nil {
				return fmt.Errorf("%s: %s: %q", dataPath, ft.Name, r[ft.Name])
			}
			lo[ft.Name], hi[ft.Name] = min(lo[ft.Name], v), max(hi[ft.Name], v)
		}
		if ft.Min != nil {
			lo[ft.Name] = *ft.Min
		}
		if ft.Max != nil {
			hi[ft.Name] = *ft.Max
		}
	}
	var bad []string
	for i, c := range cfs {
		line := i + 2
		fail := func(format string, args ...any) {
			bad = append(bad, fmt.Sprintf("%s line %d (%s, row %s): %s", filepath.Base(cfPath), line, c["generator"], c["row"], fmt.Sprintf(format, args...)))
		}
		x, err := encode(&s, c)
		if err != nil {
			fail("%v", err)
			continue
		}
		z, err := f.logits(x)
		if err != nil {
			return err
		}
		mx := slices.Max(z)
		var sum float64
		p := make([]float64, len(z))
		for k, v := range z {
			p[k] = math.Exp(v - mx)
			sum += p[k]
		}
		for k := range p {
			p[k] /= sum
		}
		t := slices.Index(s.Classes, c["target"])
		if t < 0 {
			fail("target %q is not a class", c["target"])
			continue
		}
		got, err := strconv.ParseFloat(c["target_probability"], 64)
		if err != nil {
			fail("target_probability %q", c["target_probability"])
			continue
		}
		if math.Abs(got-p[t]) > 1e-4 {
			fail("target_probability %s, the model gives %.6f", c["target_probability"], p[t])
		}
		if math.Abs(p[t]-0.5) > 1e-4 { // at 0.5 itself float32 and float64 may disagree
			if want := strconv.FormatBool(p[t] >= 0.5); c["valid"] != want {
				fail("valid %s, the model's p(target) %.6f", c["valid"], p[t])
			}
			if pred := s.Classes[slices.Index(p, slices.Max(p))]; c["predicted"] != pred {
				fail("predicted %s, the model's %s", c["predicted"], pred)
			}
		}
		if c["violations"] != "" {
			fail("violations %q", c["violations"])
		}
		row, err := strconv.Atoi(c["row"])
		if err != nil || row < 0 || row >= len(data) {
			fail("row %q is not a data row", c["row"])
			continue
		}
		fact := data[row]
		for _, ft := range s.Features {
			v, w := c[ft.Name], fact[ft.Name]
			dir := 0.0 // the direction the feature moved: ±1, 0 unchanged
			switch ft.Type {
			case "numeric":
				a, _ := strconv.ParseFloat(v, 64)
				b, _ := strconv.ParseFloat(w, 64)
				tol := 1e-6 * max(1, math.Abs(a))
				if a < lo[ft.Name]-tol || a > hi[ft.Name]+tol {
					fail("%s %s outside [%g, %g]", ft.Name, v, lo[ft.Name], hi[ft.Name])
				}
				if math.Abs(a-b) > tol {
					dir = math.Copysign(1, a-b)
				}
			case "ordinal":
				dir = float64(slices.Index(ft.Levels, v) - slices.Index(ft.Levels, w))
			default:
				if v != w {
					dir = math.NaN() // changed, no direction
				}
			}
			switch ft.Mutable {
			case false:
				if dir != 0 {
					fail("%s is immutable: %s, the factual %s", ft.Name, v, w)
				}
			case "increase":
				if dir < 0 || math.IsNaN(dir) {
					fail("%s may only increase: %s, the factual %s", ft.Name, v, w)
				}
			case "decrease":
				if dir > 0 || math.IsNaN(dir) {
					fail("%s may only decrease: %s, the factual %s", ft.Name, v, w)
				}
			}
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "\n"))
	}
	fmt.Printf("%d counterfactuals: predicted, target_probability and valid agree with the model; bounds, categories and mutability kept\n", len(cfs))
	return nil
}
