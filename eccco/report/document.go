package report

import (
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
)

// Marker starts a line in every text file eccco report writes (a LaTeX comment in the .tex, an HTML
// comment in the .md, the PDF's creator field); a file without it is never overwritten without Replace.
const Marker = reportmark.Marker

// SpanKind is how a run of inline text is set.
type SpanKind int

// The kinds of inline text.
const (
	Plain SpanKind = iota
	Bold
	Italic
	Code
	Link // Text shown, URL the target (an http(s) address, or a file path relative to the source document)
)

// Span is a run of inline text; both renderers escape Text for their format.
type Span struct {
	Kind SpanKind
	Text string
	URL  string
}

// Inline is a paragraph's text: spans in order.
type Inline []Span

// T, B, I and C are plain, bold, italic and code spans.
func T(s string) Span { return Span{Kind: Plain, Text: s} }

// B is a bold span.
func B(s string) Span { return Span{Kind: Bold, Text: s} }

// I is an italic span.
func I(s string) Span { return Span{Kind: Italic, Text: s} }

// C is a code span.
func C(s string) Span { return Span{Kind: Code, Text: s} }

// Text is the inline's text without formatting.
func (in Inline) Text() string {
	var sb strings.Builder
	for _, s := range in {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// Block is one element of a section: *Para, *List, *Table, *Figure, *Math.
type Block interface{ block() }

// Para is a paragraph.
type Para struct{ Text Inline }

// List is a bulleted list.
type List struct{ Items []Inline }

// Math is a displayed equation in LaTeX math syntax (the Markdown version uses $$ … $$, as the code
// host renders it), with a label for the LaTeX cross-reference.
type Math struct {
	TeX   string
	Label string
}

// Figure is an image from the figures directory, copied beside the document as figures/NAME.EXT.
type Figure struct {
	Name string // the figure's file stem (figures.Spec.Name)
	File string // path relative to the document's directory (figures/NAME.png)
	// MarkdownFile is the file the Markdown version shows instead of File (a PNG beside File's vector
	// PDF); "" for File.
	MarkdownFile string
	Label        string // the paper's \label, e.g. fig:poc ("" for figures beyond the paper)
	Caption      Inline
	Width        float64 // fraction of the text width, where PrintWidth is 0
	// PrintWidth is the width in points the figure was drawn for (its PDF's MediaBox): the LaTeX version
	// prints it at that size, so that its text has the size it was drawn with, shrunk only to fit the text
	// width. 0: Width decides.
	PrintWidth float64
}

// Column is a table column: its heading and LaTeX alignment ("l", "r", "c", or "p{WIDTH}" for wrapped
// text).
type Column struct {
	Head  string
	Align string
}

// Cell is a table cell. Marked cells lie outside the published mean ± max(3 sd, 3·h), h half the cell's last printed decimal (a dagger and
// colour); Sub rows are the published line under ours (grey).
type Cell struct {
	Text   string
	Bold   bool
	Stars  int
	Marked bool
	// Paper sets a published number in a column beside ours (grey).
	Paper bool
}

// Row is a table row; Rule puts a horizontal rule above it; Sub sets it as a secondary (published) line.
type Row struct {
	Cells []Cell
	Rule  bool
	Sub   bool
}

// Table is a table with a caption; Long tables may break across pages.
type Table struct {
	Caption Inline
	Label   string
	Columns []Column
	Rows    []Row
	Long    bool
	// Size is the LaTeX font size command for the body ("" for \small).
	Size string
}

func (*Para) block()   {}
func (*List) block()   {}
func (*Math) block()   {}
func (*Figure) block() {}
func (*Table) block()  {}

// Section is a numbered section (Level 1) or subsection (Level 2) with its blocks; Appendix sections
// are lettered after the main text.
type Section struct {
	Title    string
	Label    string
	Level    int
	Appendix bool
	Blocks   []Block
}

// Document is the report: a title page, sections and an appendix, rendered to LaTeX (LaTeX) and
// Markdown (Markdown) from the same blocks, so both carry the same numbers.
type Document struct {
	Title    string
	Subtitle string
	// Banner labels a document that does not follow the paper's protocol (the quick profile): printed on
	// the title page and in the running header. "" for the full protocol.
	Banner   string
	Header   string // running header when there is no banner
	Abstract Inline
	Sections []*Section
	// Figures lists the figure files the document uses: their source paths by Figure.File.
	Figures map[string]string
	// Drawn holds the figure files the report draws itself (the comparison's, from its inputs): their
	// bytes by path relative to the LaTeX source's directory (Figure.File and Figure.MarkdownFile).
	Drawn map[string][]byte
	// Findings is the claims' findings as written to FindingsFile beside the LaTeX source (nil: none).
	Findings []byte
	// ContentKey is the report's content key (reportmark.Key; set by Build): the same for every build of
	// the same results, prose and figures, whatever commit, machine or run built it. The LaTeX source
	// carries it in its second line and the PDF in its keywords; "" writes neither.
	ContentKey string
}

func (d *Document) add(s *Section) *Section {
	d.Sections = append(d.Sections, s)
	return s
}

func (s *Section) add(b ...Block) { s.Blocks = append(s.Blocks, b...) }

func (s *Section) para(spans ...Span) { s.add(&Para{Text: spans}) }
