package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// Stages are the parts of a benchmark's wall time that Timings records.
var Stages = []string{"models", "preparation", "search", "sampling", "metrics"}

// StageNotes say what each stage holds.
var StageNotes = map[string]string{
	"models":      "loading or training the models (first use of each)",
	"preparation": "preparing each run: factuals, calibration, REVISE's VAE and ECCCo+'s PCA (first use), the ECCCo-L1 family's own samples",
	"search":      "the batched counterfactual searches",
	"sampling":    "the SGLD samples behind unfaithfulness",
	"metrics":     "the six metrics",
}

// Timings are the seconds a data set's benchmark spent per stage, summed over every invocation that
// computed units: Run adds a model's time when the model is ready and a unit's when the unit is written,
// so a run killed and resumed sums what each invocation kept (the unit being computed when it was killed
// is dropped with its time). Units counts the units computed.
type Timings struct {
	Dataset string             `json:"dataset"`
	Seconds map[string]float64 `json:"seconds"`
	Units   int                `json:"units"`
}

func (t *Timings) add(stage string, d time.Duration) {
	if t.Seconds == nil {
		t.Seconds = map[string]float64{}
	}
	t.Seconds[stage] += d.Seconds()
}

// Total is the sum over the stages.
func (t Timings) Total() float64 {
	var s float64
	for _, v := range t.Seconds {
		s += v
	}
	return s
}

// TimingsPath is where the stage timings of a data set's units are kept.
func (r *Runner) TimingsPath(dataset string) string {
	return filepath.Join(r.Out, "units", dataset, "timings.json")
}

// ReadTimings reads the stage timings of a data set in a result directory (zero Timings when none were
// recorded).
func ReadTimings(out, dataset string) (Timings, error) {
	t := Timings{Dataset: dataset, Seconds: map[string]float64{}}
	raw, err := os.ReadFile(filepath.Join(out, "units", dataset, "timings.json"))
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("benchmark: %w", err)
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, fmt.Errorf("benchmark: reading the timings of %s: %w", dataset, err)
	}
	return t, nil
}

// saveTimings adds t to the timings recorded for its data set.
func (r *Runner) saveTimings(t Timings) error {
	if t.Units == 0 && t.Total() == 0 {
		return nil
	}
	have, err := ReadTimings(r.Out, t.Dataset)
	if err != nil {
		return err
	}
	for k, v := range t.Seconds {
		have.Seconds[k] += v
	}
	have.Units += t.Units
	raw, err := json.MarshalIndent(have, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(r.TimingsPath(t.Dataset), append(raw, '\n'), 0o644)
}
