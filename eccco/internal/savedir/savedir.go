// Package savedir holds the save and load mechanics shared by package models and package vae.
//
// A saved item is a directory holding a JSON spec file and a GoMLX checkpoint of a store's trainable
// variables, written under a temporary name and renamed into place, and never written over anything
// that is not a saved item of the same format unless the caller asks to replace it.
package savedir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

// ErrExists is wrapped by Save when the target directory holds something it may not write over: a saved
// item (unless replacing), or anything else (always).
var ErrExists = errors.New("the target already exists")

// tempPrefix starts the names of the temporary directories Save creates next to the target.
const tempPrefix = ".tmp-"

// Format describes one kind of saved directory.
type Format struct {
	// What names the saved item in messages: "model", "VAE".
	What string
	// SpecFile is the name of the JSON spec file inside the directory; its presence marks a saved item.
	SpecFile string
	// ErrMissing is wrapped by ReadSpec when the directory holds no SpecFile (or does not exist).
	ErrMissing error
	// ReplaceHint tells the user how to ask for a replacement (appended to ErrExists errors).
	ReplaceHint string
}

// state is what a target path holds.
type state int

const (
	absent    state = iota // nothing at the path
	empty                  // an empty directory
	saved                  // a directory holding only a saved item of the format (spec file + checkpoint)
	savedPlus              // a directory holding a saved item and other entries
	other                  // anything else
)

// inspect says what dir holds, with a description for errors.
func (f Format) inspect(dir string) (state, string, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return absent, "", nil
	case err != nil:
		return other, "", err
	case !fi.IsDir():
		return other, "it is a file, not a directory", nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return other, "", err
	}
	if len(entries) == 0 {
		return empty, "", nil
	}
	hasSpec := false
	var foreign []string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == f.SpecFile && e.Type().IsRegular():
			hasSpec = true
		case strings.HasPrefix(name, "checkpoint") && e.Type().IsRegular():
		default:
			foreign = append(foreign, name)
		}
	}
	switch {
	case hasSpec && len(foreign) == 0:
		return saved, fmt.Sprintf("it holds a saved %s (%s)", f.What, f.SpecFile), nil
	case hasSpec:
		return savedPlus, fmt.Sprintf("it holds a saved %s (%s) and other entries (%s) that replacing would delete", f.What, f.SpecFile, names(foreign)), nil
	}
	return other, fmt.Sprintf("it holds %d entries (%s) and no %s, so it is not a saved %s", len(entries), names(foreign), f.SpecFile, f.What), nil
}

// names lists up to three names.
func names(list []string) string {
	if len(list) > 3 {
		return strings.Join(list[:3], ", ") + fmt.Sprintf(", … %d more", len(list)-3)
	}
	return strings.Join(list, ", ")
}

// Check returns nil when Save(dir, …, replace) may write to dir, an error wrapping ErrExists (saying
// what is there) when it may not, and another error when dir cannot be inspected. It lets a caller fail
// before hours of training rather than after.
func (f Format) Check(dir string, replace bool) error {
	if dir == "" {
		return fmt.Errorf("saving %s: empty directory name", f.What)
	}
	_, err := f.check(filepath.Clean(dir), replace)
	return err
}

