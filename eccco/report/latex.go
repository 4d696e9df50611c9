package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
)

// latexChars maps characters that pdfLaTeX cannot take verbatim to their LaTeX spelling.
var latexChars = map[rune]string{
	'\\': `\textbackslash{}`, '{': `\{`, '}': `\}`, '$': `\$`, '&': `\&`, '#': `\#`, '%': `\%`,
	'_': `\_`, '^': `\textasciicircum{}`, '~': `\textasciitilde{}`, '<': `\textless{}`, '>': `\textgreater{}`,
	'|': `\textbar{}`,
	'±': `$\pm$`, '−': `$-$`, '×': `$\times$`, '÷': `$\div$`, '·': `$\cdot$`, '≤': `$\le$`, '≥': `$\ge$`,
	'≈': `$\approx$`, '≠': `$\neq$`, '∈': `$\in$`, '→': `$\rightarrow$`, '←': `$\leftarrow$`, '↓': `$\downarrow$`,
	'↑': `$\uparrow$`, '↳': `$\hookrightarrow$`, '∞': `$\infty$`, '√': `$\surd$`, '∑': `$\sum$`, '′': `$'$`,
	'⁺': `$^{+}$`, '⁻': `$^{-}$`, '²': `$^{2}$`, '³': `$^{3}$`, '¹': `$^{1}$`, '†': `$^{\dagger}$`, '‡': `$^{\ddagger}$`,
	'✗': `$\times$`, '✓': `$\checkmark$`, '…': `\ldots{}`, '–': `--`, '—': `---`, '‘': "`", '’': `'`, '“': "``", '”': `''`,
	'α': `$\alpha$`, 'β': `$\beta$`, 'γ': `$\gamma$`, 'δ': `$\delta$`, 'ε': `$\varepsilon$`, 'η': `$\eta$`,
	'θ': `$\theta$`, 'λ': `$\lambda$`, 'μ': `$\mu$`, 'π': `$\pi$`, 'ρ': `$\rho$`, 'σ': `$\sigma$`, 'τ': `$\tau$`,
	'φ': `$\phi$`, 'χ': `$\chi$`, 'ψ': `$\psi$`, 'ω': `$\omega$`, 'Ω': `$\Omega$`, 'Δ': `$\Delta$`, 'Σ': `$\Sigma$`,
	'∇': `$\nabla$`, '∂': `$\partial$`, 'Θ': `$\Theta$`, 'Λ': `$\Lambda$`, 'Φ': `$\Phi$`, 'ŷ': `$\hat{y}$`,
	'ₖ': `$_{k}$`, '₀': `$_{0}$`, '₁': `$_{1}$`, '₂': `$_{2}$`, '₃': `$_{3}$`,
	'\u00a0': `~`, '\u202f': `\,`, '\u2009': `\,`,
}

// combiningCircumflex follows a letter in "q̂" (U+0071 U+0302).
const combiningCircumflex = '\u0302'

// Escape writes s as LaTeX text: the special characters of TeX escaped and the Unicode symbols of the
// results (±, −, λ, ρ, ↓, …) as math. Latin-1 letters pass (pdfLaTeX reads UTF-8); any other character
// becomes "?" so that the document always compiles.
func Escape(s string) string {
	var sb strings.Builder
	lastMath := false // the output ends with a math token's closing $
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		t, ok := latexChars[r]
		if r == ' ' && i+1 < len(rs) && rs[i+1] == '%' {
			t, ok = "~", true // "94 %" never breaks before its percent sign
		}
		if r == '-' && i+1 < len(rs) && rs[i+1] == '-' {
			t, ok = "-{}", true // "--" as typed (a command-line flag), not TeX's en dash
		}
		if i+1 < len(rs) && rs[i+1] == combiningCircumflex && r < utf8.RuneSelf && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			t, ok = `$\hat{`+string(r)+`}$`, true // q̂: a letter and a combining circumflex
			i++
		}
		switch {
		case ok && len(t) > 2 && t[0] == '$' && t[len(t)-1] == '$':
			if lastMath { // "$a$$b$" would read as display math: join them as "$ab$"
				out := sb.String()
				sb.Reset()
				sb.WriteString(out[:len(out)-1])
				t = t[1:]
			}
			sb.WriteString(t)
			lastMath = true
			continue
		case ok:
			sb.WriteString(t)
		case r < utf8.RuneSelf || (r >= 0xa0 && r <= 0xff):
			sb.WriteRune(r)
		default:
			sb.WriteByte('?')
		}
		lastMath = false
	}
	return sb.String()
}

