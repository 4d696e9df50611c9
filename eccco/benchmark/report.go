package benchmark

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// DefaultPublished is the paper's numbers as shipped with this repository: paper/published-results.csv
// at the root of the checkout that holds the working directory (else relative to it).
func DefaultPublished() string {
	if wd, err := os.Getwd(); err == nil {
		if root, ok := data.ModuleRoot(wd); ok {
			return filepath.Join(root, "paper", "published-results.csv")
		}
	}
	return filepath.Join("paper", "published-results.csv")
}

// Report is what WriteReport wrote.
type Report struct {
	Cells []Cell
	// Comparison is nil when the published numbers were not found at Published (the default path).
	Comparison *Comparison
	Published  string
}

// WriteReport aggregates result rows into the paper's tables (LaTeX, Markdown, CSV) and its parameter
// tables under dir, and compares them with the published numbers in comparison.md. published names
// their CSV; "" means DefaultPublished(), which may be missing (Report.Comparison is then nil). An explicit
// file that cannot be read is an error: the comparison is never skipped silently.
func WriteReport(dir string, rows []Row, published string) (*Report, error) {
	rep := &Report{Cells: Aggregate(rows), Published: published}
	if err := WriteTables(dir, rep.Cells); err != nil {
		return nil, err
	}
	if err := WriteParameterTables(dir); err != nil {
		return nil, err
	}
	explicit := published != ""
	if !explicit {
		rep.Published = DefaultPublished()
	}
	pub, err := ReadPublished(rep.Published)
	if err != nil {
		if explicit || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading the published numbers: %w", err)
		}
		return rep, nil
	}
	cmp := Compare(rep.Cells, pub)
	if err := atomicfile.WriteFile(filepath.Join(dir, "comparison.md"), []byte(cmp.Markdown()), 0o644); err != nil {
		return nil, fmt.Errorf("writing the comparison: %w", err)
	}
	rep.Comparison = &cmp
	return rep, nil
}
