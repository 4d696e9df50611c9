// Package fielddiff lists the fields in which two records differ, one "name a ≠ b" line per field.
package fielddiff

import "fmt"

// List is the differences found so far, in the order the fields were compared.
type List []string

// Value adds "name a ≠ b" (formatted with %v) when a != b. a and b must be comparable.
func (l *List) Value(name string, a, b any) {
	if a != b {
		*l = append(*l, fmt.Sprintf("%s %v ≠ %v", name, a, b))
	}
}

// Text adds `name "a" ≠ "b"` (quoted, so that empty and blank strings show) when a != b.
func (l *List) Text(name, a, b string) {
	if a != b {
		*l = append(*l, fmt.Sprintf("%s %q ≠ %q", name, a, b))
	}
}

// Printed adds "name a ≠ b" when a and b print differently with %v: for values that are not comparable
// (maps, slices) or whose types differ where their printed values should not.
func (l *List) Printed(name string, a, b any) {
	if as, bs := fmt.Sprint(a), fmt.Sprint(b); as != bs {
		*l = append(*l, fmt.Sprintf("%s %s ≠ %s", name, as, bs))
	}
}