// escapeCode is Escape for typewriter text: "--" kept apart, breaks allowed after separators.
func escapeCode(s string) string {
	e := Escape(s)
	e = strings.ReplaceAll(e, "--", "-{}-")
	for _, sep := range []string{",", "/", "="} {
		e = strings.ReplaceAll(e, sep, sep+`\allowbreak{}`)
	}
	return e
}

func latexInline(in Inline) string {
	var sb strings.Builder
	for _, s := range in {
		switch s.Kind {
		case Bold:
			sb.WriteString(`\textbf{` + Escape(s.Text) + `}`)
		case Italic:
			sb.WriteString(`\emph{` + Escape(s.Text) + `}`)
		case Code:
			sb.WriteString(`\texttt{` + escapeCode(s.Text) + `}`)
		case Link:
			if strings.HasPrefix(s.URL, "http://") || strings.HasPrefix(s.URL, "https://") {
				sb.WriteString(`\href{` + strings.NewReplacer(`%`, `\%`, `#`, `\#`).Replace(s.URL) + `}{` + Escape(s.Text) + `}`)
			} else {
				sb.WriteString(Escape(s.Text))
			}
		default:
			sb.WriteString(Escape(s.Text))
		}
	}
	return sb.String()
}

// FloatPrefix prefixes the numbers of the report's tables and figures (Table R1, Figure R1), so that they
// do not collide with the paper's, which the text cites by their own numbers.
const FloatPrefix = "R"

// TextWidthPt is the LaTeX version's text width in points: A4 (595.28 pt) less two margins of 1.5 cm
// (42.52 pt), wide enough for a figure drawn at the paper's two-column width (plot.TextWidth, 504 pt).
const TextWidthPt = 510.2

const latexPreamble = `\documentclass[10pt,a4paper]{article}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage{mathptmx}
\usepackage[scaled=0.9]{helvet}
\usepackage{courier}
\usepackage{amsmath,amssymb}
\usepackage[margin=1.5cm,headheight=14pt]{geometry}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{array}
\usepackage{xcolor}
\usepackage{caption}
\usepackage{fancyhdr}
\usepackage{microtype}
\usepackage[hidelinks,pdfencoding=auto]{hyperref}
\pdfobjcompresslevel=1 % the document information (its creator field: the marker) stays readable
\hypersetup{pdfcreator={` + Marker + `}}
\definecolor{outside}{rgb}{0.75,0.05,0.05}
\definecolor{paperline}{gray}{0.3}
\newcommand{\outside}[1]{\textcolor{outside}{#1$^{\dagger}$}}
\newcommand{\paperline}[1]{\textcolor{paperline}{#1}}
\captionsetup{font=small,labelfont=bf}
\setlength{\emergencystretch}{3em}
\setlength{\LTcapwidth}{\textwidth}
\renewcommand{\thetable}{` + FloatPrefix + `\arabic{table}}
\renewcommand{\thefigure}{` + FloatPrefix + `\arabic{figure}}
\renewcommand{\arraystretch}{1.05}
`

