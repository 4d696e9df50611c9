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
	"os"
	"path/filepath"
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
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable where the system supports syncing a directory (best effort:
// the file itself is complete either way).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
