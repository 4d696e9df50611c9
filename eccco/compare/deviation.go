package compare

import "math"

// DeviationRule states Deviation. Its band ±DeviationBand is the rounding-aware tolerance
// (ToleranceRule): max(3·sd, 0.015) = 3·max(sd, 0.005).
const DeviationRule = "(ours − paper) / max(sd, 0.005), the published sd floored at half its last printed decimal; a cell is within the rounding-aware tolerance exactly when |deviation| ≤ 3"

// DeviationBand is the half-width of the band of Deviation inside which a cell is Within.
const DeviationBand = roundingFloor / publishedSDFloor

// Deviation is a compared cell's difference from the published mean in published standard deviations,
// the sd floored at 0.005 (DeviationRule): |Deviation| ≤ DeviationBand exactly when the cell is Within
// (WithinRounding), up to floating-point slack.
func (r ComparedCell) Deviation() float64 {
	return (r.Mean - r.Paper) / math.Max(r.PaperSD, publishedSDFloor)
}
