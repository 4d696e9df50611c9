package counterfactual

import (
	"fmt"
	"strings"
)

// aliases maps the accepted spellings (after normalise) of each paper generator to its canonical name.
var aliases = map[string]string{
	"wachter": "Wachter", "schut": "Schut", "revise": "REVISE",
	"eccco":  "ECCCo",
	"eccco+": "ECCCo+", "ecccoplus": "ECCCo+", "eccco-plus": "ECCCo+",
	"eccco(nocp)": "ECCCo (no CP)", "eccco-no-cp": "ECCCo (no CP)", "no-cp": "ECCCo (no CP)", "nocp": "ECCCo (no CP)",
	"eccco(noebm)": "ECCCo (no EBM)", "eccco-no-ebm": "ECCCo (no EBM)", "no-ebm": "ECCCo (no EBM)", "noebm": "ECCCo (no EBM)",
	"eccco-l1": "ECCCo-L1", "ecccol1": "ECCCo-L1", "l1": "ECCCo-L1",
	"eccco-l1(nocp)": "ECCCo-L1 (no CP)", "eccco-l1-no-cp": "ECCCo-L1 (no CP)",
	"eccco-l1(noebm)": "ECCCo-L1 (no EBM)", "eccco-l1-no-ebm": "ECCCo-L1 (no EBM)",
}

// CanonicalName returns the name under which the paper's tables list a generator (one of GeneratorNames)
// for any spelling ByName accepts, matched case-insensitively ("eccco-plus" → "ECCCo+", "no-cp" →
// "ECCCo (no CP)").
func CanonicalName(name string) (string, error) {
	if c, ok := aliases[normalise(name)]; ok {
		return c, nil
	}
	return "", fmt.Errorf("unknown generator %q (known: %s)", name, strings.Join(GeneratorNames(), ", "))
}
