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
// code; Decode is f as a differentiable graph function. REVISE uses a VAE's decoder, ECCCo+ a PCA. A
// Posterior wrapped as Resampled is searched through samples of its codes instead (the authors' runs).
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

// FitPCA fits the first k principal components of the rows of ds with gonum's stat.PC. k is at most
// min(N, D): the decomposition of N rows of D features has that many components (an error otherwise).
func FitPCA(ds *data.Dataset, k int) (*PCA, error) {
	if ds == nil || ds.N() < 2 {
		return nil, fmt.Errorf("pca: need at least two rows")
	}
	d := ds.D()
	if k <= 0 || k > d {
		return nil, fmt.Errorf("pca: %d components for %d features (want 1 … %d)", k, d, d)
	}
	if k > ds.N() {
		return nil, fmt.Errorf("pca: %d components from %d rows (want 1 … %d: N rows have at most N components)", k, ds.N(), ds.N())
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
	if len(vars) < k || vecs.RawMatrix().Cols < k {
		return nil, fmt.Errorf("pca: the decomposition of %s gave %d components, want %d", ds.Name, len(vars), k)
	}
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

// Posterior is a LatentMap whose encoder is a distribution, q(z|x) = N(μ(x), diag σ(x)²): a VAE's.
type Posterior interface {
	LatentMap
	// EncodeGraph returns μ and log σ [B, LatentDim] of q(z|x) for x [B, D] inside a graph.
	EncodeGraph(x *Node) (mu, logSigma *Node)
}

// Resampled is a Posterior searched as CounterfactualExplanations.jl searched REVISE's latent space in the
// authors' runs (at 4c34c2a): the search starts from a sample of the posterior, z₀ = μ(x) + σ(x) ⊙ ε₀, not
// from its mean (src/counterfactuals/latent_space_mappings.jl:55, map_to_latent calls
// GenerativeModels.rand on the encoder), and after every step the decoded counterfactual, clamped to the
// bounds, is encoded again through a fresh sample, z ← μ(x′) + σ(x′) ⊙ ε_t
// (src/counterfactuals/search.jl:16,66: update! → apply_domain_constraints! re-encodes ce.x′ with
// encode_state, which maps it to the latent space again). The counterfactual of step t is x′_t = f(z_{t−1} − η∇): the decoded state before its
// re-encoding, where convergence is checked.
//
// The noise ε is drawn in Go from data.NewRand(Request.Seed), B·LatentDim standard normals per step in
// row-major order (step 0 first; those of a graph call's steps at once), so that a search is reproducible; the search costs one more encoding,
// decoding and model evaluation per step than with the plain map.
type Resampled struct {
	Posterior
}

// EncodeGraph returns z = (x − μ)·V [B, k] for x [B, D] inside a graph: the PCA's encoder, as a
// differentiable function (Reencoded uses it).
func (p *PCA) EncodeGraph(x *Node) *Node {
	g := x.Graph()
	v := ConvertDType(Reshape(Const(g, p.Components), p.d, p.k), x.DType())
	mu := ConvertDType(Reshape(Const(g, p.Mean), 1, p.d), x.DType())
	b := x.Shape().Dimensions[0]
	return MatMul(Sub(x, BroadcastToDims(mu, b, p.d)), v)
}

// Encoder is a LatentMap whose inverse is a graph function too (a PCA's).
type Encoder interface {
	LatentMap
	// EncodeGraph maps x [B, D] to its code [B, LatentDim] inside a graph.
	EncodeGraph(x *Node) *Node
}

// Reencoded is an Encoder searched as CounterfactualExplanations.jl searched ECCCo+'s PCA space in the
// authors' runs (at 4c34c2a): after every step the decoded counterfactual, clamped to the bounds, is encoded
// again (src/counterfactuals/search.jl:66, apply_domain_constraints! → encode_state, whose compression
// branch maps x′ back to the PCA space), so the next gradient is taken at f⁻¹(x′_t), not at the unclamped
// state. Where no bound binds, f⁻¹(f(z)) = z for a PCA and the search is the plain one; where one does,
// the state follows the clamped counterfactual instead of drifting beyond the box, where the clamp's zero
// gradient would hold it still.
type Reencoded struct {
	Encoder
}
