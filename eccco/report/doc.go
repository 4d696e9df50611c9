// Package report renders eccco-go's results: every table, the comparisons and the reproduction report.
//
// It is the only renderer of the library and its top layer: it reads what the other layers wrote and
// imports benchmark, compare, figures and experiment; nothing in the library imports it.
//
// # Tables and comparisons
//
// WriteTables writes the paper's result tables (Altmeyer et al., AAAI-24, Tables 1–2 and the appendix
// tables) per data set and subset as LaTeX (booktabs), Markdown and CSV (cells.csv, read back by
// ReadCells); TableMarkdown renders one. WriteTableSet does what `eccco bench` and `eccco tables` write
// under tables/: the cells of benchmark rows (joined to Kept cells of other data sets, ReadKept), the
// parameter tables (WriteParameterTables: the paper's table_params.tex, table_ebm_params.tex and
// table_gen_params.tex from the values the code uses; ModelParametersAsRun and ParameterTablesAsRun render
// them as a mode ran them, for the report), the calibration bounds, and comparison.md
// (ComparisonMarkdown, headed by Headline and the provenance: the commit, ReadRevision, and each data set's
// manifest; the counts are compare.Comparison.Counts, defined by CountsMarkdown). RerenderTableSet
// rebuilds a committed table set from its cells.csv without the results behind it (`eccco tables --in` on
// such a directory), keeping its comparison's provenance. PerformanceMarkdown, PerformanceLaTeX and WritePerformance render Table 5 (`eccco perf`);
// TimingsMarkdown and WriteTimings the benchmark's stage timings; ModesMarkdown the claims per mode
// (`eccco modes`, CompareResultDirs) and AgreementMarkdown two benchmarks side by side (`eccco agree`).
//
// # The reproduction report
//
// Make reads a benchmark directory (`eccco bench --out DIR`: results.csv and the units' manifests) or its
// tables (cells.csv and comparison.md, as paper/results/), the model-performance CSV (`eccco perf`), the
// paper's numbers (paper/published-results.csv), a figures directory (`eccco figures`) and reproduce.sh's
// stage timings,
// and writes a LaTeX document and a Markdown version that follow the sections of the paper and set every
// number of ours beside the published one. `eccco report` is its command.
//
// # The document
//
// Introduction; the method with the paper's figures (fig:motiv, fig:poc, fig:poc-gen, fig:cp-diff,
// fig:mnist-gen, under their labels and captions, with the gallery's note on what matches); the
// experiments: the model performance (the paper's Table 5, published beside ours), the comparison's
// headline (the shares of cells within the paper's mean ± 3 sd strictly and rounding-aware, per metric
// and per data set, Spearman's ρ of the generators' ranking, the signs of ECCCo − Wachter and REVISE −
// Wachter), one table per data set with the published line under each of ours and every cell outside
// the published mean ± max(3 sd, 3·h), h half the cell's last printed decimal (compare.WithinRounding), marked; what differs from the paper
// and why (each known difference with the misses the comparison puts down to it, compare.MissCause, and
// the largest groups of unexplained misses, compare.MissGroups); and an appendix with the valid-only tables, further figures and the
// provenance (commit, mode, seed, backend, machine, Go version, each stage's wall time). Every number
// comes from the inputs; a quick-profile report carries a banner (QuickBanner) on its title page and in
// its running header.
//
// Build makes a Document from Inputs; Document.LaTeX and Document.Markdown render the same blocks, so the
// two versions carry the same numbers. Write writes them atomically and never overwrites a file it did
// not generate (each carries Marker) unless told to; Compile typesets the source with latexmk or
// pdflatex in a temporary directory and returns ErrNoTeX when there is no TeX. Make does all of it from
// file paths (Config), as the command does.
package report
