package report

import (
	"testing"
)

func TestProseTemplatesRender(t *testing.T) {
	blocks, err := prose("dataset", map[string]any{"Title": "Moons", "Within": 3, "Cells": 4, "Strict": "2 of 4 (50 %)",
		"Metrics": []string{"cost 100 %"}, "Misses": 1, "Causes": []string{"unexplained (1)"}})
	if err != nil || len(blocks) != 1 {
		t.Fatalf("prose: %v, %d blocks", err, len(blocks))
	}
	if got := blocks[0].(*Para).Text.Text(); got != "Moons. 3 of 4 (75 %) of the published cells lie within the tolerance (2 of 4 (50 %) strictly). By metric: cost 100 %. Likely causes of the 1 miss: unexplained (1)." {
		t.Errorf("dataset paragraph: %q", got)
	}
}