// check returns nil when Save may write to dir, and an error wrapping ErrExists when it may not.
func (f Format) check(dir string, replace bool) (state, error) {
	st, what, err := f.inspect(dir)
	if err != nil {
		return st, fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	switch {
	case st == absent || st == empty || (st == saved && replace):
		return st, nil
	case st == saved:
		return st, fmt.Errorf("saving %s to %s: %w: %s; %s", f.What, dir, ErrExists, what, f.ReplaceHint)
	}
	return st, fmt.Errorf("saving %s to %s: %w: %s; it is never written over", f.What, dir, ErrExists, what)
}

// Save writes spec (as indented JSON, in SpecFile) and a GoMLX checkpoint of store's trainable variables
// to dir. Everything is written to a temporary directory next to dir, synced, and renamed into place, so
// an interrupted Save never leaves a half-written item at dir. If dir does not exist or is an empty
// directory it is written; if it holds a saved item of this format (SpecFile and checkpoint files only),
// that item is replaced when replace is true and otherwise left alone with an error wrapping ErrExists;
// anything else at dir (a file, a directory with other content) is never touched: an error wrapping
// ErrExists says what is there.
func (f Format) Save(dir string, spec any, store *model.Store, replace bool) (err error) {
	if dir == "" {
		return fmt.Errorf("saving %s: empty directory name", f.What)
	}
	dir = filepath.Clean(dir)
	if _, err := f.check(dir, replace); err != nil { // fail before writing anything
		return err
	}
	specJSON, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return fmt.Errorf("saving %s spec: %w", f.What, err)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	tmp, err := os.MkdirTemp(parent, tempPrefix+filepath.Base(dir)+"-")
	if err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes 0700; a saved item is an ordinary directory
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(tmp, f.SpecFile), append(specJSON, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	var exclude []*model.Variable
	for v := range store.IterVariables() {
		if !v.Trainable {
			exclude = append(exclude, v)
		}
	}
	h, err := checkpoint.Build(store).Dir(tmp).ExcludeVars(exclude...).Done()
	if err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	if err := h.Save(); err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	if err := dropCheckpointTimes(tmp); err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	if err := syncTree(tmp); err != nil {
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	// Check again: something may have appeared at dir while the checkpoint was written.
	st, err := f.check(dir, replace)
	if err != nil {
		return err
	}
	old := ""
	switch st {
	case empty:
		if err := os.Remove(dir); err != nil { // removes only an empty directory
			return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
		}
	case saved:
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("replacing the %s at %s: %w", f.What, dir, err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			_ = os.Rename(old, dir)
		}
		return fmt.Errorf("saving %s to %s: %w", f.What, dir, err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	atomicfile.SyncDir(parent)
	return nil
}

// checkpointTime matches the wall-clock time GoMLX writes into a checkpoint's file names
// (checkpoint-n0000000-20261127-183849-step-00000100.bin: count, date-time, step).
var checkpointTime = regexp.MustCompile(`^(checkpoint-n[0-9]+)-[0-9]{8}-[0-9]{6}(-.*)$`)

// dropCheckpointTimes renames the checkpoint files in dir without the time of saving
// (checkpoint-n0000000-step-00000100.bin), so that the same model saved twice is the same tree of the same
// bytes, names included. GoMLX still finds them: it takes any checkpoint-n….json, in name order, and a
// saved item holds one.
func dropCheckpointTimes(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		m := checkpointTime.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(dir, m[1]+m[2])); err != nil {
			return err
		}
	}
	return nil
}

// syncTree flushes every file under dir, and dir itself, to disk.
func syncTree(dir string) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fh, err := os.Open(path)
		if err != nil {
			return err
		}
		if err := fh.Sync(); err != nil {
			_ = fh.Close()
			return err
		}
		return fh.Close()
	})
	if err != nil {
		return err
	}
	atomicfile.SyncDir(dir)
	return nil
}

// ReadSpec reads dir's SpecFile into spec (a pointer). A directory without SpecFile (or no directory)
// gives an error wrapping ErrMissing; an unreadable or unparsable spec file another error.
func (f Format) ReadSpec(dir string, spec any) error {
	raw, err := os.ReadFile(filepath.Join(dir, f.SpecFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("loading %s from %s: %w (no %s)", f.What, dir, f.ErrMissing, f.SpecFile)
		}
		return fmt.Errorf("loading %s from %s: %w", f.What, dir, err)
	}
	if err := json.Unmarshal(raw, spec); err != nil {
		return fmt.Errorf("loading %s from %s: parsing %s: %w", f.What, dir, f.SpecFile, err)
	}
	return nil
}

// Weights is a checkpoint read into a fresh store (ReadWeights) before the item's graph is built on it.
// The caller then builds the graph once, which creates every variable of the item's architecture and
// takes the loaded values, under a deferred Recover (a saved weight whose shape does not fit the spec
// makes graph building panic), and passes the build's error to Check:
//
//	w, err := format.ReadWeights(dir, store)
//	if err != nil {
//		return nil, err
//	}
//	defer w.Recover(&err)
//	if err := w.Check(item.initialize(backend)); err != nil {
//		return nil, err
//	}
type Weights struct {
	f      Format
	dir    string
	store  *model.Store
	loaded map[string]bool
}

// ReadWeights loads the checkpoint in dir into store (fresh, holding no variables). A panic while
// loading (a damaged checkpoint) is returned as an error.
func (f Format) ReadWeights(dir string, store *model.Store) (_ *Weights, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("loading %s weights from %s: %v", f.What, dir, r)
		}
	}()
	if _, err := checkpoint.Load(store).Dir(dir).Immediate().Done(); err != nil {
		return nil, fmt.Errorf("loading %s weights from %s: %w", f.What, dir, err)
	}
	w := &Weights{f: f, dir: dir, store: store, loaded: map[string]bool{}}
	for v := range store.IterVariables() {
		w.loaded[v.Path()] = true
	}
	return w, nil
}

// Check returns the build's error (buildErr) wrapped with the directory, or else an error naming the
// first trainable variable that did not come from the checkpoint: missing weights are an error, never
// filled with a fresh initialisation.
func (w *Weights) Check(buildErr error) error {
	if buildErr != nil {
		return fmt.Errorf("loading %s from %s: %w", w.f.What, w.dir, buildErr)
	}
	for v := range w.store.IterVariables() {
		if v.Trainable && !w.loaded[v.Path()] {
			return fmt.Errorf("loading %s from %s: the checkpoint has no weight %q that a %s with this spec needs", w.f.What, w.dir, v.Path(), w.f.What)
		}
	}
	return nil
}

// Recover, deferred while the graph is built on the weights, turns a panic of the build into *err.
func (w *Weights) Recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("loading %s from %s: the saved weights do not fit the spec: %v", w.f.What, w.dir, r)
	}
}
