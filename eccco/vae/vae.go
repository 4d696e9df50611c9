package vae

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// Spec fully describes a VAE's architecture; together with the weights it is what Save writes.
//
// The encoder is Dense(NumFeatures → Hidden, Activation) followed by two linear heads Dense(Hidden →
// Latent), one for the mean μ and one for log σ (the log standard deviation, as in the authors' code; not
// log σ²). The decoder is Dense(Latent → Hidden, tanh) followed by a linear Dense(Hidden → NumFeatures).
// The store holds them as /encoder/hidden, /encoder/heads (both heads side by side, μ first),
// /decoder/hidden and /decoder/output, each with "weights" [in, out] and "biases" [1, out].
type Spec struct {
	NumFeatures int `json:"num_features"` // D, the input width
	Latent      int `json:"latent"`       // width of the latent code z
	Hidden      int `json:"hidden"`       // units of the encoder's and the decoder's hidden layer
	// Activation is the encoder's hidden activation: "sigmoid" (the authors' default, Flux's σ), "relu" or
	// "tanh". The decoder's hidden activation is always tanh.
	Activation string `json:"activation"`
	// Dataset records which data set the VAE was trained on (informational).
	Dataset string `json:"dataset,omitempty"`
}

// Validate checks that the spec describes a buildable VAE.
func (s Spec) Validate() error {
	switch {
	case s.NumFeatures <= 0:
		return fmt.Errorf("vae spec: NumFeatures = %d, must be positive", s.NumFeatures)
	case s.Latent <= 0:
		return fmt.Errorf("vae spec: Latent = %d, must be positive", s.Latent)
	case s.Hidden <= 0:
		return fmt.Errorf("vae spec: Hidden = %d, must be positive", s.Hidden)
	}
	_, err := parseActivation(s.Activation)
	return err
}

func parseActivation(name string) (func(*Node) *Node, error) {
	switch strings.ToLower(name) {
	case "sigmoid", "σ":
		return Sigmoid, nil
	case "relu":
		return activation.Relu, nil
	case "tanh":
		return Tanh, nil
	}
	return nil, fmt.Errorf("vae spec: unknown activation %q (want sigmoid, relu or tanh)", name)
}

// DefaultActivation is the encoder activation of the authors' VAE: Flux's σ (the logistic sigmoid), the
// default of the Encoder in CounterfactualExplanations.jl (src/generative_models/encoders.jl).
const DefaultActivation = "sigmoid"

// VAE is a variational autoencoder defined by a Spec, with weights held in a GoMLX store. Its graph
// functions (EncodeGraph, Decode) read the weights into whatever graph their input belongs to, so one VAE
// serves many graphs, any number of times per graph.
type VAE struct {
	spec  Spec
	store *model.Store
	prov  models.Provenance

	mu       sync.Mutex
	encoders map[compute.Backend]*model.Exec // EncodeMean's graph per backend, kept (REVISE encodes at every search)
}

// New builds a VAE with freshly initialised weights: Glorot-uniform weights and zero biases, as Flux's
// Dense layers start. The seed makes the initialisation reproducible.
func New(backend compute.Backend, spec Spec, seed uint64) (*VAE, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	v := &VAE{spec: spec, store: model.NewStore()}
	v.store.SetParam(model.ParamInitialSeed, storeSeed(seed))
	if err := v.initialize(backend); err != nil {
		return nil, err
	}
	return v, nil
}

// storeSeed maps a user seed to GoMLX's initialiser seed, where 0 would mean "non-deterministic".
func storeSeed(seed uint64) int64 {
	s := int64(seed ^ 0x7C3E_5D1A_2B7E_1516)
	if s == 0 {
		s = 1
	}
	return s
}

// initialize creates the variables by building and running the encoder and the decoder once on v's own
// store.
func (v *VAE) initialize(backend compute.Backend) error {
	exec, err := model.NewExec(backend, v.store, func(scope *model.Scope, x *Node) []*Node {
		mu, logSigma := v.encode(scope, x)
		return []*Node{mu, logSigma, v.decode(scope, mu)}
	})
	if err != nil {
		return fmt.Errorf("building the VAE: %w", err)
	}
	defer exec.Finalize()
	out, err := exec.Call(tensors.FromFlatDataAndDimensions(make([]float32, v.spec.NumFeatures), 1, v.spec.NumFeatures))
	if err != nil {
		return fmt.Errorf("initialising the VAE: %w", err)
	}
	for _, t := range out {
		t.MustFinalizeAll()
	}
	return nil
}

// Spec returns the VAE's architecture.
func (v *VAE) Spec() Spec { return v.spec }

// Store returns the GoMLX store that holds the weights (and, during training, the optimiser state).
func (v *VAE) Store() *model.Store { return v.store }

// NumFeatures returns D, the width of the data rows.
func (v *VAE) NumFeatures() int { return v.spec.NumFeatures }

// LatentDim returns the width of the latent code z. With Encode and Decode it makes a *VAE a
// counterfactual.LatentMap, the map REVISE searches through.
func (v *VAE) LatentDim() int { return v.spec.Latent }

