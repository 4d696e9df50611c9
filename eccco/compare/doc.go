// Package compare sets benchmark results against the ECCCo paper's published numbers: pure functions.
//
// Aggregate turns benchmark rows into the paper's cells (Altmeyer et al., AAAI-24, Tables 1–2 and the
// appendix tables, as the authors aggregated them): the mean of each metric within each run, then the
// mean of the run means ± the sample sd of the run means, for all counterfactuals and for valid ones
// only; Stars mark a generator more than 1 and 2 pooled sd better than Wachter, Bold the best generator
// per model and metric. ReadPublished reads the published cells (paper/published-results.csv); nothing
// else here reads or writes a file, and nothing renders: package report does.
//
// Compare and CompareWithBounds match our cells with the published ones. A cell is within the paper's
// numbers when |ours − paper| ≤ max(3·sd, 3·h), h half the last decimal the paper printed the cell with
// (WithinRounding, ToleranceRule, precision.go: 0.015 for the appendix's two decimals, 0.0015 for Table 2's
// three) or, strictly, ≤ 3·sd (WithinStrict); WithinCounts and WithinBy count them.
// The sign of ECCCo − Wachter (unfaithfulness) and of REVISE − Wachter (implausibility) is compared per
// data set and model (SignAgreement; a difference the paper prints as 0.00 is a tie), Spearman's ρ of the generators'
// order per data set, model and metric (RankAgreement, Comparison.MedianRho). Every cell outside the
// tolerance gets a likely cause (MissCause, MissCauses); a published Ω that no valid counterfactual of
// our calibrated model can have (OmegaImpossible, from benchmark.UncertaintyBounds) is put down to the
// calibration (CalibrationRows). SpreadRows sets the sd of our run means against the published sd.
//
// Comparison.Counts defines the headline's counts once: cells within (Tally; of them only by the floor,
// FloorOnly; strictly), the same without the cells fixed by construction (ByConstruction), the signs with
// ties apart (SignTally), and Welch's z of each cell (WelchZ, ZRule) for the difference of the two means,
// with the share of cells expected beyond ZThreshold by chance (ChanceShare).
//
// CheckClaims and CompareModes check the paper's claims about ECCCo (Claims) in several result sets, e.g.
// the paper's equations and the authors' code; Agree compares two benchmarks counterfactual by
// counterfactual (e.g. two backends); BelowPaper compares the models' accuracy with the paper's Table 5.
package compare
