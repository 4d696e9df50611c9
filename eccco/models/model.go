package models

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
)

// Kind names a model family of the paper. The names are the ones the CLI accepts; Title gives the name
// used in the paper's tables.
type Kind string

// The model families of the paper.
const (
	KindMLP         Kind = "mlp"          // a multi-layer perceptron
	KindMLPEnsemble Kind = "mlp-ensemble" // a deep ensemble of MLPs (Lakshminarayanan et al., 2017)
	KindJEM         Kind = "jem"          // a Joint Energy Model (Grathwohl et al., 2020) with the MLP architecture
	KindJEMEnsemble Kind = "jem-ensemble" // a deep ensemble of JEMs
	KindLeNet       Kind = "lenet"        // LeNet-5 (LeCun et al., 1998) for 28×28 images
)

// Kinds lists every model family, in the order of the paper's tables.
func Kinds() []Kind { return []Kind{KindJEM, KindJEMEnsemble, KindLeNet, KindMLP, KindMLPEnsemble} }

// Title is the name of the kind in the paper's tables ("MLP Ensemble", "LeNet-5", ...).
func (k Kind) Title() string {
	switch k {
	case KindMLP:
		return "MLP"
	case KindMLPEnsemble:
		return "MLP Ensemble"
	case KindJEM:
		return "JEM"
	case KindJEMEnsemble:
		return "JEM Ensemble"
	case KindLeNet:
		return "LeNet-5"
	}
	return string(k)
}

// IsEnsemble reports whether the kind averages the logits of several members.
func (k Kind) IsEnsemble() bool { return k == KindMLPEnsemble || k == KindJEMEnsemble }

// ParseKind validates a kind name.
func ParseKind(name string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(name)))
	if slices.Contains(Kinds(), k) {
		return k, nil
	}
	names := make([]string, 0, len(Kinds()))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown model %q; known models: %s", name, strings.Join(names, ", "))
}

// Spec fully describes a model's architecture; together with the weights it is what Save writes.
type Spec struct {
	Kind        Kind   `json:"kind"`
	NumFeatures int    `json:"num_features"`
	NumClasses  int    `json:"num_classes"`
	Hidden      int    `json:"hidden"`     // units per hidden layer (MLP)
	Layers      int    `json:"layers"`     // number of hidden layers (MLP)
	Activation  string `json:"activation"` // "relu" or "swish" (MLP)
	Members     int    `json:"members"`    // ensemble size; 1 for a single model
	// Conv2Padding is the padding of LeNet-5's second convolution: "" or "valid" (the paper's LeNet-5,
	// 5×5×16 → 400 features) or "same" (the authors' lenet5, 7×7×16 = 784 features; ECCCo.jl
	// experiments/models/additional_models.jl).
	Conv2Padding string `json:"conv2_padding,omitempty"`
	// Dataset records which data set the model was trained on (informational).
	Dataset string `json:"dataset,omitempty"`
}

// Validate checks that the spec describes a buildable model.
func (s Spec) Validate() error {
	if _, err := ParseKind(string(s.Kind)); err != nil {
		return err
	}
	switch {
	case s.NumFeatures <= 0:
		return fmt.Errorf("model spec: NumFeatures = %d, must be positive", s.NumFeatures)
	case s.NumClasses < 2:
		return fmt.Errorf("model spec: NumClasses = %d, must be at least 2", s.NumClasses)
	case s.Members < 1:
		return fmt.Errorf("model spec: Members = %d, must be at least 1", s.Members)
	case !s.Kind.IsEnsemble() && s.Members != 1:
		return fmt.Errorf("model spec: %s is not an ensemble, Members must be 1 (got %d)", s.Kind, s.Members)
	}
	switch s.Kind {
	case KindLeNet:
		if s.NumFeatures != 28*28 {
			return fmt.Errorf("model spec: LeNet-5 needs 28×28 inputs (784 features), got %d", s.NumFeatures)
		}
		if _, err := conv2Same(s.Conv2Padding); err != nil {
			return err
		}
	default:
		if s.Hidden <= 0 || s.Layers < 0 {
			return fmt.Errorf("model spec: MLP needs Hidden > 0 and Layers ≥ 0, got %d and %d", s.Hidden, s.Layers)
		}
		if _, err := parseActivation(s.Activation); err != nil {
			return err
		}
	}
	return nil
}

func parseActivation(name string) (activation.Type, error) {
	switch strings.ToLower(name) {
	case "relu":
		return activation.TypeRelu, nil
	case "swish", "silu":
		return activation.TypeSwish, nil
	}
	return 0, fmt.Errorf("unknown activation %q (want relu or swish)", name)
}

