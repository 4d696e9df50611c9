// Package report writes eccco-go's reproduction report: a LaTeX document (and a Markdown version for the
// code host) that follows the sections of the ECCCo paper (Altmeyer et al., AAAI-24) and sets every
// number of ours beside the published one.
//
// It is the top layer of the library: it reads what the other layers wrote — a benchmark directory
// (`eccco bench --out DIR`: results.csv and the units' manifests) or its tables (cells.csv and
// comparison.md, as paper/results/), the model-performance CSV (`eccco perf`), the paper's numbers
// (paper/published-results.csv), a figures directory (`eccco figures`), the README's account of what
// differs from the paper, and reproduce.sh's stage timings — and imports benchmark, figures and
// experiment; nothing in the library imports it. `eccco report` is its command.
//
// # The document
//
// Introduction; the method with the paper's figures (fig:motiv, fig:poc, fig:poc-gen, fig:cp-diff,
// fig:mnist-gen, under their labels and captions, with the gallery's note on what matches); the
// experiments: the model performance (the paper's Table 5, published beside ours), the comparison's
// headline (the shares of cells within the paper's mean ± 3 sd strictly and rounding-aware, per metric
// and per data set, Spearman's ρ of the generators' ranking, the signs of ECCCo − Wachter and REVISE −
// Wachter), one table per data set with the published line under each of ours and every cell outside
// the published mean ± max(3 sd, 0.015) (benchmark.WithinRounding) marked; what differs from the paper
// and why (quoted from the README); and an appendix with the valid-only tables, further figures and the
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
