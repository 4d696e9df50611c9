package counterfactual

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// LatentMap is the optional map f of the objective (paper Eq. 1): the search runs over a latent state z
// and the counterfactual is x′ = f(z). Encode is f⁻¹, used once to start the search at the factual's
// code; Decode is f as a differentiable graph function. REVISE uses a VAE's decoder, ECCCo+ a PCA.
type LatentMap interface {
	// LatentDim is the width of z.
	LatentDim() int
	// Encode maps rows of x (n·D values) to their latent codes (n·LatentDim values).
	Encode(backend compute.Backend, x []float32) ([]float32, error)
	// Decode maps z [B, LatentDim] to x [B, D] inside a graph; it must be differentiable in z.
	Decode(z *Node) *Node
}

// PCA is a linear latent map fitted to data: x = μ + z·Vᵀ with V the D×k matrix of the first k principal
// directions and z = (x − μ)·V. ECCCo+ searches in this space with as many components as REVISE's VAE
// has latent dimensions.
type PCA struct {
	// Mean is μ (D values).
	Mean []float32
	// Components holds V row-major (D×k): column c is the c-th principal direction.
	Components []float32
	// Variances are the k leading eigenvalues of the covariance, in decreasing order.
	Variances []float64
	d, k      int
}

// FitPCA fits the first k principal components of the rows of ds with gonum's stat.PC.
func FitPCA(ds *data.Dataset, k int) (*PCA, error) {
	if ds == nil || ds.N() < 2 {
		return nil, fmt.Errorf("pca: need at least two rows")
	}
	d := ds.D()
	if k <= 0 || k > d {
		return nil, fmt.Errorf("pca: %d components for %d features (want 1 … %d)", k, d, d)
	}
	x := mat.NewDense(ds.N(), d, nil)
	mean := make([]float64, d)
	for i := range ds.N() {
		for j, v := range ds.Row(i) {
			x.Set(i, j, float64(v))
			mean[j] += float64(v) / float64(ds.N())
		}
	}
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		return nil, fmt.Errorf("pca: the decomposition of %s failed", ds.Name)
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	p := &PCA{Mean: make([]float32, d), Components: make([]float32, d*k), Variances: vars[:k], d: d, k: k}
	for j := range d {
		p.Mean[j] = float32(mean[j])
		for c := range k {
			p.Components[j*k+c] = float32(vecs.At(j, c))
		}
	}
	return p, nil
}

// LatentDim implements LatentMap.
func (p *PCA) LatentDim() int { return p.k }

// Encode implements LatentMap: z = (x − μ)·V.
func (p *PCA) Encode(_ compute.Backend, x []float32) ([]float32, error) {
	if len(x) == 0 || len(x)%p.d != 0 {
		return nil, fmt.Errorf("pca: %d values are not whole rows of %d features", len(x), p.d)
	}
	n := len(x) / p.d
	z := make([]float32, n*p.k)
	for i := range n {
		for j := range p.d {
			v := x[i*p.d+j] - p.Mean[j]
			for c := range p.k {
				z[i*p.k+c] += v * p.Components[j*p.k+c]
			}
		}
	}
	return z, nil
}

// Decode implements LatentMap: x = μ + z·Vᵀ.
func (p *PCA) Decode(z *Node) *Node {
	g := z.Graph()
	v := ConvertDType(Const(g, p.Components), z.DType())
	v = Reshape(v, p.d, p.k)
	mu := ConvertDType(Reshape(Const(g, p.Mean), 1, p.d), z.DType())
	b := z.Shape().Dimensions[0]
	return Add(MatMul(z, Transpose(v, 0, 1)), BroadcastToDims(mu, b, p.d))
}
