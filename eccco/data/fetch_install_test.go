package data

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
)

// TestStageLocalFaults: a temporary file that cannot be created is a local fault naming the directory and
// wrapping the operating system's error; a source that fails while being read is not, and leaves nothing.
func TestStageLocalFaults(t *testing.T) {
	blocker := writeFile(t, t.TempDir(), "file", []byte("x"))
	st := &stage{dir: filepath.Join(blocker, "sub")}
	_, _, _, err := st.writeTemp("x.csv", strings.NewReader("data"))
	if !errors.Is(err, ErrLocalWrite) || !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("temporary file under a regular file: %v; want ErrLocalWrite and ENOTDIR", err)
	} else {
		wantErr(t, err, "local problem writing "+st.dir)
	}

	dir := t.TempDir()
	st = &stage{dir: dir}
	_, _, n, err := st.writeTemp("x.csv", io.MultiReader(strings.NewReader("partial"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrLocalWrite) {
		t.Errorf("failing source: %v; want io.ErrUnexpectedEOF, not ErrLocalWrite", err)
	}
	if n != int64(len("partial")) {
		t.Errorf("copied %d bytes before the failure, want %d", n, len("partial"))
	}
	if files := dirFiles(t, dir); len(files) != 0 {
		t.Errorf("left %v", files)
	}
}

// TestDiskFullIsLocal writes to /dev/full, where every write fails with ENOSPC as on a full disk: the
// failure is a local fault, for raw and for gzipped idx data alike (not "corrupt gzip data").
func TestDiskFullIsLocal(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	raw := bytes.Repeat([]byte("idx data "), 1000)
	for _, tc := range []struct {
		name string
		src  []byte
		gz   bool
	}{{"raw", raw, false}, {"gzip", gzipBytes(t, raw), true}} {
		err := copyHashing(faultWriter{full, "/dev/full"}, bytes.NewReader(tc.src), sha256.New(), tc.gz)
		if !errors.Is(err, ErrLocalWrite) || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v; want ErrLocalWrite and ENOSPC", tc.name, err)
			continue
		}
		wantErr(t, err, "local problem writing /dev/full", "no space left on device")
		if strings.Contains(err.Error(), "corrupt") {
			t.Errorf("%s: a full disk is reported as corrupt data: %v", tc.name, err)
		}
	}
}

// TestLocalWrite: nil stays nil, and an error is classified once.
func TestLocalWrite(t *testing.T) {
	if localWrite("/x", nil) != nil {
		t.Error("localWrite of nil is not nil")
	}
	once := localWrite("/x", syscall.EROFS)
	if twice := localWrite("/y", once); twice != once {
		t.Errorf("classified twice: %v", twice)
	}
	if !errors.Is(once, ErrLocalWrite) || !errors.Is(once, syscall.EROFS) || !strings.HasPrefix(once.Error(), "local problem writing /x: read-only file system") {
		t.Errorf("localWrite(/x, EROFS) = %v", once)
	}
}
