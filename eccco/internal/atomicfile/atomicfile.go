// Package atomicfile writes files atomically: a reader sees the old file or the new one, never a part.
//
// The content goes to a temporary file in the target's own directory, which is synced to disk, given its
// permission and then renamed over the target. A reader
// (or a rerun after a crash) therefore sees either the old file or the complete new one, never a part.
// Every failure removes the temporary file.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// TempPrefix starts the name of every temporary file (followed by the target's base name and a random
// suffix), so that a directory listing can tell an interrupted write from a result.
const TempPrefix = ".tmp-"

// WriteFile writes data to path atomically with permission perm (exactly perm: the umask does not apply),
// creating missing parent directories (0755).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes what fill writes to w to path atomically with permission perm (exactly perm: the umask
// does not apply), creating missing parent directories (0755). w is buffered. If fill returns an error
// (or panics), path is left as it was and no temporary file remains.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) error {
	if path == "" {
		return errors.New("atomic write: empty path")
	}
	if fill == nil {
		return fmt.Errorf("atomic write %s: nil fill function", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("atomic write %s: creating the directory: %w", path, err)
	}
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("atomic write %s: creating a temporary file: %w", path, err)
	}
	tmp, closed, done := f.Name(), false, false
	defer func() { // on every failure, panics in fill included
		if !done {
			if !closed {
				_ = f.Close()
			}
			_ = os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fill(bw); err != nil {
		return fmt.Errorf("atomic write %s: writing the content: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("atomic write %s: writing %s: %w", path, tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("atomic write %s: setting permission %v: %w", path, perm, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("atomic write %s: syncing %s: %w", path, tmp, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomic write %s: closing %s: %w", path, tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomic write %s: renaming the temporary file into place: %w", path, err)
	}
	done = true
	SyncDir(dir)
	return nil
}

// SyncDir makes a rename in dir durable where the system supports syncing a directory (best effort:
// the file itself is complete either way).
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// WriteNew is Write for a file that must not exist: the complete temporary file is hard-linked to path,
// which fails if anything exists there, even something that appeared while fill ran (another process's
// result), so nothing is ever replaced; the error then wraps fs.ErrExist. Missing parent directories
// are created (0755) and, if the write fails, removed again. Where the file system has no hard links,
// path is created exclusively (O_EXCL) and the content copied into it (removed again if that fails).
func WriteNew(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	if path == "" {
		return errors.New("write: empty path")
	}
	if fill == nil {
		return fmt.Errorf("write %s: nil fill function", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("write %s: %w", path, fs.ErrExist)
	}
	dir := filepath.Dir(path)
	var made []string
	defer func() {
		if err != nil {
			for i := len(made) - 1; i >= 0; i-- {
				_ = os.Remove(made[i]) // what this call made, empty again
			}
		}
	}()
	if made, err = mkdirs(dir); err != nil {
		return fmt.Errorf("write %s: creating the directory: %w", path, err)
	}
	f, err := os.CreateTemp(dir, TempPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: creating a temporary file: %w", path, err)
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // after the link (or the copy), or on failure
	if err := fillSynced(f, perm, fill); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: closing %s: %w", path, tmp, err)
	}
	lerr := os.Link(tmp, path)
	switch {
	case lerr == nil:
	case errors.Is(lerr, fs.ErrExist):
		return fmt.Errorf("write %s: %w (it appeared while this ran; it is left as it was)", path, fs.ErrExist)
	default:
		if err := copyNew(tmp, path, perm); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	SyncDir(dir)
	return nil
}

// fillSynced writes fill's content to f, buffered, sets perm and syncs.
func fillSynced(f *os.File, perm os.FileMode, fill func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := fill(bw); err != nil {
		return fmt.Errorf("writing the content: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", f.Name(), err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("setting permission %v: %w", perm, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", f.Name(), err)
	}
	return nil
}

// copyNew copies src to dst, which it creates exclusively; a failed copy removes dst (its own file).
func copyNew(src, dst string, perm os.FileMode) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w (it appeared while this ran; it is left as it was)", fs.ErrExist)
		}
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(dst)
		}
	}()
	if _, err = io.Copy(out, in); err != nil {
		return err
	}
	if err = out.Chmod(perm); err != nil {
		return err
	}
	return out.Sync()
}

// mkdirs creates dir and its missing parents (0755) and returns the ones it made, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(missing)
	var made []string
	for _, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue // made meanwhile by someone else: not ours to remove
			}
			return made, err
		}
		made = append(made, d)
	}
	return made, nil
}
