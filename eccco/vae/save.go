package vae

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// SpecFile is the name of the JSON file, next to the GoMLX checkpoint files, that holds a saved VAE's
// Spec.
const SpecFile = "vae.json"

// Save writes the VAE (its Spec as JSON and its weights as a GoMLX checkpoint; optimiser state is left
// out) to dir. The directory is written under a temporary name and renamed into place, so an interrupted
// Save never leaves a half-written VAE at dir; an existing one at dir is replaced.
func (v *VAE) Save(dir string) (err error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	specJSON, err := json.MarshalIndent(v.spec, "", "  ")
	if err != nil {
		return fmt.Errorf("saving VAE spec: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, SpecFile), append(specJSON, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	var exclude []*model.Variable
	for variable := range v.store.IterVariables() {
		if !variable.Trainable {
			exclude = append(exclude, variable)
		}
	}
	h, err := checkpoint.Build(v.store).Dir(tmp).ExcludeVars(exclude...).Done()
	if err != nil {
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	old := ""
	if _, statErr := os.Stat(dir); statErr == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing VAE at %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("saving VAE to %s: %w", dir, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// Load reads a VAE written by Save. It fails if the directory holds no VAE, if the spec is invalid, or
// if the checkpoint lacks any weight the spec's architecture needs (it never fills missing weights with a
// fresh initialisation).
func Load(backend compute.Backend, dir string) (*VAE, error) {
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("loading VAE: %s holds no saved VAE (no %s)", dir, SpecFile)
		}
		return nil, fmt.Errorf("loading VAE from %s: %w", dir, err)
	}
	var spec Spec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("loading VAE from %s: parsing %s: %w", dir, SpecFile, err)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("loading VAE from %s: %w", dir, err)
	}
	v := &VAE{spec: spec, store: model.NewStore()}
	if _, err := checkpoint.Load(v.store).Dir(dir).Immediate().Done(); err != nil {
		return nil, fmt.Errorf("loading VAE weights from %s: %w", dir, err)
	}
	loaded := map[string]bool{}
	for variable := range v.store.IterVariables() {
		loaded[variable.Path()] = true
	}
	if err := initializeSafely(v, backend); err != nil {
		return nil, fmt.Errorf("loading VAE from %s: %w", dir, err)
	}
	for variable := range v.store.IterVariables() {
		if variable.Trainable && !loaded[variable.Path()] {
			return nil, fmt.Errorf("loading VAE from %s: the checkpoint has no weight %q that a VAE with this spec needs", dir, variable.Path())
		}
	}
	return v, nil
}

// initializeSafely runs v.initialize and turns a panic (a loaded weight whose shape does not match the
// spec makes graph building panic) into an error.
func initializeSafely(v *VAE, backend compute.Backend) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the saved weights do not fit the spec: %v", r)
		}
	}()
	return v.initialize(backend)
}
