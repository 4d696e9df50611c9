// Package chunkbench times a training loop given several minibatches a graph call against one a call.
//
// It serves the BenchmarkTrainChunks of eccco/models, eccco/vae and eccco/energy.
package chunkbench

import (
	"slices"
	"testing"
	"time"
)

// Compare warms the backend up with one call of timed(1), then, once per benchmark iteration, times
// timed(1) and timed(chunk) one after the other, and reports both in ms per iteration
// ("one-per-call-ms", "chunks-ms") and the median over the iterations of their ratio ("chunks/one").
// timed trains a fresh model with perCall minibatches per graph call and returns the training's wall time.
func Compare(b *testing.B, chunk int, timed func(perCall int) time.Duration) {
	b.Helper()
	timed(1)
	var t1, tc time.Duration
	var ratios []float64
	for b.Loop() {
		one, chunks := timed(1), timed(chunk)
		t1, tc = t1+one, tc+chunks
		ratios = append(ratios, chunks.Seconds()/one.Seconds())
	}
	slices.Sort(ratios)
	b.ReportMetric(t1.Seconds()*1e3/float64(b.N), "one-per-call-ms")
	b.ReportMetric(tc.Seconds()*1e3/float64(b.N), "chunks-ms")
	b.ReportMetric(ratios[len(ratios)/2], "chunks/one")
}
