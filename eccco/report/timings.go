package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

import ()

// TimingsMarkdown renders the stage timings of data sets as a table (minutes), with a total row.
func TimingsMarkdown(ts []benchmark.Timings) string {
	var sb strings.Builder
	sb.WriteString("| data set | units |")
	for _, s := range benchmark.Stages {
		sb.WriteString(" " + s + " (min) |")
	}
	sb.WriteString(" total (min) |\n|---|---|" + strings.Repeat("---|", len(benchmark.Stages)+1) + "\n")
	sum := benchmark.Timings{Dataset: "all", Seconds: map[string]float64{}}
	for _, t := range slices.SortedFunc(slices.Values(ts), func(a, b benchmark.Timings) int { return strings.Compare(a.Dataset, b.Dataset) }) {
		fmt.Fprintf(&sb, "| %s | %d |", t.Dataset, t.Units)
		for _, s := range benchmark.Stages {
			fmt.Fprintf(&sb, " %.1f |", t.Seconds[s]/60)
			sum.Seconds[s] += t.Seconds[s]
		}
		sum.Units += t.Units
		fmt.Fprintf(&sb, " %.1f |\n", t.Total()/60)
	}
	if len(ts) > 1 {
		fmt.Fprintf(&sb, "| all | %d |", sum.Units)
		for _, s := range benchmark.Stages {
			fmt.Fprintf(&sb, " %.1f |", sum.Seconds[s]/60)
		}
		fmt.Fprintf(&sb, " %.1f |\n", sum.Total()/60)
	}
	return sb.String()
}

// WriteTimings writes the stage timings of a benchmark invocation's data sets as Markdown to path
// (atomically), under a heading that says how to read them: where lanes data sets ran at a time (more
// than one), each row is that data set's own wall time while it shared the machine. It returns the table.
func WriteTimings(path string, ts []benchmark.Timings, lanes int) (string, error) {
	md := TimingsMarkdown(ts)
	head := "Benchmark wall time by stage (this shard's invocations; model training included in models):\n\n"
	if lanes > 1 {
		head = fmt.Sprintf("Benchmark wall time by stage (this shard's invocations; model training included in models; %d data sets at a time, so each row is that data set's own wall time while it shared the machine, and the rows add up to more than the run took):\n\n", lanes)
	}
	return md, atomicfile.WriteFile(path, []byte(head+md), 0o644)
}