// LaTeX renders the document as a complete pdfLaTeX source; its first line is the Marker comment.
func (d *Document) LaTeX() string {
	var sb strings.Builder
	sb.WriteString("% " + Marker + ": do not edit; rerun the command instead.\n")
	if d.ContentKey != "" {
		sb.WriteString(reportmark.TeXLine(d.ContentKey) + "\n")
	}
	sb.WriteString(latexPreamble)
	if d.ContentKey != "" {
		sb.WriteString(`\hypersetup{pdfkeywords={` + reportmark.PDFKeywords(d.ContentKey) + `}}` + "\n")
	}
	sb.WriteString(`\hypersetup{pdftitle={` + Escape(d.Title) + `}}` + "\n")
	sb.WriteString("\\pagestyle{fancy}\n\\fancyhf{}\n\\renewcommand{\\headrulewidth}{0.4pt}\n\\fancyfoot[C]{\\thepage}\n")
	if d.Banner != "" {
		sb.WriteString(`\fancyhead[C]{\small\bfseries\textcolor{outside}{` + Escape(d.Banner) + "}}\n")
	} else {
		sb.WriteString(`\fancyhead[C]{\small\itshape ` + Escape(d.Header) + "}\n")
	}
	sb.WriteString("\\fancypagestyle{plain}{\\fancyhf{}\\fancyfoot[C]{\\thepage}")
	if d.Banner != "" {
		sb.WriteString(`\fancyhead[C]{\small\bfseries\textcolor{outside}{` + Escape(d.Banner) + "}}")
	} else {
		sb.WriteString(`\renewcommand{\headrulewidth}{0pt}`)
	}
	sb.WriteString("}\n\\begin{document}\n\n")
	// Title page.
	sb.WriteString("\\begin{titlepage}\n\\centering\n\\vspace*{3cm}\n")
	sb.WriteString(`{\LARGE\bfseries ` + Escape(d.Title) + "\\par}\n\\vspace{1cm}\n")
	if d.Banner != "" {
		sb.WriteString("\\fcolorbox{outside}{white}{\\parbox{0.8\\textwidth}{\\centering\\vspace{0.4em}\\Large\\bfseries\\textcolor{outside}{" +
			Escape(d.Banner) + "}\\vspace{0.4em}}}\n\\vspace{1cm}\n\n")
	}
	if d.Subtitle != "" {
		sb.WriteString(`{\large ` + Escape(d.Subtitle) + "\\par}\n\\vspace{1cm}\n")
	}
	if len(d.Abstract) > 0 {
		sb.WriteString("\\begin{minipage}{0.8\\textwidth}\n\\small " + latexInline(d.Abstract) + "\n\\end{minipage}\n")
	}
	sb.WriteString("\\vfill\n{\\small " + Escape(Marker) + "}\n\\end{titlepage}\n\n\\tableofcontents\n\\clearpage\n\n")
	appendix := false
	for _, s := range d.Sections {
		if s.Appendix && !appendix {
			appendix = true
			sb.WriteString("\\clearpage\n\\appendix\n\n")
		}
		cmd := "section"
		if s.Level > 1 {
			cmd = "subsection"
		}
		sb.WriteString(`\` + cmd + `{` + Escape(s.Title) + `}`)
		if s.Label != "" {
			sb.WriteString(`\label{` + s.Label + `}`)
		}
		sb.WriteString("\n\n")
		for _, b := range s.Blocks {
			writeLaTeXBlock(&sb, b)
		}
	}
	sb.WriteString("\\end{document}\n")
	return sb.String()
}

func writeLaTeXBlock(sb *strings.Builder, b Block) {
	switch b := b.(type) {
	case *Para:
		sb.WriteString(latexInline(b.Text) + "\n\n")
	case *List:
		sb.WriteString("\\begin{itemize}\n")
		for _, it := range b.Items {
			sb.WriteString("\\item " + latexInline(it) + "\n")
		}
		sb.WriteString("\\end{itemize}\n\n")
	case *Math:
		sb.WriteString("\\begin{equation}\n" + b.TeX + "\n")
		if b.Label != "" {
			sb.WriteString(`\label{` + b.Label + "}\n")
		}
		sb.WriteString("\\end{equation}\n\n")
	case *Figure:
		if b.PrintWidth > 0 {
			fmt.Fprintf(sb, "\\begin{figure}[htbp]\n\\centering\n\\includegraphics[width=%.1fpt,height=0.85\\textheight,keepaspectratio]{%s}\n", min(b.PrintWidth, TextWidthPt), b.File)
		} else {
			w := b.Width
			if w <= 0 {
				w = 1
			}
			fmt.Fprintf(sb, "\\begin{figure}[htbp]\n\\centering\n\\includegraphics[width=%.2f\\textwidth,height=%.2f\\textheight,keepaspectratio]{%s}\n", w, min(0.6, w), b.File)
		}
		sb.WriteString(`\caption{` + latexInline(b.Caption) + `}`)
		if b.Label != "" {
			sb.WriteString(`\label{` + b.Label + `}`)
		}
		if b.MarkdownFile != "" && b.MarkdownFile != b.File {
			// Names the Markdown version's file, so that Write knows it as generated.
			sb.WriteString("\n% Markdown version: {" + b.MarkdownFile + "}")
		}
		sb.WriteString("\n\\end{figure}\n\n")
	case *Table:
		writeLaTeXTable(sb, b)
	}
}

func latexCell(c Cell, sub bool) string {
	t := Escape(c.Text)
	if c.Bold {
		t = `\textbf{` + t + `}`
	}
	t += strings.Repeat("*", c.Stars)
	if c.Marked {
		t = `\outside{` + t + `}`
	}
	if (sub || c.Paper) && t != "" {
		t = `\paperline{` + t + `}`
	}
	return t
}

func writeLaTeXTable(sb *strings.Builder, t *Table) {
	size := t.Size
	if size == "" {
		size = `\small`
	}
	var spec strings.Builder
	for _, c := range t.Columns {
		spec.WriteString(c.Align)
	}
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = Escape(c.Head)
	}
	caption := `\caption{` + latexInline(t.Caption) + `}`
	if t.Label != "" {
		caption += `\label{` + t.Label + `}`
	}
	if t.Long {
		sb.WriteString("\\begingroup\n" + size + "\n\\setlength{\\tabcolsep}{4pt}\n\\begin{longtable}{" + spec.String() + "}\n")
		sb.WriteString(caption + "\\\\\n\\toprule\n" + strings.Join(head, " & ") + "\\\\\n\\midrule\n\\endfirsthead\n")
		fmt.Fprintf(sb, "\\multicolumn{%d}{l}{\\emph{(continued)}}\\\\\n\\toprule\n%s\\\\\n\\midrule\n\\endhead\n\\bottomrule\n\\endfoot\n", len(t.Columns), strings.Join(head, " & "))
	} else {
		sb.WriteString("\\begin{table}[htbp]\n\\centering\n" + size + "\n" + caption + "\n\\begin{tabular}{" + spec.String() + "}\n\\toprule\n")
		if strings.Join(head, "") != "" {
			sb.WriteString(strings.Join(head, " & ") + "\\\\\n\\midrule\n")
		}
	}
	for i, r := range t.Rows {
		if r.Rule && i > 0 {
			sb.WriteString("\\midrule\n")
		}
		cells := make([]string, len(r.Cells))
		for j, c := range r.Cells {
			cells[j] = latexCell(c, r.Sub)
		}
		sb.WriteString(strings.Join(cells, " & "))
		if r.Sub || (i+1 < len(t.Rows) && t.Rows[i+1].Sub) {
			// Keep ours and the published line on one page.
			if !r.Sub && t.Long {
				sb.WriteString("\\\\*\n")
				continue
			}
		}
		sb.WriteString("\\\\\n")
	}
	if t.Long {
		sb.WriteString("\\end{longtable}\n\\endgroup\n\n")
	} else {
		sb.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n\n")
	}
}
