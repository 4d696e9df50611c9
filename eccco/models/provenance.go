package models

import "github.com/eccco-go/eccco-go/eccco/internal/fielddiff"

// Provenance records where a saved model came from; Save writes it in spec.json, Load reads it back.
// A model saved without it (an older eccco) loads with the zero Provenance, which means "unknown".
type Provenance struct {
	Dataset string `json:"dataset"`
	Seed    uint64 `json:"seed"`  // seed of the data split, initialisation and minibatch order
	Split   string `json:"split"` // how the training rows were chosen, e.g. "moons: 600 train / 150 test, seed 42"
	Mode    string `json:"mode"`  // "paper" or "authors-code" (set by the experiment layer)
	// Settings are the experiment's switches that shaped the model, as "key=value …" (set by the
	// experiment layer; "" in models saved before they were recorded, which Diff then does not compare).
	Settings string   `json:"settings,omitempty"`
	Kind     Kind     `json:"kind"`
	Training Training `json:"training"`
}

// Training records how a model was trained (part of its Provenance).
type Training struct {
	Epochs       int     `json:"epochs"`
	BatchSize    int     `json:"batch_size"`
	LearningRate float64 `json:"learning_rate"`
	Objective    string  `json:"objective"` // e.g. "cross-entropy", "jem", "jem (authors' code)"
	// Seconds is how long training took (0 if unknown). It is a measurement, not a setting: Diff ignores it.
	Seconds float64 `json:"seconds,omitempty"`
}

// Diff lists, in a fixed order, every field in which p differs from q as "FIELD P ≠ Q" (strings quoted),
// e.g. `seed 1 ≠ 42`; it is empty when p and q are equal. Every field is compared except
// Training.Seconds, which records how long training took rather than how the model was made, and
// Settings where either is "" (recorded by an older eccco; its Mode, Split and Objective still say how it
// was made).
func (p Provenance) Diff(q Provenance) []string {
	var d fielddiff.List
	str, num := d.Text, d.Value
	str("dataset", p.Dataset, q.Dataset)
	num("seed", p.Seed, q.Seed)
	str("split", p.Split, q.Split)
	str("mode", p.Mode, q.Mode)
	if p.Settings != "" && q.Settings != "" {
		str("settings", p.Settings, q.Settings)
	}
	str("kind", string(p.Kind), string(q.Kind))
	num("epochs", p.Training.Epochs, q.Training.Epochs)
	num("batch size", p.Training.BatchSize, q.Training.BatchSize)
	num("learning rate", p.Training.LearningRate, q.Training.LearningRate)
	str("objective", p.Training.Objective, q.Training.Objective)
	return d
}

// Provenance returns where the model came from (the zero value when unknown).
func (m *Model) Provenance() Provenance { return m.prov }

// SetProvenance records where the model came from; Save writes it with the model.
func (m *Model) SetProvenance(p Provenance) { m.prov = p }
