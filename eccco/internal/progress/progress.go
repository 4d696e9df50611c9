// Package progress reports the advance of long work (training epochs, benchmark units) on a writer.
//
// The writer is usually standard error. On a terminal it draws a live bar with rate and ETA (github.com/schollz/progressbar). Elsewhere (CI logs,
// notebooks, redirected output) it prints a plain line at each 10 % step, so logs stay readable.
// ECCCO_PROGRESS=0 silences it; ECCCO_PROGRESS=lines forces plain lines even on a terminal.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
)

// Bar tracks progress towards a known total.
type Bar struct {
	bar      *progressbar.ProgressBar // live bar, nil in line mode
	w        io.Writer                // line mode writer, nil when silent or in bar mode
	desc     string
	unit     string
	total    int
	done     int
	nextLine int
	start    time.Time
}

// New starts a progress report of total steps named unit ("epochs", "units") with the description desc.
func New(w io.Writer, total int, desc, unit string) *Bar {
	b := &Bar{desc: desc, unit: unit, total: total, start: clock.Now()}
	mode := os.Getenv("ECCCO_PROGRESS")
	switch {
	case w == nil || mode == "0" || total <= 0:
	case mode != "lines" && isTerminal(w):
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	default:
		b.w = w
		b.nextLine = max(1, total/10)
	}
	return b
}

// Add advances the bar by n steps.
func (b *Bar) Add(n int) {
	b.done += n
	switch {
	case b.bar != nil:
		_ = b.bar.Add(n)
	case b.w != nil && (b.done >= b.nextLine || b.done == b.total):
		elapsed := clock.Since(b.start)
		eta := time.Duration(float64(elapsed) / float64(b.done) * float64(b.total-b.done))
		fmt.Fprintf(b.w, "%s: %d/%d %s (%s elapsed, ETA %s)\n", b.desc, b.done, b.total, b.unit,
			elapsed.Round(100*time.Millisecond), eta.Round(time.Second))
		for b.nextLine <= b.done {
			b.nextLine += max(1, b.total/10)
		}
	}
}

// Describe changes the description (e.g. to show the current loss).
func (b *Bar) Describe(desc string) {
	if b.bar != nil {
		b.bar.Describe(desc)
	}
}

// Finish completes the bar.
func (b *Bar) Finish() {
	if b.bar != nil {
		_ = b.bar.Finish()
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
