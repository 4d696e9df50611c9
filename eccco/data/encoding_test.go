package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

const twoColumnSchema = `{"target": "y", "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "numeric"}]}`

// TestParseSchemaBOM: a schema saved with a UTF-8 byte order mark (as some Windows editors write it)
// reads as without one, like a CSV with one.
func TestParseSchemaBOM(t *testing.T) {
	s, err := ParseSchema([]byte("\ufeff" + twoColumnSchema))
	if err != nil {
		t.Fatal(err)
	}
	if s.Target != "y" || len(s.Features) != 2 {
		t.Errorf("schema %+v", s)
	}
}

// TestReadTableCompressedOrUTF16: a gzip-compressed or UTF-16 CSV is refused saying what it is, not with a
// quoting error.
func TestReadTableCompressedOrUTF16(t *testing.T) {
	s, err := ParseSchema([]byte(twoColumnSchema))
	if err != nil {
		t.Fatal(err)
	}
	text := "a,b,y\n1,2,no\n3,4,yes\n\"5\",6,no\n"
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(text))
	w.Close()
	u16 := func(bigEndian bool) []byte {
		var b []byte
		for _, r := range utf16.Encode([]rune("\ufeff" + text)) {
			if bigEndian {
				b = append(b, byte(r>>8), byte(r))
			} else {
				b = append(b, byte(r), byte(r>>8))
			}
		}
		return b
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, want string
		raw        []byte
	}{{"gz.csv", "gzip", gz.Bytes()}, {"le.csv", "UTF-16", u16(false)}, {"be.csv", "UTF-16", u16(true)}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTable(path, s); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %s", c.name, err, c.want)
		}
		if _, _, err := ReadRows(path, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ReadRows err = %v, want one saying %s", c.name, err, c.want)
		}
	}
}
