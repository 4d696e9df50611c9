package experiment

import (
	"errors"
	"testing"
)

// --set energy=5 renamed Wachter to "Wachter [energy=5]" though Wachter has no energy term (its units
// then lost the paper's counterparts and the significance stars). Now only generators with the term take
// it and are renamed; a key no listed generator has is refused.
func TestWithOverridesOnlyWhereTheTermIs(t *testing.T) {
	gens, err := ParseGenerators("ECCCo", "Wachter", "Schut", "ECCCo (no EBM)")
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseSet([]string{"energy=5", "cost=0.5"}, SetGenerator)
	if err != nil {
		t.Fatal(err)
	}
	out, err := WithOverrides(gens, o.Generator)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ECCCo [energy=5 cost=0.5]", "Wachter [cost=0.5]", "Schut", "ECCCo (no EBM) [cost=0.5]"}
	for i, g := range out {
		if g.Name != want[i] {
			t.Errorf("generator %d named %q, want %q", i, g.Name, want[i])
		}
	}
	if out[2].Set.Energy != nil || out[2].Set.Cost != nil || out[1].Set.Energy != nil || out[1].Set.Cost == nil || *out[1].Set.Cost != 0.5 {
		t.Errorf("Schut's set %v, Wachter's %v", out[2].Set, out[1].Set)
	}
	if _, err := WithOverrides(gens[1:3], Tuning{Energy: new(5.0)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("energy for Wachter and Schut only: err = %v, want ErrInvalid", err)
	}
}
