package catalogue_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// The generators as the paper's tables list them, in their order (Tables 1–2, appendix Tables 5–8).
var paperOrder = []string{"ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "ECCCo-L1", "ECCCo-L1 (no CP)", "ECCCo-L1 (no EBM)", "REVISE", "Schut", "Wachter"}

func TestNamesAreThePapersInItsOrder(t *testing.T) {
	if got := catalogue.Strings(); !slices.Equal(got, paperOrder) {
		t.Errorf("Strings() = %q, want %q", got, paperOrder)
	}
	for i, n := range catalogue.Names() {
		if string(n) != paperOrder[i] || n.String() != paperOrder[i] {
			t.Errorf("Names()[%d] = %q, want %q", i, n, paperOrder[i])
		}
	}
}

// Every spelling the CLI's help and the README accept, and each table name in other cases, resolves to
// the name the paper's tables print.
func TestSpellingsResolveToThePapersNames(t *testing.T) {
	for spelling, want := range map[string]string{
		"wachter": "Wachter", "WACHTER": "Wachter", " Schut ": "Schut", "revise": "REVISE",
		"eccco": "ECCCo", "ECCCo": "ECCCo",
		"eccco+": "ECCCo+", "ecccoplus": "ECCCo+", "eccco-plus": "ECCCo+", "ECCCo-Plus": "ECCCo+",
		"ECCCo (no CP)": "ECCCo (no CP)", "eccco(nocp)": "ECCCo (no CP)", "eccco-no-cp": "ECCCo (no CP)", "no-cp": "ECCCo (no CP)", "nocp": "ECCCo (no CP)", "No CP": "ECCCo (no CP)",
		"ECCCo (no EBM)": "ECCCo (no EBM)", "eccco-no-ebm": "ECCCo (no EBM)", "no-ebm": "ECCCo (no EBM)", "noebm": "ECCCo (no EBM)",
		"ECCCo-L1": "ECCCo-L1", "ecccol1": "ECCCo-L1", "l1": "ECCCo-L1", "L1": "ECCCo-L1",
		"ECCCo-L1 (no CP)": "ECCCo-L1 (no CP)", "eccco-l1-no-cp": "ECCCo-L1 (no CP)",
		"ECCCo-L1 (no EBM)": "ECCCo-L1 (no EBM)", "eccco-l1-no-ebm": "ECCCo-L1 (no EBM)",
	} {
		got, err := catalogue.Canonical(spelling)
		if err != nil || string(got) != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", spelling, got, err, want)
		}
	}
	for _, bad := range []string{"dice", "", "eccco-l2", "ECCCo (no)"} {
		if _, err := catalogue.Canonical(bad); err == nil || !strings.Contains(err.Error(), "unknown generator") || !strings.Contains(err.Error(), "Wachter") {
			t.Errorf("Canonical(%q): err = %v, want unknown generator listing the known ones", bad, err)
		}
	}
}

// No two generators share a spelling.
func TestAliasesAreUnique(t *testing.T) {
	seen := map[string]catalogue.Name{}
	for _, g := range catalogue.Generators() {
		for _, a := range append([]string{strings.ToLower(strings.ReplaceAll(string(g.Name), " ", ""))}, g.Aliases...) {
			if prev, ok := seen[a]; ok {
				t.Errorf("%q names both %s and %s", a, prev, g.Name)
			}
			seen[a] = g.Name
		}
	}
}

// full are ingredients of every kind, none trained: Build only wires them.
func full() counterfactual.Ingredients {
	return counterfactual.Ingredients{
		Calibrated: &conformal.Calibrated{Opts: conformal.DefaultOptions()},
		VAE:        vaeStandIn, PCA: pcaStandIn,
		Samples: &energy.TargetSamples{D: 2, Chains: 1, Samples: [][]float32{{0, 0}, {1, 1}}},
	}
}

// Two latent maps told apart by identity.
var vaeStandIn, pcaStandIn = &counterfactual.PCA{}, &counterfactual.PCA{}

var params = counterfactual.Params{StepSize: 0.05, Cost: 0.1, SetSize: 0.2, Energy: 0.3}

// The objectives as the paper writes them (Eq. 1 with Wachter et al.'s, Schut et al.'s and REVISE's
// penalties; Eq. "eccco"; the appendix's Algorithm 3 for ECCCo-L1): the penalties summed, in the code's
// order, with their weights under params, the latent space and the update.
var objectives = map[string]struct {
	penalties string
	latent    string
	jsma      bool
}{
	"Wachter":           {"cost 0.1", "", false},
	"Schut":             {"", "", true},
	"REVISE":            {"cost 0.1", "vae", false},
	"ECCCo":             {"cost 0.1, energy 0.3, setsize 0.2", "", false},
	"ECCCo+":            {"cost 0.1, energy 0.3, setsize 0.2", "pca", false},
	"ECCCo (no CP)":     {"cost 0.1, energy 0.3", "", false},
	"ECCCo (no EBM)":    {"cost 0.1, setsize 0.2", "", false},
	"ECCCo-L1":          {"cost 0.1, samples 0.3, setsize 0.2", "", false},
	"ECCCo-L1 (no CP)":  {"cost 0.1, samples 0.3", "", false},
	"ECCCo-L1 (no EBM)": {"cost 0.1, setsize 0.2", "", false},
}

