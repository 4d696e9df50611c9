package benchmark

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// The bounds survive a round trip through calibration.csv, and a file that is not one is refused.
func TestBoundsFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	want := UncertaintyBounds{
		{"fashion-mnist", "MLP"}:  {QHatMin: 0.9926, QHatMax: 0.9926, Min: 4.333527, Max: 5.555833, Runs: 1},
		{"moons", "JEM Ensemble"}: {QHatMin: 0.1, QHatMax: 0.25, Min: 0, Max: 0.97, Runs: 50},
	}
	path := filepath.Join(dir, BoundsFile)
	if err := WriteBounds(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBounds(path)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		t.Errorf("read back %v, want %v", got, want)
	}
	if err := os.WriteFile(path, []byte("dataset,subset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadBounds(path); err == nil {
		t.Error("a file with another header was read as bounds")
	}
}
