package compare

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// PerformanceTolerance is how far below the paper's accuracy a model may land and still count as
// reproduced (Table 5).
const PerformanceTolerance = 0.03

// BelowPaper lists the models more than PerformanceTolerance below the paper's accuracy.
func BelowPaper(rows []*experiment.Performance) []string {
	var below []string
	for _, r := range rows {
		if r.HasPublished && r.Accuracy < r.Published.Accuracy-PerformanceTolerance {
			below = append(below, fmt.Sprintf("%s/%s %.3f < %.2f−%.2f", r.Dataset, r.Kind, r.Accuracy, r.Published.Accuracy, PerformanceTolerance))
		}
	}
	return below
}
