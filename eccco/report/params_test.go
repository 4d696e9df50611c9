package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

import ()

// The parameter tables carry the paper's values (table_gen_params.tex: German Credit has λ energy 0.1 and
// ridge 0.5; table_ebm_params.tex: moons 30 SGLD steps and 10 samples).
func TestParameterTables(t *testing.T) {
	dir := t.TempDir()
	if err := WriteParameterTables(dir); err != nil {
		t.Fatal(err)
	}
	gen, _ := os.ReadFile(filepath.Join(dir, "params-generators.md"))
	if !bytes.Contains(gen, []byte("| german-credit | 0.05 | 0.1 | 0.1 | 0.1 | 0.5 |")) {
		t.Errorf("generator table lacks German Credit's row:\n%s", gen)
	}
	ebm, _ := os.ReadFile(filepath.Join(dir, "params-ebm.tex"))
	if !bytes.Contains(ebm, []byte("moons & 30 & 10 & 0.1\\\\")) {
		t.Errorf("EBM table lacks the moons row:\n%s", ebm)
	}
}
