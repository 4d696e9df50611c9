package figures

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// Records makes a pass over the catalog resumable: after each figure is written, Mark records under Dir
// (one file per figure, NAME.done, written atomically) the pass's Key and the SHA-256 of each file the
// figure wrote; a pass started again with the same Key skips a figure whose record is Current. Key stands
// for the figures' inputs (reproduce.sh: the eccco binary, the benchmark results, the data sets present
// and the figure flags); a different Key, a missing or edited file, or a missing record redraws the figure.
type Records struct {
	Dir, Key string
}

// recordHeader starts every record; the key follows it on the first line.
const recordHeader = "eccco figure record; key "

func (r Records) path(name string) string { return filepath.Join(r.Dir, name+".done") }

// Current reports whether figure name's record holds r.Key and every file it lists still has the recorded
// checksum. Any error reading them (no record, a file gone) means not current.
func (r Records) Current(name string) bool {
	b, err := os.ReadFile(r.path(name))
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != recordHeader+r.Key {
		return false
	}
	files := 0
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return false
		}
		got, err := fileSHA256(path)
		if err != nil || got != sum {
			return false
		}
		files++
	}
	return sc.Err() == nil && files > 0
}

// Mark records that figure name was written to paths under r.Key (atomically: a record is whole or absent).
func (r Records) Mark(name string, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("figure record %s: no files", name)
	}
	var b strings.Builder
	b.WriteString(recordHeader + r.Key + "\n")
	for _, p := range paths {
		if strings.ContainsAny(p, "\n") {
			return fmt.Errorf("figure record %s: a file name with a line break: %q", name, p)
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return fmt.Errorf("figure record %s: %w", name, err)
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, p)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return fmt.Errorf("figure record %s: %w", name, err)
	}
	if err := atomicfile.WriteFile(r.path(name), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("figure record %s: %w", name, err)
	}
	return nil
}

// ErrNoRecordKey is returned for records without a key: a pass must say what its figures were made from.
var ErrNoRecordKey = errors.New("figure records need a key (the figures' inputs)")

// Check returns ErrNoRecordKey when r has a Dir but no Key, or a Key with a line break.
func (r Records) Check() error {
	if r.Dir != "" && (r.Key == "" || strings.ContainsAny(r.Key, "\r\n")) {
		return ErrNoRecordKey
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
