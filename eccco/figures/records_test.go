package figures

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A record is current only under its own key and while every file it lists has the checksum it recorded.
func TestRecords(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "x.png"), filepath.Join(dir, "x.svg")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("drawing of "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := Records{Dir: filepath.Join(dir, "records"), Key: "k1"}
	if r.Current("x") {
		t.Error("current before any record")
	}
	if err := r.Mark("x", []string{a, b}); err != nil {
		t.Fatal(err)
	}
	if !r.Current("x") {
		t.Error("not current right after Mark")
	}
	if (Records{Dir: r.Dir, Key: "k2"}).Current("x") {
		t.Error("current under another key")
	}
	if r.Current("y") {
		t.Error("a figure without a record is current")
	}
	if err := os.WriteFile(b, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r.Current("x") {
		t.Error("current after one of its files was edited")
	}
	if err := r.Mark("x", []string{a, b}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if r.Current("x") {
		t.Error("current after one of its files was removed")
	}
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "x.done" {
		t.Errorf("records folder holds %v, want x.done alone (no temporary files)", entries)
	}
	if err := (Records{Dir: dir}).Check(); !errors.Is(err, ErrNoRecordKey) {
		t.Errorf("Check without a key: %v, want ErrNoRecordKey", err)
	}
	if err := (Records{Dir: dir, Key: "a\nb"}).Check(); !errors.Is(err, ErrNoRecordKey) {
		t.Errorf("Check with a line break in the key: %v, want ErrNoRecordKey", err)
	}
	if err := r.Mark("z", nil); err == nil {
		t.Error("Mark with no files: no error")
	}
}