// Model is a trainable Classifier defined by a Spec, with weights held in a GoMLX store. An ensemble's
// members live in sub-scopes "member0", "member1", ... and its logits are the members' mean.
type Model struct {
	spec  Spec
	store *model.Store
	prov  Provenance
}

// New builds a model with freshly initialised weights. The seed makes the initialisation reproducible.
func New(backend compute.Backend, spec Spec, seed uint64) (*Model, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	m := &Model{spec: spec, store: model.NewStore()}
	m.store.SetParam(model.ParamInitialSeed, storeSeed(seed))
	if err := m.initialize(backend); err != nil {
		return nil, err
	}
	return m, nil
}

// storeSeed maps a user seed to GoMLX's initialiser seed, where 0 would mean "non-deterministic".
func storeSeed(seed uint64) int64 {
	s := int64(seed ^ 0x2545F4914F6CDD1D)
	if s == 0 {
		s = 1
	}
	return s
}

// initialize creates the variables by building and running the forward graph once on m's own store.
func (m *Model) initialize(backend compute.Backend) error {
	exec, err := model.NewExec(backend, m.store, func(scope *model.Scope, x *Node) *Node { return m.logitsIn(scope, x) })
	if err != nil {
		return fmt.Errorf("building %s: %w", m.spec.Kind, err)
	}
	defer exec.Finalize()
	zeros := make([]float32, m.spec.NumFeatures)
	out, err := exec.Call1(tensorRows(zeros, 1, m.spec.NumFeatures))
	if err != nil {
		return fmt.Errorf("initialising %s: %w", m.spec.Kind, err)
	}
	out.MustFinalizeAll()
	return nil
}

// Spec returns the model's architecture.
func (m *Model) Spec() Spec { return m.spec }

// Store returns the GoMLX store that holds the weights (and, during training, the optimiser state).
func (m *Model) Store() *model.Store { return m.store }

// NumFeatures implements Classifier.
func (m *Model) NumFeatures() int { return m.spec.NumFeatures }

// NumClasses implements Classifier.
func (m *Model) NumClasses() int { return m.spec.NumClasses }

// NumMembers returns the ensemble size (1 for a single model).
func (m *Model) NumMembers() int { return m.spec.Members }

// Logits implements Classifier: the [B, K] logits, averaged over members for an ensemble.
func (m *Model) Logits(x *Node) *Node { return m.logitsIn(m.store.RootScope(), x) }

// MemberLogits returns the [B, K] logits of ensemble member i (0 ≤ i < NumMembers).
func (m *Model) MemberLogits(x *Node, i int) *Node { return m.memberLogits(m.store.RootScope(), x, i) }

func (m *Model) logitsIn(scope *model.Scope, x *Node) *Node {
	if m.spec.Kind == KindLeNet {
		return lenet5(scope, x, m.spec.NumClasses, m.spec.Conv2Padding == PaddingSame)
	}
	if m.spec.Members == 1 {
		return m.stackedLogits(scope, x) // [B, K]: the mean of one, without a members axis
	}
	return ReduceMean(m.stackedLogits(scope, BroadcastPrefix(x, m.spec.Members)), 0) // [M, B, K] → [B, K]
}

func (m *Model) memberLogits(scope *model.Scope, x *Node, i int) *Node {
	if m.spec.Kind == KindLeNet {
		return lenet5(scope, x, m.spec.NumClasses, m.spec.Conv2Padding == PaddingSame)
	}
	if m.spec.Members == 1 {
		return m.stackedLogits(scope, x)
	}
	all := m.stackedLogits(scope, BroadcastPrefix(x, m.spec.Members))
	return Reshape(Slice(all, AxisElem(i)), x.Shape().Dimensions[0], m.spec.NumClasses)
}

// StackedLogits evaluates the members of an MLP model side by side: x [M, B, D], where member i reads
// x[i], gives the members' logits [M, B, K]. It lets ensemble members be fed different inputs in one graph
// (JEM training samples each member's own energy). LeNet models have no stacked form: it panics for them,
// as graph-building functions do on misuse.
func (m *Model) StackedLogits(x *Node) *Node {
	if m.spec.Kind == KindLeNet {
		panic(fmt.Sprintf("StackedLogits: %s has no stacked members", m.spec.Kind))
	}
	return m.stackedLogits(m.store.RootScope(), x)
}

// stackedLogits maps x [M, B, D] (member i reads x[i]) to the members' logits [M, B, K]; for a single
// model also x [B, D] to [B, K], the same values without the members axis (StackedDense).
func (m *Model) stackedLogits(scope *model.Scope, x *Node) *Node {
	act, _ := parseActivation(m.spec.Activation)
	return StackedMLP(scope, x, m.spec.Hidden, m.spec.Layers, act, m.spec.NumClasses)
}