func describe(g *counterfactual.Generator) (penalties, latent string) {
	var ps []string
	for _, p := range g.Penalties {
		ps = append(ps, fmt.Sprintf("%s %g", p.Name, p.Weight))
	}
	switch g.Latent {
	case nil:
	case counterfactual.LatentMap(pcaStandIn):
		latent = "pca"
	case counterfactual.LatentMap(vaeStandIn):
		latent = "vae"
	default:
		latent = fmt.Sprintf("%T", g.Latent)
	}
	return strings.Join(ps, ", "), latent
}

func TestEachGeneratorBuildsThePapersObjective(t *testing.T) {
	for _, name := range paperOrder {
		want := objectives[name]
		g, err := catalogue.ByName(name, params, full())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pens, latent := describe(g)
		if g.Name != name || pens != want.penalties || latent != want.latent || (g.JSMA != nil) != want.jsma || g.StepSize != params.StepSize {
			t.Errorf("%s: built %q penalties [%s], latent %q, JSMA %v, η %g; want [%s], %q, %v, %g",
				name, g.Name, pens, latent, g.JSMA != nil, g.StepSize, want.penalties, want.latent, want.jsma, params.StepSize)
		}
	}
}

// A generator needs exactly the ingredients its objective reads: without one it needs, ByName fails
// naming it; without one it does not, it builds the same objective.
func TestNeedsAreWhatThePenaltiesRead(t *testing.T) {
	drop := map[string]func(*counterfactual.Ingredients){
		"calibrated": func(in *counterfactual.Ingredients) { in.Calibrated = nil },
		"samples":    func(in *counterfactual.Ingredients) { in.Samples = nil },
		"pca":        func(in *counterfactual.Ingredients) { in.PCA = nil },
		"vae":        func(in *counterfactual.Ingredients) { in.VAE = nil },
	}
	for _, c := range catalogue.Generators() {
		want := objectives[string(c.Name)]
		reads := map[string]bool{
			"calibrated": strings.Contains(want.penalties, "setsize"),
			"samples":    strings.Contains(want.penalties, "samples"),
			"pca":        want.latent == "pca",
			"vae":        want.latent == "vae",
		}
		n := c.Needs()
		if got := map[string]bool{"calibrated": n.Calibrated, "samples": n.Samples, "pca": n.PCA, "vae": n.VAE}; !reflect.DeepEqual(got, reads) {
			t.Errorf("%s: Needs %+v, want %v", c.Name, n, reads)
		}
		for what, f := range drop {
			in := full()
			f(&in)
			g, err := catalogue.ByName(string(c.Name), params, in)
			if reads[what] {
				if err == nil || !strings.Contains(err.Error(), "needs") {
					t.Errorf("%s without %s: err = %v, want a 'needs' error", c.Name, what, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s without %s: %v", c.Name, what, err)
				continue
			}
			if pens, _ := describe(g); pens != want.penalties {
				t.Errorf("%s without %s: penalties [%s], want [%s]", c.Name, what, pens, want.penalties)
			}
		}
	}
	// PaperIngredients draws samples for the two ECCCo-L1 variants that weigh the distance to them; the
	// third, ECCCo-L1 (no EBM), reads samples only in the authors' code, with weight 0 (see
	// TestAuthorsNoEBMCarriesTheSamplesAtWeightZero), whose samples the experiment draws itself.
	n, err := catalogue.NeedsOf("ECCCo-L1", "eccco-l1-no-cp", "ECCCo-L1 (no EBM)")
	if err != nil || !n.Samples || !n.Calibrated || n.PCA || n.VAE {
		t.Errorf("NeedsOf(the ECCCo-L1 family) = %+v, %v", n, err)
	}
	if n, _ := catalogue.NeedsOf("ECCCo-L1 (no EBM)"); n.Samples {
		t.Error("ECCCo-L1 (no EBM) needs no samples in the paper's setting")
	}
	if _, err := catalogue.NeedsOf("ECCCo", "dice"); err == nil {
		t.Error("NeedsOf with an unknown name: no error")
	}
}

func TestAuthorsNoEBMCarriesTheSamplesAtWeightZero(t *testing.T) {
	in := full().WithAuthorsCode()
	g, err := catalogue.ByName("ECCCo-L1 (no EBM)", params, in)
	if err != nil {
		t.Fatal(err)
	}
	if pens, _ := describe(g); pens != "cost 0.1, setsize 0.2, samples 0" {
		t.Errorf("authors' ECCCo-L1 (no EBM): penalties [%s]", pens)
	}
	for _, name := range []string{"ECCCo (no EBM)", "ECCCo-L1 (no EBM)"} {
		in.Samples = nil
		if g, err := catalogue.ByName(name, params, in); err != nil || len(g.Penalties) != 2 {
			t.Errorf("authors' %s without samples: %v, %v", name, g, err)
		}
	}
}

// The hyper-parameters each generator reads, by experiment.Generator.Set key, as its objective has them:
// η always; λ_cost with the distance; λ_energy, the ridge and the decay with the energy; λ_setsize with
// Ω; λ_energy (the appendix's weight of the distance to the samples) with ECCCo-L1's samples.
func TestParamsAreWhatTheObjectiveReads(t *testing.T) {
	energyKeys := []string{"energy", "ridge", "decay-rate", "decay-every"}
	want := map[string][]string{
		"Wachter": {"step", "cost"}, "Schut": {"step"}, "REVISE": {"step", "cost"},
		"ECCCo":             append([]string{"step", "cost", "setsize"}, energyKeys...),
		"ECCCo+":            append([]string{"step", "cost", "setsize"}, energyKeys...),
		"ECCCo (no CP)":     append([]string{"step", "cost"}, energyKeys...),
		"ECCCo (no EBM)":    {"step", "cost", "setsize"},
		"ECCCo-L1":          {"step", "cost", "energy", "setsize"},
		"ECCCo-L1 (no CP)":  {"step", "cost", "energy"},
		"ECCCo-L1 (no EBM)": {"step", "cost", "setsize"},
	}
	for _, c := range catalogue.Generators() {
		got := slices.Sorted(slices.Values(c.Params()))
		if w := slices.Sorted(slices.Values(want[string(c.Name)])); !slices.Equal(got, w) {
			t.Errorf("%s reads %q, want %q", c.Name, got, w)
		}
	}
	// And behaviourally: a key the generator does not read leaves what it builds unchanged.
	bump := map[string]func(*counterfactual.Params){
		"step":       func(p *counterfactual.Params) { p.StepSize *= 2 },
		"cost":       func(p *counterfactual.Params) { p.Cost *= 2 },
		"energy":     func(p *counterfactual.Params) { p.Energy *= 2 },
		"setsize":    func(p *counterfactual.Params) { p.SetSize *= 2 },
		"decay-rate": func(p *counterfactual.Params) { p.DecayRate = 0.1 },
	}
	for _, c := range catalogue.Generators() {
		base, _ := catalogue.ByName(string(c.Name), params, full())
		basePens, _ := describe(base)
		for key, f := range bump {
			p := params
			f(&p)
			g, err := catalogue.ByName(string(c.Name), p, full())
			if err != nil {
				t.Fatal(err)
			}
			pens, _ := describe(g)
			changed := pens != basePens || g.StepSize != base.StepSize || g.Stepwise != base.Stepwise
			if changed != c.Reads(key) {
				t.Errorf("%s: %s changes the generator %v, Reads %v", c.Name, key, changed, c.Reads(key))
			}
		}
	}
}

func TestByNameErrors(t *testing.T) {
	if _, err := catalogue.ByName("frobnicate", params, full()); err == nil || !strings.Contains(err.Error(), "unknown generator") {
		t.Errorf("unknown generator: err = %v", err)
	}
	if _, err := catalogue.ByName("ECCCo", params, counterfactual.Ingredients{}); err == nil || !strings.Contains(err.Error(), "calibrated") {
		t.Errorf("ECCCo without calibration: err = %v", err)
	}
	if _, err := catalogue.ByName("REVISE", params, counterfactual.Ingredients{VAE: &counterfactual.PCA{}, ResampleLatent: true}); err == nil || !strings.Contains(err.Error(), "posterior") {
		t.Errorf("REVISE resampling a map without a posterior: err = %v", err)
	}
}

// Spellings of one generator share compiled graphs, other generators do not, and only the ECCCo-L1
// family's keys depend on the samples' layout.
func TestGraphKey(t *testing.T) {
	in := full()
	if catalogue.GraphKey("eccco-plus", params, in) != catalogue.GraphKey("ECCCo+", params, in) {
		t.Error("two spellings of ECCCo+ have different keys")
	}
	if catalogue.GraphKey("ECCCo (no EBM)", params, in) == catalogue.GraphKey("ECCCo-L1 (no EBM)", params, in) {
		t.Error("ECCCo (no EBM) and ECCCo-L1 (no EBM) share a key")
	}
	if catalogue.GraphKey("dice", params, in) != nil {
		t.Error("an unknown generator has a key")
	}
	other := in
	other.Samples = &energy.TargetSamples{D: 2, Chains: 1, Samples: [][]float32{{0, 0, 1, 1}, {1, 1, 2, 2}}}
	for _, name := range paperOrder {
		l1 := strings.HasPrefix(name, "ECCCo-L1")
		if differs := catalogue.GraphKey(name, params, in) != catalogue.GraphKey(name, params, other); differs != l1 {
			t.Errorf("%s: the samples' layout changes the key %v, want %v", name, differs, l1)
		}
	}
}
