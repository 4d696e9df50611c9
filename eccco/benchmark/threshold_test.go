package benchmark

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

// The search stops at the validity threshold the metrics score with: both are the paper's γ = 0.5.
func TestSearchAndMetricsShareTheValidityThreshold(t *testing.T) {
	if counterfactual.DefaultThreshold != 0.5 || metrics.DefaultThreshold != 0.5 {
		t.Errorf("search γ %v, metrics γ %v; the paper's γ is 0.5", counterfactual.DefaultThreshold, metrics.DefaultThreshold)
	}
}
