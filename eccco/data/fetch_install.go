package data

// Atomic, verified installation: every file Fetch installs is written to a temporary file inside its
// destination directory, verified (sha256 and size, or a parse), and only then renamed into place.
// Failures to create, write or rename these files are local faults (localWrite, ErrLocalWrite); failures
// to read the source keep their own errors, so a dropped connection is not mistaken for a full disk.

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix starts the names of the temporary files Fetch creates in the destination directory.
const tempPrefix = ".eccco-partial-"

// stage collects verified temporary files and renames them into place together.
type stage struct {
	dir   string
	items []stagedFile
}

type stagedFile struct {
	tmp, final string
	// replaces lists other paths that the final file makes obsolete (the .gz or raw twin of an idx file).
	replaces []string
}

// create opens a new temporary file inside the stage's directory.
func (s *stage) create(base string) (*os.File, error) {
	f, err := os.CreateTemp(s.dir, tempPrefix+base+"-*")
	if err != nil {
		return nil, localWrite(s.dir, err)
	}
	return f, nil
}

// add records a closed, verified temporary file.
func (s *stage) add(tmp, final string, replaces ...string) {
	s.items = append(s.items, stagedFile{tmp: tmp, final: final, replaces: replaces})
}

// commit renames every staged file into place.
func (s *stage) commit() error {
	for i, it := range s.items {
		if err := os.Chmod(it.tmp, 0o644); err != nil {
			return localWrite(it.tmp, err)
		}
		if err := os.Rename(it.tmp, it.final); err != nil {
			return fmt.Errorf("installing %s: %w", it.final, localWrite(it.final, err))
		}
		s.items[i].tmp = ""
		for _, r := range it.replaces {
			if r != it.final {
				_ = os.Remove(r)
			}
		}
	}
	s.items = nil
	return nil
}

// abort removes the temporary files not yet committed.
func (s *stage) abort() {
	for _, it := range s.items {
		if it.tmp != "" {
			_ = os.Remove(it.tmp)
		}
	}
	s.items = nil
}

// writeTemp copies r into a new temporary file of the stage, returning its path and the sha256 of the
// bytes written. On error the temporary file is removed; errors writing the file are local faults, errors
// reading r are returned as they are.
func (s *stage) writeTemp(base string, r io.Reader) (tmp string, sum string, n int64, err error) {
	out, err := s.create(base)
	if err != nil {
		return "", "", 0, err
	}
	h := sha256.New()
	n, err = io.Copy(io.MultiWriter(faultWriter{out, out.Name()}, h), r)
	if cerr := out.Close(); err == nil {
		err = localWrite(out.Name(), cerr)
	}
	if err != nil {
		os.Remove(out.Name())
		return "", "", n, err
	}
	return out.Name(), hex.EncodeToString(h.Sum(nil)), n, nil
}

func fileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// uncompressedSHA256 hashes the file's content, decompressed when it is gzipped.
func uncompressedSHA256(path string) (string, error) {
	r, gz, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return "", err
	}
	defer closeFn()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		if gz {
			return "", fmt.Errorf("corrupt gzip data: %w", err)
		}
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// idxStager stages the four idx files of a vision set, verifying each one's uncompressed sha256.
type idxStager struct {
	f    *fetcher
	st   *stage
	done map[string]bool
}

func (f *fetcher) newIDXStager() *idxStager {
	return &idxStager{f: f, st: &stage{dir: f.destDir()}, done: map[string]bool{}}
}

// add copies one idx file (raw or gzip, detected from its first bytes) from r into a temporary file and
// verifies the sha256 of its uncompressed content. Files are kept as they come (compressed or not).
func (x *idxStager) add(base string, r io.Reader, from string) error {
	want, ok := idxSHA256[x.f.spec.info.Name][base]
	if !ok {
		return fmt.Errorf("internal error: no checksum for %s", base)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	head, _ := br.Peek(2)
	gz := isGzip(head)
	out, err := x.st.create(base)
	if err != nil {
		return err
	}
	tmp := out.Name()
	h := sha256.New()
	err = copyHashing(faultWriter{out, tmp}, br, h, gz)
	if cerr := out.Close(); err == nil {
		err = localWrite(tmp, cerr)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("copying %s: %w", from, err)
	}
	final := filepath.Join(x.st.dir, base)
	if gz {
		final += ".gz"
	}
	// Record the file before checking it, so that abort removes it on a mismatch.
	x.st.add(tmp, final, filepath.Join(x.st.dir, base), filepath.Join(x.st.dir, base+".gz"))
	if sum := hex.EncodeToString(h.Sum(nil)); sum != want {
		return markf(ErrChecksum, "checksum mismatch for %s: sha256 of the uncompressed content is %s, want %s", from, sum, want)
	}
	x.done[base] = true
	return nil
}

// copyHashing copies src to dst and feeds h the uncompressed bytes (src is gzip when gz). Local faults
// writing dst are returned as they are, not as corrupt data.
func copyHashing(dst io.Writer, src io.Reader, h hash.Hash, gz bool) error {
	if !gz {
		_, err := io.Copy(io.MultiWriter(dst, h), src)
		return err
	}
	corrupt := func(err error) error {
		if errors.Is(err, ErrLocalWrite) {
			return err
		}
		return fmt.Errorf("corrupt gzip data: %w", err)
	}
	tee := io.TeeReader(src, dst)
	zr, err := gzip.NewReader(tee)
	if err != nil {
		return corrupt(err)
	}
	if _, err := io.Copy(h, zr); err != nil {
		return corrupt(err)
	}
	// Copy whatever follows the gzip stream (normally nothing).
	_, err = io.Copy(dst, src)
	return err
}

// commit installs the staged files if all four are there.
func (x *idxStager) commit() error {
	var missing []string
	for _, b := range idxBases {
		if !x.done[b] {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing %s", strings.Join(missing, ", "))
	}
	if err := x.st.commit(); err != nil {
		return err
	}
	x.f.logf("%s: installed and verified the four idx files in %s", x.f.spec.info.Name, x.st.dir)
	return nil
}
