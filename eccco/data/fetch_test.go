package data

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeTransport answers every HTTP request itself, so that tests never reach the network.
type fakeTransport struct {
	serve func(url string) ([]byte, error)
	urls  []string
}

func (f *fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f.urls = append(f.urls, req.URL.String())
	body, err := f.serve(req.URL.String())
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Status: "200 OK", Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: req, Header: http.Header{}}, nil
}

func failingClient() (*http.Client, *fakeTransport) {
	ft := &fakeTransport{serve: func(url string) ([]byte, error) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "example.invalid", IsNotFound: true}}
	}}
	return &http.Client{Transport: ft}, ft
}

// dirFiles lists the regular files under dir (relative paths), failing the test on temporary files.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if strings.HasPrefix(d.Name(), tempPrefix) {
				t.Errorf("temporary file left behind: %s", p)
			}
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	return files
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error does not mention %q:\n%v", p, err)
		}
	}
}

func zipBytes(t *testing.T, name string, content []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(content)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wantNoAdvice fails when a local fault's error sends the user to another machine or lists sources.
func wantNoAdvice(t *testing.T, err error) {
	t.Helper()
	for _, s := range []string{"internet", "what to do", "sources tried", "--from DIR"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("a local fault's error mentions %q:\n%v", s, err)
		}
	}
	if errors.Is(err, ErrNotAvailable) {
		t.Errorf("a local fault also wraps ErrNotAvailable: %v", err)
	}
}

func TestFetchSyntheticAndUnknown(t *testing.T) {
	var log bytes.Buffer
	if err := Fetch(context.Background(), "moons", FetchOptions{Dir: t.TempDir(), Log: &log}); err != nil {
		t.Error(err)
	}
	if !strings.Contains(log.String(), "nothing to fetch") {
		t.Errorf("log %q", log.String())
	}
	err := Fetch(context.Background(), "cifar", FetchOptions{Dir: t.TempDir()})
	wantErr(t, err, `unknown data set "cifar"`, "moons", "fashion-mnist")
	if !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("errors.Is(%v, ErrUnknownDataset) is false", err)
	}
}

// TestFetchNotAvailable: with no source for the set, the error wraps ErrNotAvailable and nothing else of
// ours, and still says what to do.
func TestFetchNotAvailable(t *testing.T) {
	dest := t.TempDir()
	err := Fetch(context.Background(), "gmsc", FetchOptions{Dir: dest, Offline: true})
	wantErr(t, err, "sources tried", "Kaggle")
	if !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrLocalWrite) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrInvalidOption) {
		t.Errorf("errors.Is: not available %v, local %v, checksum %v, option %v; want only the first",
			errors.Is(err, ErrNotAvailable), errors.Is(err, ErrLocalWrite), errors.Is(err, ErrChecksum), errors.Is(err, ErrInvalidOption))
	}
}

// TestFetchLocalFaultDataDirThroughFile makes the data directory impossible to create without relying on
// permission bits (tests may run as root): its path goes through a regular file, which the kernel
// refuses with ENOTDIR.
func TestFetchLocalFaultDataDirThroughFile(t *testing.T) {
	blocker := writeFile(t, t.TempDir(), "a-regular-file", []byte("keep me"))
	for _, tc := range []struct{ name, dir, path string }{
		{"german-credit", filepath.Join(blocker, "cache"), filepath.Join(blocker, "cache")},
		{"mnist", filepath.Join(blocker, "cache"), filepath.Join(blocker, "cache", "mnist")},
		{"gmsc", blocker, blocker}, // the data directory itself is a regular file
		{"fashion-mnist", blocker, filepath.Join(blocker, "fashion-mnist")},
	} {
		client, ft := failingClient()
		err := Fetch(context.Background(), tc.name, FetchOptions{Dir: tc.dir, From: t.TempDir(), HTTPClient: client})
		if !errors.Is(err, ErrLocalWrite) || !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("%s into %s: %v; want ErrLocalWrite and ENOTDIR", tc.name, tc.dir, err)
			continue
		}
		wantErr(t, err, "local problem writing "+tc.path)
		wantNoAdvice(t, err)
		if len(ft.urls) != 0 {
			t.Errorf("%s: a local fault still downloaded %v", tc.name, ft.urls)
		}
	}
	if b, err := os.ReadFile(blocker); err != nil || string(b) != "keep me" {
		t.Errorf("the regular file in the way was changed: %q, %v", b, err)
	}
}

// TestFetchLocalFaultStopsTheSearch: when installing fails because the final path cannot be written (here
// a directory sits where german_credit.csv goes), Fetch reports the local fault, does not go on to the
// download, and leaves no temporary file.
func TestFetchLocalFaultStopsTheSearch(t *testing.T) {
	from, dest := t.TempDir(), t.TempDir()
	writeFile(t, from, "german.data", []byte(germanHead))
	final := filepath.Join(dest, "german_credit.csv")
	if err := os.Mkdir(final, 0o755); err != nil {
		t.Fatal(err)
	}
	client, ft := failingClient()
	err := Fetch(context.Background(), "german-credit", FetchOptions{Dir: dest, From: from, HTTPClient: client})
	if !errors.Is(err, ErrLocalWrite) {
		t.Fatalf("error %v, want ErrLocalWrite", err)
	}
	var pe *os.LinkError
	if !errors.As(err, &pe) || pe.New != final {
		t.Errorf("error %v does not wrap the rename's *os.LinkError for %s", err, final)
	}
	wantErr(t, err, "local problem writing "+final)
	wantNoAdvice(t, err)
	if len(ft.urls) != 0 {
		t.Errorf("the download was tried after a local fault: %v", ft.urls)
	}
	if files := dirFiles(t, dest); len(files) != 0 {
		t.Errorf("left %v", files)
	}
	if _, err := os.Stat(filepath.Join(dest, "german_credit.csv", "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the directory in the way was written into: %v", err)
	}
}

func TestFetchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Fetch(ctx, "mnist", FetchOptions{Dir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
