package models

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

// SpecFile is the name of the JSON file, next to the GoMLX checkpoint files, that holds a saved model's Spec.
const SpecFile = "spec.json"

// Save writes the model (its Spec as JSON and its weights as a GoMLX checkpoint; optimiser state is left
// out) to dir. The directory is written under a temporary name and renamed into place, so an interrupted
// Save never leaves a half-written model at dir; an existing model at dir is replaced.
func (m *Model) Save(dir string) (err error) {
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	specJSON, err := json.MarshalIndent(m.spec, "", "  ")
	if err != nil {
		return fmt.Errorf("saving model spec: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, SpecFile), append(specJSON, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	var exclude []*model.Variable
	for v := range m.store.IterVariables() {
		if !v.Trainable {
			exclude = append(exclude, v)
		}
	}
	h, err := checkpoint.Build(m.store).Dir(tmp).ExcludeVars(exclude...).Done()
	if err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	old := ""
	if _, statErr := os.Stat(dir); statErr == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing model at %s: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("saving model to %s: %w", dir, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

// Load reads a model written by Save. It fails if the directory holds no model, if the spec is invalid,
// or if the checkpoint lacks any weight the spec's architecture needs (it never fills missing weights
// with a fresh initialisation).
func Load(backend compute.Backend, dir string) (*Model, error) {
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("loading model: %s holds no saved model (no %s)", dir, SpecFile)
		}
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	var spec Spec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("loading model from %s: parsing %s: %w", dir, SpecFile, err)
	}
	if err := spec.Validate(); err != nil {
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	m := &Model{spec: spec, store: model.NewStore()}
	if _, err := checkpoint.Load(m.store).Dir(dir).Immediate().Done(); err != nil {
		return nil, fmt.Errorf("loading model weights from %s: %w", dir, err)
	}
	loaded := map[string]bool{}
	for v := range m.store.IterVariables() {
		loaded[v.Path()] = true
	}
	if err := m.initialize(backend); err != nil {
		return nil, fmt.Errorf("loading model from %s: %w", dir, err)
	}
	for v := range m.store.IterVariables() {
		if v.Trainable && !loaded[v.Path()] {
			return nil, fmt.Errorf("loading model from %s: the checkpoint has no weight %q that a %s with this spec needs", dir, v.Path(), spec.Kind)
		}
	}
	return m, nil
}
