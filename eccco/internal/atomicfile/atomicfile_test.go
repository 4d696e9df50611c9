package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileCreatesDirectoriesContentAndPermission(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a", "b", "results.csv")
	for _, content := range []string{"first\n", "second, longer content\n"} { // create, then replace
		if err := WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != content {
			t.Errorf("content %q, want %q", got, content)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o644 {
			t.Errorf("permission %v, want -rw-r--r--", fi.Mode().Perm())
		}
		if names := entries(t, filepath.Dir(path)); len(names) != 1 || names[0] != "results.csv" {
			t.Errorf("directory holds %v, want only results.csv", names)
		}
	}
	// Another permission is set exactly as asked.
	other := filepath.Join(root, "x.sh")
	if err := WriteFile(other, []byte("#!/bin/sh\n"), 0o750); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("permission %v (%v), want -rwxr-x---", fi.Mode().Perm(), err)
	}
}

func TestWriteStreams(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	line := strings.Repeat("x", 99) + "\n"
	err := Write(path, 0o644, func(w io.Writer) error {
		for range 2000 { // 200 kB: more than the buffer
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 200000 {
		t.Errorf("size %d (%v), want 200000", fi.Size(), err)
	}
}

func TestFailedFillLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want one wrapping boom", err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v after a failed write, want nothing", names)
	}
	// An existing file survives a failed replacement unchanged.
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, 0o644, func(io.Writer) error { return boom }); err == nil {
		t.Fatal("no error")
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("content %q after a failed replacement, want %q", got, "old")
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.csv", names)
	}
}

func TestPanickingFillLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() { _ = recover() }()
		_ = Write(filepath.Join(dir, "out"), 0o644, func(io.Writer) error { panic("fill") })
	}()
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v after a panic, want nothing", names)
	}
}

// A parent path that is a regular file cannot become a directory (whatever the permissions: the tests
// may run as root).
func TestParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(file, "out"), filepath.Join(file, "sub", "out")} {
		err := WriteFile(path, []byte("y"), 0o644)
		if err == nil {
			t.Fatalf("%s: no error", path)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("error %q does not name %s", err, path)
		}
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "file" {
		t.Errorf("directory holds %v, want only file", names)
	}
}

// Renaming over a directory fails, and the temporary file goes.
func TestTargetIsADirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(target, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("y"), 0o644); err == nil {
		t.Fatal("no error")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "d" {
		t.Errorf("directory holds %v, want only d", names)
	}
}

func TestBadArguments(t *testing.T) {
	if err := WriteFile("", nil, 0o644); err == nil {
		t.Error("empty path: no error")
	}
	if err := Write(filepath.Join(t.TempDir(), "x"), 0o644, nil); err == nil {
		t.Error("nil fill: no error")
	}
}

// TestWriteNewNeverReplaces: WriteNew refuses an existing file, and one that appears while its fill runs
// (a second writer finishing first): the second writer's content stays, the first gets fs.ErrExist, and no
// temporary file remains.
func TestWriteNewNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cf.csv")
	err := WriteNew(path, 0o644, func(w io.Writer) error {
		if err := WriteNew(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "second\n"); return err }); err != nil {
			t.Errorf("the second writer: %v", err)
		}
		_, err := io.WriteString(w, "first\n")
		return err
	})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("the first writer: err = %v, want fs.ErrExist", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "second\n" {
		t.Errorf("content %q, want the second writer's", got)
	}
	if err := WriteNew(path, 0o644, func(w io.Writer) error { return nil }); !errors.Is(err, fs.ErrExist) {
		t.Errorf("over an existing file: err = %v", err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("entries %v, want the one file", names)
	}
}

// TestWriteNewFailureLeavesNoFolder: a failed write removes the folders it made (and only those).
func TestWriteNewFailureLeavesNoFolder(t *testing.T) {
	root := t.TempDir()
	err := WriteNew(filepath.Join(root, "a", "b", "cf.csv"), 0o644, func(io.Writer) error { return errors.New("no content") })
	if err == nil {
		t.Fatal("no error")
	}
	if names := entries(t, root); len(names) != 0 {
		t.Errorf("left %v behind", names)
	}
	if err := WriteNew(filepath.Join(root, "a", "cf.csv"), 0o600, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "a", "cf.csv")); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 1 {
		t.Errorf("stat %v, %v", fi, err)
	}
}
