package compare

import "math"

// The published numbers are rounded to the decimals the paper printed them with, and every rule that sets
// ours against them allows for that rounding by the cell's own decimals, defined here once:
//
//   - the appendix tables (and Table 1) print two decimals, so a published mean or sd may be off by up to
//     0.005 (half the last decimal), and an sd printed as 0.00 may be up to 0.005;
//   - the main text's Table 2 (tab:results-vision, partials/body.tex lines 267–285) prints MNIST's
//     unfaithfulness and implausibility of the MLP and LeNet-5 for ECCCo, ECCCo+, REVISE, Schut and
//     Wachter to three decimals: those 20 cells may be off by up to 0.0005. They are the valid
//     counterfactuals' cells (subset "valid"): Table 1's caption, whose formatting Table 2's takes over,
//     says "across valid counterfactuals", and both Schut implausibilities (0.303 ± 0.008, 0.289 ± 0.024)
//     round to the appendix's valid cells (0.30 ± 0.01, 0.29 ± 0.02), not to its all-counterfactuals
//     cells (0.34 ± 0.00); 19 of the 20 round half up to their appendix valid cell, and the twentieth,
//     LeNet-5 Wachter's 0.335 ± 0.002 against 0.33 ± 0.00, is the same number if it lay in
//     [0.3345, 0.335). paper/published-results.csv holds them at three decimals in place of the
//     appendix's two (its decimals column says which, its source column from which line).
//
// For a cell printed to d decimals, h = HalfDecimal(d) (0.005 for two, 0.0005 for three); the
// rounding-aware tolerance is Tolerance(sd, d) = max(3·sd, 3·h) (ToleranceRule), the published sd's
// floor in Welch's z, the deviation and the claims' tests is h (ZRule, DeviationRule), BothRoundedRule adds
// h for the mean's own rounding, and "rounded as published" rounds ours to d decimals (LikeForLike).

// AppendixDecimals is how many decimals the paper's appendix tables (and Table 1) print: a cell whose
// Decimals is 0 (not given) has them.
const AppendixDecimals = 2

// Table2Decimals is how many decimals the paper's Table 2 prints MNIST's unfaithfulness and
// implausibility with.
const Table2Decimals = 3

// Printed is the decimals of a cell printed to d decimals, AppendixDecimals where d is 0 (not given).
func Printed(d int) int {
	if d <= 0 {
		return AppendixDecimals
	}
	return d
}

// HalfDecimal is half the last decimal of a number printed to d decimals (Printed): the most its rounding
// can have moved it, and the least an sd printed as zero may have been (0.005 for two decimals, 0.0005 for
// three).
func HalfDecimal(d int) float64 { return 0.5 * math.Pow(10, -float64(Printed(d))) }

// RoundingFloor is the floor of the rounding-aware tolerance of a cell printed to d decimals: three times
// HalfDecimal, the largest rounding error of its sd (0.015 for two decimals, 0.0015 for three).
func RoundingFloor(d int) float64 { return 3 * HalfDecimal(d) }

// PublishedSDFloor is the least a published sd printed to d decimals may have been: HalfDecimal (an sd
// printed as 0.00 may be up to 0.005, one printed as 0.000 up to 0.0005).
func PublishedSDFloor(d int) float64 { return HalfDecimal(d) }

// RoundPrinted rounds v half away from zero to d decimals (Printed), as the paper's tables print.
func RoundPrinted(v float64, d int) float64 { return roundTo(v, Printed(d)) }
