package vae

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// RowChunk is the number of rows evaluated per graph call by EncodeMean, DecodeRows, Reconstruct and
// ReconstructionError (as models.PredictionChunk): large enough to amortise the call overhead, small
// enough to bound memory on 784-dimensional inputs.
const RowChunk = 4096

// mapRows evaluates fn on the rows of in (row-major, inWidth values per row) in chunks of RowChunk rows
// and returns the concatenated row-major [n, outWidth] results. fn must return a [B, outWidth] float32
// node.
func (v *VAE) mapRows(backend compute.Backend, what string, in []float32, inWidth, outWidth int, fn func(x *Node) *Node) ([]float32, error) {
	if len(in) == 0 || len(in)%inWidth != 0 {
		return nil, fmt.Errorf("vae %s: %d values are not a whole, non-zero number of rows of %d", what, len(in), inWidth)
	}
	exec, err := model.NewExec(backend, v.store, func(_ *model.Scope, x *Node) *Node { return fn(x) })
	if err != nil {
		return nil, fmt.Errorf("vae %s: building the graph: %w", what, err)
	}
	defer exec.Finalize()
	return v.mapRowsWith(exec, what, in, inWidth, outWidth)
}

// mapRowsWith runs a compiled graph over the rows of in in chunks of RowChunk rows.
func (v *VAE) mapRowsWith(exec *model.Exec, what string, in []float32, inWidth, outWidth int) ([]float32, error) {
	n := len(in) / inWidth
	out := make([]float32, 0, n*outWidth)
	for start := 0; start < n; start += RowChunk {
		end := min(start+RowChunk, n)
		t, err := exec.Call1(tensors.FromFlatDataAndDimensions(in[start*inWidth:end*inWidth], end-start, inWidth))
		if err != nil {
			return nil, fmt.Errorf("vae %s: rows %d–%d: %w", what, start, end-1, err)
		}
		out = append(out, tensors.MustCopyFlatData[float32](t)...)
		t.MustFinalizeAll()
	}
	return out, nil
}

// EncodeMean returns the posterior means μ(x) (n·Latent values, row-major) of the rows of x (n·D
// values): the deterministic encoding that REVISE starts its latent search from.
//
// Its graph is compiled once per backend and kept with the VAE (REVISE encodes its factuals at every
// search; on XLA compiling would take longer than a tabular search), reading the VAE's current weights.
func (v *VAE) EncodeMean(backend compute.Backend, x []float32) ([]float32, error) {
	if len(x) == 0 || len(x)%v.spec.NumFeatures != 0 {
		return nil, fmt.Errorf("vae encode: %d values are not a whole, non-zero number of rows of %d", len(x), v.spec.NumFeatures)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	exec := v.encoders[backend]
	if exec == nil {
		var err error
		exec, err = model.NewExec(backend, v.store, func(_ *model.Scope, x *Node) *Node {
			mu, _ := v.EncodeGraph(x)
			return mu
		})
		if err != nil {
			return nil, fmt.Errorf("vae encode: building the graph: %w", err)
		}
		if v.encoders == nil {
			v.encoders = map[compute.Backend]*model.Exec{}
		}
		v.encoders[backend] = exec
	}
	return v.mapRowsWith(exec, "encode", x, v.spec.NumFeatures, v.spec.Latent)
}

// Encode is EncodeMean under the name counterfactual.LatentMap uses (f⁻¹, applied once to start the
// search at the factual's code).
func (v *VAE) Encode(backend compute.Backend, x []float32) ([]float32, error) {
	return v.EncodeMean(backend, x)
}

// DecodeRows returns Decode(z) (n·D values, row-major) for the latent codes z (n·Latent values).
func (v *VAE) DecodeRows(backend compute.Backend, z []float32) ([]float32, error) {
	return v.mapRows(backend, "decode", z, v.spec.Latent, v.spec.NumFeatures, v.Decode)
}

// Reconstruct returns Decode(μ(x)) for the rows of x: the deterministic reconstruction through the
// posterior mean (no sampling).
func (v *VAE) Reconstruct(backend compute.Backend, x []float32) ([]float32, error) {
	return v.mapRows(backend, "reconstruct", x, v.spec.NumFeatures, v.spec.NumFeatures, func(x *Node) *Node {
		mu, _ := v.EncodeGraph(x)
		return v.Decode(mu)
	})
}

// ReconstructionError returns the mean squared error per element, (1/(n·D)) Σ (Reconstruct(x) − x)²,
// over the rows of ds.
func (v *VAE) ReconstructionError(backend compute.Backend, ds *data.Dataset) (float64, error) {
	if ds == nil || ds.N() == 0 {
		return 0, fmt.Errorf("vae reconstruction error: empty data set")
	}
	if ds.D() != v.spec.NumFeatures {
		return 0, fmt.Errorf("vae reconstruction error: data set %q has %d features, the VAE expects %d", ds.Name, ds.D(), v.spec.NumFeatures)
	}
	rec, err := v.Reconstruct(backend, ds.X)
	if err != nil {
		return 0, err
	}
	return meanSquaredError(rec, ds.X), nil
}

// meanSquaredError returns (1/len(a)) Σ (a_i − b_i)² in float64; a and b must have the same length.
func meanSquaredError(a, b []float32) float64 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("vae: meanSquaredError: lengths %d and %d differ", len(a), len(b)))
	}
	if len(a) == 0 {
		return 0
	}
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return s / float64(len(a))
}
