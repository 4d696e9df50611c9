package report

import (
	"fmt"
	"path/filepath"
	"strings"
)

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`)

// mdLinks says where the Markdown file lies, so that links to local files and figures resolve from it.
type mdLinks struct {
	mdDir  string // absolute directory of the .md file
	texDir string // absolute directory of the LaTeX sources (figures are relative to it)
	// num numbers the document's tables and figures in order, as LaTeX does (R1, R2, …).
	num map[Block]int
}

// number is "Table R3. " for the third table (FloatPrefix: as the LaTeX version numbers it); "" for a
// block that is not numbered.
func (l mdLinks) number(kind string, b Block) string {
	if n, ok := l.num[b]; ok {
		return fmt.Sprintf("%s %s%d. ", kind, FloatPrefix, n)
	}
	return ""
}

func (l mdLinks) rel(abs string) string {
	if l.mdDir == "" {
		return filepath.ToSlash(abs)
	}
	r, err := filepath.Rel(l.mdDir, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

func (l mdLinks) inline(in Inline) string {
	var sb strings.Builder
	for _, s := range in {
		switch s.Kind {
		case Bold:
			sb.WriteString("**" + mdEscaper.Replace(s.Text) + "**")
		case Italic:
			sb.WriteString("*" + mdEscaper.Replace(s.Text) + "*")
		case Code:
			fence := "`"
			if strings.Contains(s.Text, "`") {
				fence = "`` "
			}
			sb.WriteString(fence + s.Text + reverse(fence))
		case Link:
			url := s.URL
			if !strings.Contains(url, "://") && filepath.IsAbs(url) {
				url = l.rel(url)
			}
			sb.WriteString("[" + mdEscaper.Replace(s.Text) + "](" + url + ")")
		default:
			sb.WriteString(mdEscaper.Replace(s.Text))
		}
	}
	return sb.String()
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// Markdown renders the document for the code host: mdDir is the directory the .md file will be written
// to and texDir the one of the LaTeX sources (whose figures/ it links), both absolute ("" leaves paths as
// they are). The first line is the Marker comment.
func (d *Document) Markdown(mdDir, texDir string) string {
	l := mdLinks{mdDir: mdDir, texDir: texDir, num: map[Block]int{}}
	tables, figs := 0, 0
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			switch b.(type) {
			case *Table:
				tables++
				l.num[b] = tables
			case *Figure:
				figs++
				l.num[b] = figs
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("<!-- " + Marker + ": do not edit; rerun the command instead. -->\n\n")
	sb.WriteString("# " + mdEscaper.Replace(d.Title) + "\n\n")
	if d.Banner != "" {
		sb.WriteString("> **" + mdEscaper.Replace(d.Banner) + "**\n\n")
	}
	if d.Subtitle != "" {
		sb.WriteString("*" + mdEscaper.Replace(d.Subtitle) + "*\n\n")
	}
	if len(d.Abstract) > 0 {
		sb.WriteString(l.inline(d.Abstract) + "\n\n")
	}
	appendix := false
	for _, s := range d.Sections {
		if s.Appendix && !appendix {
			appendix = true
			sb.WriteString("---\n\n## Appendix\n\n")
		}
		hashes := "##"
		if s.Level > 1 {
			hashes = "###"
		}
		sb.WriteString(hashes + " " + mdEscaper.Replace(s.Title) + "\n\n")
		for _, b := range s.Blocks {
			l.block(&sb, b)
		}
	}
	return sb.String()
}

func (l mdLinks) block(sb *strings.Builder, b Block) {
	switch b := b.(type) {
	case *Para:
		sb.WriteString(l.inline(b.Text) + "\n\n")
	case *List:
		for _, it := range b.Items {
			sb.WriteString("- " + l.inline(it) + "\n")
		}
		sb.WriteString("\n")
	case *Math:
		sb.WriteString("$$\n" + b.TeX + "\n$$\n\n")
	case *Figure:
		path := b.File
		if b.MarkdownFile != "" {
			path = b.MarkdownFile
		}
		if l.texDir != "" {
			path = l.rel(filepath.Join(l.texDir, filepath.FromSlash(path)))
		}
		label := ""
		if b.Label != "" {
			label = "`" + b.Label + "` — "
		}
		fmt.Fprintf(sb, "![%s](%s)\n\n*%s%s%s*\n\n", b.Name, path, l.number("Figure", b), label, strings.TrimSuffix(l.inline(b.Caption), "\n"))
	case *Table:
		sb.WriteString("**" + l.number("Table", b) + l.inline(b.Caption) + "**\n\n|")
		for _, c := range b.Columns {
			sb.WriteString(" " + mdEscaper.Replace(c.Head) + " |")
		}
		sb.WriteString("\n|")
		for _, c := range b.Columns {
			switch c.Align {
			case "r":
				sb.WriteString("---:|")
			case "c":
				sb.WriteString(":---:|")
			default:
				sb.WriteString("---|")
			}
		}
		sb.WriteString("\n")
		for _, r := range b.Rows {
			sb.WriteString("|")
			for _, c := range r.Cells {
				sb.WriteString(" " + mdCell(c, r.Sub) + " |")
			}
			sb.WriteString("\n")
		}
		sb.WriteString("\n")
	}
}

func mdCell(c Cell, sub bool) string {
	if c.Text == "" || c.Text == "–" {
		return c.Text
	}
	t := mdEscaper.Replace(c.Text)
	if c.Bold {
		t = "**" + t + "**"
	}
	t += strings.Repeat(`\*`, c.Stars)
	if c.Marked {
		t += " †"
	}
	if sub || c.Paper {
		t = "*" + t + "*"
	}
	return t
}
