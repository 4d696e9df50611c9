package compare

import "math"

// DeviationRule states Deviation. Its band ±DeviationBand is the rounding-aware tolerance
// (ToleranceRule): max(3·sd, 3·h) = 3·max(sd, h), h half the cell's last printed decimal.
const DeviationRule = "(ours − paper) / max(sd, h), the published sd floored at h, half the last decimal the paper printed the cell with (0.005 at two decimals, 0.0005 at Table 2's three); a cell is within the rounding-aware tolerance exactly when |deviation| ≤ 3"

// DeviationBand is the half-width of the band of Deviation inside which a cell is Within: the tolerance's
// floor over the sd's, RoundingFloor / PublishedSDFloor, 3 at any decimals.
const DeviationBand = 3.0

// Deviation is a compared cell's difference from the published mean in published standard deviations,
// the sd floored at PublishedSDFloor of the cell's decimals (DeviationRule): |Deviation| ≤ DeviationBand
// exactly when the cell is Within (WithinRounding), up to floating-point slack.
func (r ComparedCell) Deviation() float64 {
	return (r.Mean - r.Paper) / math.Max(r.PaperSD, PublishedSDFloor(r.PaperDecimals))
}
