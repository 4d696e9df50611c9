// Package outdir is eccco's one output rule: update only folders eccco made, never a user's file.
//
// A folder that a command writes several files into (--out DIR) is marked as eccco's by a file named
// Mark, written when eccco creates the folder or first writes into an empty one. A marked folder may be
// updated by any later command; an existing folder that is not marked and not empty (a user's) is written
// into only when the user asks for it (--replace), which marks it. A command that writes one file (--out
// FILE) refuses a file that exists unless the user asks for its replacement.
package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// Mark is the name of the file that marks a folder as made by eccco.
const Mark = ".eccco"

// markContent is Mark's content: what it means, for a user who finds it.
const markContent = "This folder was made by eccco; eccco commands may update the files in it.\n"

// ErrNotOurs is wrapped by Prepare and File when the output exists and eccco did not make it.
var ErrNotOurs = errors.New("refusing to write over something eccco did not make")

// Prepare readies dir for a command's outputs: an absent or empty folder is created and marked; a
// marked folder, or one directly inside a marked folder, is left as it is; an existing unmarked folder is marked (adopted) when it holds one of
// the entries that older eccco versions left in their output folders (legacy: paths relative to dir,
// glob patterns allowed) or when replace is set, and otherwise refused with an error wrapping ErrNotOurs
// that names the folder and what to do (flag names the command's output flag, e.g. "--out").
func Prepare(dir string, replace bool, flag string, legacy ...string) error {
	if dir == "" {
		return fmt.Errorf("%s: empty folder name", flag)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return mark(dir)
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s %s is a file, not a folder; choose a folder", ErrNotOurs, flag, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, Mark)); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Clean(dir)), Mark)); err == nil {
		return nil // a folder inside one of eccco's (a benchmark's tables/)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	if len(entries) == 0 || replace {
		return mark(dir)
	}
	for _, pattern := range legacy {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return mark(dir)
		}
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) > 3 {
		names = append(names[:3], fmt.Sprintf("… %d more", len(entries)-3))
	}
	return fmt.Errorf("%w: %s %s exists, holds %s and was not made by eccco (it has no %s); choose a new folder, or pass --replace to write into it (files of the same names are replaced)",
		ErrNotOurs, flag, dir, strings.Join(names, ", "), Mark)
}

// mark creates dir (and its parents) and writes Mark into it.
func mark(dir string) error {
	if err := atomicfile.WriteFile(filepath.Join(dir, Mark), []byte(markContent), 0o644); err != nil {
		return fmt.Errorf("marking %s as eccco's output folder: %w", dir, err)
	}
	return nil
}

// File checks a single-file output (flag names the flag, e.g. "--out"): a path where nothing exists may
// be written; an existing file only when replace is set; a folder never. The error wraps ErrNotOurs.
func File(path string, replace bool, flag string) error {
	if path == "" {
		return fmt.Errorf("%s: empty file name", flag)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case fi.IsDir():
		return fmt.Errorf("%w: %s %s is a folder; name a file", ErrNotOurs, flag, path)
	case !replace:
		return fmt.Errorf("%w: %s %s exists; choose another file, or pass --replace to overwrite it", ErrNotOurs, flag, path)
	}
	return nil
}
