package report

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// The report's interpretive prose lives in embedded templates (prose/*.tmpl), executed with the numbers
// they speak of, so that no number in a sentence is typed by hand. A template's output is inline Markdown
// (bold, italic, code); blank lines separate paragraphs, and a paragraph whose lines start with "- " is a
// list.
//
//go:embed prose/*.tmpl
var proseFS embed.FS

var proseTemplates = template.Must(template.New("prose").Funcs(template.FuncMap{
	"share":  share,
	"pct":    pct,
	"join":   joinWords,
	"signed": func(x float64, prec int) string { return signed(x, prec) },
	"plural": plural,
}).ParseFS(proseFS, "prose/*.tmpl"))

// plural is one where n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// prose executes the named template with data and returns its paragraphs and lists as blocks.
func prose(name string, data any) ([]Block, error) {
	var sb strings.Builder
	if err := proseTemplates.ExecuteTemplate(&sb, name, data); err != nil {
		return nil, fmt.Errorf("report: the prose %s: %w", name, err)
	}
	var blocks []Block
	for _, p := range strings.Split(sb.String(), "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, "- ") {
			l := &List{}
			for _, it := range strings.Split(p, "\n- ") {
				l.Items = append(l.Items, mdInline(strings.Join(strings.Fields(strings.TrimPrefix(it, "- ")), " "), ""))
			}
			blocks = append(blocks, l)
			continue
		}
		blocks = append(blocks, &Para{Text: mdInline(strings.Join(strings.Fields(p), " "), "")})
	}
	return blocks, nil
}
