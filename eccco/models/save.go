package models

import (
	"errors"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/internal/savedir"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// SpecFile is the name of the JSON file, next to the GoMLX checkpoint files, that holds a saved model's
// Spec (and its Provenance, as the field "provenance").
const SpecFile = "spec.json"

var (
	// ErrExists is wrapped by Save, Replace and CheckSaveDir when the directory already holds something
	// they may not write over: a saved model (Save), or anything else (a file, a directory with other
	// content), which is never written over. Package vae uses the same sentinel.
	ErrExists = savedir.ErrExists
	// ErrNoModel is wrapped by Load when the directory holds no saved model (no SpecFile, or no directory):
	// "missing", as opposed to a saved model that cannot be read ("broken": any other error of Load).
	ErrNoModel = errors.New("no saved model")
)

// savedSpec is the content of SpecFile: the Spec's fields and, when known, the Provenance.
type savedSpec struct {
	Spec
	Provenance *Provenance `json:"provenance,omitempty"`
}

var format = savedir.Format{What: "model", SpecFile: SpecFile, ErrMissing: ErrNoModel,
	ReplaceHint: "to replace it, pass --replace to eccco train, or choose another --models-dir"}

// Save writes the model (its Spec and Provenance as JSON in SpecFile and its weights as a GoMLX
// checkpoint; optimiser state is left out) to dir, which must not exist or be an empty directory: Save
// never deletes anything, and fails with an error wrapping ErrExists (saying what is there) otherwise.
// The directory is written under a temporary name, synced and renamed into place, so an interrupted
// Save never leaves a half-written model at dir.
func (m *Model) Save(dir string) error { return m.save(dir, false) }

// Replace is Save that may also replace a model already saved at dir (a directory holding only SpecFile
// and checkpoint files; the old model is removed only once the new one is in place). Anything else at
// dir is never written over (an error wrapping ErrExists).
func (m *Model) Replace(dir string) error { return m.save(dir, true) }

// CheckSaveDir returns nil if Save(dir) would write to dir, and otherwise the error it would give (one
// wrapping ErrExists if dir holds something), without writing anything: a caller can fail before
// training rather than after.
func CheckSaveDir(dir string) error { return format.Check(dir, false) }

func (m *Model) save(dir string, replace bool) error {
	s := savedSpec{Spec: m.spec}
	if m.prov != (Provenance{}) {
		p := m.prov
		s.Provenance = &p
	}
	return format.Save(dir, s, m.store, replace)
}

// Load reads a model written by Save, with its Provenance (zero for models saved without one). It fails
// with an error wrapping ErrNoModel if dir holds no saved model, and with another error if the spec is
// unreadable or invalid, if the checkpoint lacks any weight the spec's architecture needs (it never fills
// missing weights with a fresh initialisation) or if a saved weight's shape does not fit the spec.
func Load(backend compute.Backend, dir string) (_ *Model, err error) {
	var s savedSpec
	if err := format.ReadSpec(dir, &s); err != nil {
		return nil, err
	}
	if err := s.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	m := &Model{spec: s.Spec, store: model.NewStore()}
	if s.Provenance != nil {
		m.prov = *s.Provenance
	}
	w, err := format.ReadWeights(dir, m.store)
	if err != nil {
		return nil, err
	}
	defer w.Recover(&err)
	if err := w.Check(m.initialize(backend)); err != nil {
		return nil, err
	}
	return m, nil
}
