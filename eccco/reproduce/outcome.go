package reproduce

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// Status is how a stage ended: one of OK, Skipped and Failed. What a stage left out, or why it was
// skipped or failed, is its note.
type Status string

const (
	// OK: the stage made its outputs (a note may say which data sets it left out: not available here).
	OK Status = "ok"
	// Skipped: the stage found its outputs up to date, or could not run here (no JupyterLab; the PDF
	// without TeX) and said how to get what it lacks.
	Skipped Status = "skipped"
	// Failed: the stage's work failed, or a signal interrupted it.
	Failed Status = "failed"
)

// Notes of Skipped and Failed stages that the bookkeeping itself reads.
const (
	NoteUpToDate    = "up to date"
	NoteInterrupted = "interrupted"
)

// Notes of a report stage without TeX: the sources written, and an earlier PDF kept where it was compiled
// from the same content (reportmark.SameContent), else removed.
const (
	NoteNoTeX   = "no TeX: sources only"
	NoteKeptPDF = "no TeX: sources only; the earlier PDF of the same content kept"
)

// Outcome is a stage's status and its note ("" for none).
type Outcome struct {
	Status Status
	Note   string
}

// String is the outcome as stages.tsv writes it: the status, then the note in parentheses.
func (o Outcome) String() string {
	if o.Note == "" {
		return string(o.Status)
	}
	return string(o.Status) + " (" + o.Note + ")"
}

// ParseOutcome reads an outcome as stages.tsv writes it, and the spellings of the shell reproduce.sh
// before it ("SKIP (no JupyterLab)", "interrupted", "failed (exit 1)").
func ParseOutcome(s string) (Outcome, error) {
	head, note, hasNote := strings.Cut(s, " (")
	if hasNote {
		if !strings.HasSuffix(note, ")") {
			return Outcome{}, fmt.Errorf("status %q: an unclosed note", s)
		}
		note = strings.TrimSuffix(note, ")")
	}
	switch head {
	case string(OK):
		return Outcome{OK, note}, nil
	case string(Skipped), "SKIP":
		return Outcome{Skipped, note}, nil
	case string(Failed):
		return Outcome{Failed, note}, nil
	case "interrupted":
		if !hasNote {
			return Outcome{Failed, NoteInterrupted}, nil
		}
	}
	return Outcome{}, fmt.Errorf("status %q: want ok, skipped or failed, with a note in parentheses", s)
}

// StageResult is one stage of a run as the summary records it.
type StageResult struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Note   string `json:"note,omitempty"`
	// WallSeconds and CPUSeconds are summed over every invocation of an unfinished run (a run
	// interrupted and resumed), to one decimal; CPUSeconds is user + system time of the stage's work
	// (this process's and the tools it ran).
	WallSeconds float64  `json:"wall_seconds"`
	CPUSeconds  float64  `json:"cpu_seconds"`
	Outputs     []string `json:"outputs"`
}

// Outcome is the stage's status and note.
func (r StageResult) Outcome() Outcome { return Outcome{r.Status, r.Note} }

// Summary is OUT/summary.json: what reads a run's outcome (scripts/container-check.sh, CI, a user's
// script) reads it here.
type Summary struct {
	Profile string `json:"profile"`
	Mode    string `json:"mode"`
	// Finished is false while the run goes on and after it was interrupted or a stage failed.
	Finished bool `json:"finished"`
	// Status is Failed when a stage failed (or the run is unfinished), else OK: a run whose stages each
	// ended ok or skipped. Which were skipped, and why, is in Stages.
	Status Status        `json:"status"`
	Stages []StageResult `json:"stages"`
	// Report is the PDF ("" where none was built) and the folder of the report's sources. PDFKept: the
	// PDF was not built by this run (no TeX) but compiled earlier from the same content as its sources.
	PDF       string `json:"pdf"`
	PDFKept   bool   `json:"pdf_kept,omitempty"`
	ReportDir string `json:"report_dir"`
}

