package vae

import (
	"errors"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/internal/savedir"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
)

// SpecFile is the name of the JSON file, next to the GoMLX checkpoint files, that holds a saved VAE's
// Spec (and its provenance, as the field "provenance").
const SpecFile = "vae.json"

var (
	// ErrExists is wrapped by Save, Replace and CheckSaveDir when the directory already holds something
	// they may not write over: a saved VAE (Save), or anything else (never). It is models.ErrExists.
	ErrExists = models.ErrExists
	// ErrNoVAE is wrapped by Load when the directory holds no saved VAE (no SpecFile, or no directory):
	// "missing", as opposed to a saved VAE that cannot be read ("broken": any other error of Load).
	ErrNoVAE = errors.New("no saved VAE")
)

// savedSpec is the content of SpecFile: the Spec's fields and, when known, the provenance.
type savedSpec struct {
	Spec
	Provenance *models.Provenance `json:"provenance,omitempty"`
}

var format = savedir.Format{What: "VAE", SpecFile: SpecFile, ErrMissing: ErrNoVAE,
	ReplaceHint: "to replace it, pass --replace to eccco vae, or choose another folder"}

// Provenance returns where the VAE came from (the zero value when unknown).
func (v *VAE) Provenance() models.Provenance { return v.prov }

// SetProvenance records where the VAE came from; Save writes it with the VAE.
func (v *VAE) SetProvenance(p models.Provenance) { v.prov = p }

// Save writes the VAE (its Spec and provenance as JSON in SpecFile and its weights as a GoMLX checkpoint;
// optimiser state is left out) to dir, which must not exist or be an empty directory: Save never deletes
// anything, and fails with an error wrapping ErrExists (saying what is there) otherwise. The directory
// is written under a temporary name, synced and renamed into place, so an interrupted Save never leaves
// a half-written VAE at dir.
func (v *VAE) Save(dir string) error { return v.save(dir, false) }

// Replace is Save that may also replace a VAE already saved at dir (a directory holding only SpecFile
// and checkpoint files; the old VAE is removed only once the new one is in place). Anything else at dir
// is never written over (an error wrapping ErrExists).
func (v *VAE) Replace(dir string) error { return v.save(dir, true) }

// CheckSaveDir returns nil if Save(dir) would write to dir, and otherwise the error it would give (one
// wrapping ErrExists if dir holds something), without writing anything.
func CheckSaveDir(dir string) error { return format.Check(dir, false) }

func (v *VAE) save(dir string, replace bool) error {
	s := savedSpec{Spec: v.spec}
	if v.prov != (models.Provenance{}) {
		p := v.prov
		s.Provenance = &p
	}
	return format.Save(dir, s, v.store, replace)
}

// Load reads a VAE written by Save, with its provenance (zero for VAEs saved without one). It fails with
// an error wrapping ErrNoVAE if dir holds no saved VAE, and with another error if the spec is unreadable
// or invalid, if the checkpoint lacks any weight the spec's architecture needs (it never fills missing
// weights with a fresh initialisation) or if a saved weight's shape does not fit the spec.
func Load(backend compute.Backend, dir string) (_ *VAE, err error) {
	var s savedSpec
	if err := format.ReadSpec(dir, &s); err != nil {
		return nil, err
	}
	if err := s.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("loading VAE from %s: %w", dir, err)
	}
	v := &VAE{spec: s.Spec, store: model.NewStore()}
	if s.Provenance != nil {
		v.prov = *s.Provenance
	}
	w, err := format.ReadWeights(dir, v.store)
	if err != nil {
		return nil, err
	}
	defer w.Recover(&err)
	if err := w.Check(v.initialize(backend)); err != nil {
		return nil, err
	}
	return v, nil
}
