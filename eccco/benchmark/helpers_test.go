package benchmark

import (
	"math"

	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func scores(cost float64, valid bool) metrics.Scores {
	return metrics.Scores{Cost: cost, Valid: valid, Unfaithfulness: math.NaN(), Uncertainty: math.NaN()}
}

func abs(v float64) float64 { return math.Abs(v) }
