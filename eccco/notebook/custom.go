package notebook

import (
	"fmt"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// Changes is a Markdown table of what each counterfactual changed, in the data's units: per generator and
// data row, the target, whether it is valid, and "feature: factual → counterfactual" for every feature
// that differs (categories and levels by name).
func Changes(s *data.Schema, classes []string, xs ...*experiment.CustomExplanation) string {
	var b strings.Builder
	b.WriteString("| generator | row | target | valid | what changed |\n|---|---|---|---|---|\n")
	d := s.Width()
	for _, x := range xs {
		for i, r := range x.Rows {
			f, c := s.DecodeRow(x.Factuals[i*d:(i+1)*d]), s.DecodeRow(x.Counterfactuals[i*d:(i+1)*d])
			var ch []string
			for j, feat := range s.Features {
				if f[j] != c[j] {
					ch = append(ch, fmt.Sprintf("%s: %s → %s", feat.Name, f[j], c[j]))
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %t | %s |\n", x.Generator, r, classes[x.Targets[i]], x.Scores[i].Valid,
				strings.ReplaceAll(strings.Join(ch, "; "), "|", "&#124;"))
		}
	}
	return b.String()
}