// EncodeGraph maps x [B, D] to the parameters of q(z|x) = N(μ, diag σ²): μ [B, Latent] and log σ
// [B, Latent]. It is differentiable with respect to x and works in any float dtype (the float32 weights
// are converted to x's dtype).
func (v *VAE) EncodeGraph(x *Node) (mu, logSigma *Node) { return v.encode(v.store.RootScope(), x) }

// Decode maps latent codes z [B, Latent] to reconstructions x̂ [B, D] (the mean of p(x|z)). It is
// differentiable with respect to z, works in any float dtype, and is REVISE's map f: x′ = Decode(z).
func (v *VAE) Decode(z *Node) *Node { return v.decode(v.store.RootScope(), z) }

func (v *VAE) encode(scope *model.Scope, x *Node) (mu, logSigma *Node) {
	checkWidth("EncodeGraph", x, v.spec.NumFeatures)
	act, _ := parseActivation(v.spec.Activation)
	enc := scope.At("encoder")
	h := act(dense(enc.At("hidden"), x, v.spec.Hidden))
	// The μ and log σ heads are stored side by side in one [Hidden, 2·Latent] layer ("heads": columns
	// 0…Latent−1 give μ, the rest log σ), each block initialised as Flux initialises a Dense(Hidden →
	// Latent). One variable rather than two keeps every graph that uses only μ (or only log σ) from
	// holding an unused weight: the pure-Go backend of compute v0.1.5 panicked ("index out of range") when a
	// graph's last parameters are unused.
	l := v.spec.Latent
	heads := denseInit(enc.At("heads"), h, 2*l, math.Sqrt(6/float64(v.spec.Hidden+l)))
	return Slice(heads, AxisRange(), AxisRange(0, l)), Slice(heads, AxisRange(), AxisRange(l, 2*l))
}

func (v *VAE) decode(scope *model.Scope, z *Node) *Node {
	checkWidth("Decode", z, v.spec.Latent)
	dec := scope.At("decoder")
	h := Tanh(dense(dec.At("hidden"), z, v.spec.Hidden))
	return dense(dec.At("output"), h, v.spec.NumFeatures)
}

// checkWidth panics, as graph-building functions do on misuse, if x is not a [B, width] matrix.
func checkWidth(fn string, x *Node, width int) {
	if x.Rank() != 2 || x.Shape().Dimensions[1] != width {
		panic(fmt.Sprintf("vae.%s: input shape %s, want [batch, %d]", fn, x.Shape(), width))
	}
}

// dense is Flux's Dense(in → out) layer without activation: x·W + b with W [in, out] Glorot-uniform
// initialised (U(±√(6/(in+out)))) and b [1, out] zero-initialised, both float32 and stored in scope as
// "weights" and "biases". For inputs of another float dtype the weights are converted to it.
func dense(scope *model.Scope, x *Node, out int) *Node {
	in := x.Shape().Dimensions[1]
	return denseInit(scope, x, out, math.Sqrt(6/float64(in+out)))
}

// denseInit is dense with weights initialised uniformly in [−limit, limit].
func denseInit(scope *model.Scope, x *Node, out int, limit float64) *Node {
	g, in := x.Graph(), x.Shape().Dimensions[1]
	store := scope.Store()
	w := scope.WithInitializer(func(g *Graph, shape shapes.Shape) *Node {
		return AddScalar(MulScalar(store.RandomUniform(g, shape), 2*limit), -limit)
	}).VariableWithShape("weights", shapes.Make(dtypes.Float32, in, out)).NodeValue(g)
	b := scope.WithInitializer(func(g *Graph, shape shapes.Shape) *Node { return Zeros(g, shape) }).
		VariableWithShape("biases", shapes.Make(dtypes.Float32, 1, out)).NodeValue(g)
	if dt := x.DType(); dt != dtypes.Float32 {
		w, b = ConvertDType(w, dt), ConvertDType(b, dt)
	}
	return Add(MatMul(x, w), b)
}

// KL returns, for each row, the Kullback–Leibler divergence of q = N(μ, diag σ²) from the prior
// N(0, I): ½ Σ_j (σ_j² + μ_j² − 1 − 2 log σ_j), a [B] vector for μ and log σ of shape [B, Latent]. This is
// the KL term of the authors' loss (CounterfactualExplanations.jl, model_loss in vae.jl).
func KL(mu, logSigma *Node) *Node {
	terms := Sub(Add(Exp(MulScalar(logSigma, 2)), Square(mu)), AddScalar(MulScalar(logSigma, 2), 1))
	return MulScalar(ReduceSum(terms, -1), 0.5)
}

// decoderParams returns the decoder's weights and biases as nodes of g (for the L2 penalty).
func (v *VAE) decoderParams(g *Graph) []*Node {
	var out []*Node
	for _, layer := range []string{"hidden", "output"} {
		for _, name := range []string{"weights", "biases"} {
			out = append(out, v.store.GetVariable("/decoder/"+layer+"/"+name).NodeValue(g))
		}
	}
	return out
}
