package report_test

import (
	"fmt"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/report"
)

// Build makes the report from results (here two hand-made cells; from files, LoadResults and
// ReadPerformance read them) and the paper's numbers; LaTeX and Markdown render it. Our cell outside the
// published mean ± max(3 sd, 0.015) carries a dagger, the published line sits under ours.
func ExampleBuild() {
	cells := []compare.Cell{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "unfaithfulness", Mean: 1.25, SD: 0.05, Runs: 50},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "unfaithfulness", Mean: 1.90, SD: 0.04, Runs: 50},
	}
	published := []compare.Published{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "unfaithfulness", Mean: 1.20, SD: 0.05},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "unfaithfulness", Mean: 1.50, SD: 0.05},
	}
	doc, err := report.Build(report.Inputs{
		Results:   &report.Results{Cells: cells},
		Published: published,
		Banner:    "QUICK PROFILE — 5-epoch models, not the paper's protocol",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	md := doc.Markdown("", "")
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| MLP |") || strings.Contains(line, "| *paper* |") || strings.HasPrefix(line, "|  | Wachter") || strings.HasPrefix(line, "> **QUICK") {
			fmt.Println(line)
		}
	}
	tex := doc.LaTeX()
	fmt.Println(strings.Contains(tex, `\outside{1.90 $\pm$ 0.04}`))
	// Output:
	// > **QUICK PROFILE — 5-epoch models, not the paper's protocol**
	// | MLP | ECCCo | 1.25 ± 0.05 | – | – | – | – | – |
	// |  | *paper* | *1.20 ± 0.05* | – | – | – | – | – |
	// |  | Wachter | 1.90 ± 0.04 † | – | – | – | – | – |
	// |  | *paper* | *1.50 ± 0.05* | – | – | – | – | – |
	// true
}