// SummaryFile and StagesFile are the names, in the run's output folder, of the summary and of the
// stage timings (tab-separated stage, wall seconds, status, CPU seconds) that the report's provenance
// appendix reads (eccco report --stages).
const (
	SummaryFile = "summary.json"
	StagesFile  = "stages.tsv"
)

// ReadSummary reads a run's summary.json.
func ReadSummary(path string) (*Summary, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Summary
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, st := range s.Stages {
		switch st.Status {
		case OK, Skipped, Failed:
		default:
			return nil, fmt.Errorf("%s: stage %s: status %q is not ok, skipped or failed", path, st.Name, st.Status)
		}
	}
	return &s, nil
}

func writeSummary(path string, s *Summary) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(raw, '\n'), 0o644)
}

// writeStages writes stages.tsv in the order of order.
func writeStages(path string, stages []StageResult) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "stage\tseconds\tstatus\tcpu_seconds\n"); err != nil {
			return err
		}
		for _, s := range stages {
			if _, err := fmt.Fprintf(w, "%s\t%.1f\t%s\t%.1f\n", s.Name, s.WallSeconds, s.Outcome(), s.CPUSeconds); err != nil {
				return err
			}
		}
		return nil
	})
}

// StageLine is one line of a stages.tsv: the stage's result, and whether the line recorded its CPU time
// (the shell reproduce.sh before it began CPU accounting wrote three columns).
type StageLine struct {
	StageResult
	HasCPU bool
}

// ReadStagesTSV reads a stages.tsv, of this package or of the shell reproduce.sh before it: a header
// line starting with "stage", then per line the stage, its wall seconds, its outcome (ParseOutcome) and,
// where recorded, its CPU seconds, tab-separated. It is the one reader of the file (eccco report reads
// its --stages through it).
func ReadStagesTSV(path string) ([]StageLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []StageLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || (n == 1 && strings.HasPrefix(line, "stage\t")) {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 && len(fields) != 4 {
			return nil, fmt.Errorf("%s, line %d: want stage<TAB>seconds<TAB>status<TAB>cpu_seconds, got %q", path, n, line)
		}
		r := StageLine{StageResult: StageResult{Name: fields[0]}}
		o, err := ParseOutcome(fields[2])
		if err != nil {
			return nil, fmt.Errorf("%s, line %d: %w", path, n, err)
		}
		r.Status, r.Note = o.Status, o.Note
		if r.WallSeconds, err = strconv.ParseFloat(fields[1], 64); err != nil || !(r.WallSeconds >= 0) {
			return nil, fmt.Errorf("%s, line %d: bad seconds %q", path, n, fields[1])
		}
		if len(fields) == 4 {
			if r.CPUSeconds, err = strconv.ParseFloat(fields[3], 64); err != nil || !(r.CPUSeconds >= 0) {
				return nil, fmt.Errorf("%s, line %d: bad CPU seconds %q", path, n, fields[3])
			}
			r.HasCPU = true
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// readPrior reads the stages recorded by the earlier invocations of an unfinished run: from its
// summary.json, or from the stages.tsv of a run the shell reproduce.sh began.
func readPrior(out string) (map[string]StageResult, error) {
	var stages []StageResult
	if s, err := ReadSummary(filepath.Join(out, SummaryFile)); err == nil {
		stages = s.Stages
	} else if !os.IsNotExist(err) {
		return nil, err
	} else {
		lines, err := ReadStagesTSV(filepath.Join(out, StagesFile))
		if os.IsNotExist(err) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		for _, l := range lines {
			stages = append(stages, l.StageResult)
		}
	}
	prior := map[string]StageResult{}
	for _, s := range stages {
		prior[s.Name] = s
	}
	return prior, nil
}

// tenths rounds seconds to one decimal, as stages.tsv writes them.
func tenths(s float64) float64 { return math.Round(s*10) / 10 }
