package progress

import (
	"bytes"
	"strings"
	"testing"
)

func TestLineModePrintsTenSteps(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "")
	var buf bytes.Buffer
	b := New(&buf, 100, "training", "epochs")
	for range 100 {
		b.Add(1)
	}
	b.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("got %d lines, want 10:\n%s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[9], "training: 100/100 epochs") {
		t.Errorf("last line %q", lines[9])
	}
}

func TestSilent(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	var buf bytes.Buffer
	b := New(&buf, 3, "x", "steps")
	b.Add(3)
	b.Finish()
	if buf.Len() != 0 {
		t.Errorf("ECCCO_PROGRESS=0 printed %q", buf.String())
	}
}
