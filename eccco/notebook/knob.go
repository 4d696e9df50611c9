package notebook

import (
	"fmt"
	"html"
	"os"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/widgets"
)

// KnobFrontEndWait is how long Knob waits for JupyterLab to answer the slider before it concludes that no
// front end runs the cell (a headless run: nbconvert executes cells without running their JavaScript).
const KnobFrontEndWait = 5 * time.Second

// KnobIdle is how long Knob keeps listening after the last move of its slider.
const KnobIdle = 3 * time.Minute

// HeadlessEnv, when "1", tells Knob that no front end runs the cells (the headless notebook test sets it),
// so that it shows its starting value at once instead of waiting KnobFrontEndWait.
const HeadlessEnv = "ECCCO_NOTEBOOKS_HEADLESS"

// Knob shows a slider for an integer setting, from min to max, starting at value, and under it the Markdown
// that show(v) returns for the slider's value v, recomputed each time the slider moves. It returns when
// the slider has been left alone for KnobIdle, leaving the last result in the cell's output. Without a
// front end (a headless run) it shows show(value) once, with a line saying that the slider needs
// JupyterLab. label names the setting; show should take at most a few seconds.
func Knob(label string, min, max, value int, show func(v int) string) {
	out := "eccco-knob-" + gonbui.UniqueId()
	render := func(v int) {
		gonbui.UpdateMarkdown(out, fmt.Sprintf("**%s = %d**\n\n%s", label, v, show(v)))
	}
	if !gonbui.IsNotebook {
		return
	}
	headless := func() {
		gonbui.DisplayMarkdown(fmt.Sprintf("*(%s is a slider when this notebook runs in JupyterLab; run headless, it shows %d.)*", label, value))
		render(value)
	}
	if os.Getenv(HeadlessEnv) == "1" {
		headless()
		return
	}
	box := "eccco-knob-box-" + gonbui.UniqueId()
	boxHTML := fmt.Sprintf(`<div id="%s"><span>%s: </span></div>`, box, html.EscapeString(label))
	boxDisplay := "eccco-knob-display-" + gonbui.UniqueId()
	gonbui.UpdateHtml(boxDisplay, boxHTML)

	ready := make(chan *widgets.SliderBuilder, 1)
	go func() { ready <- widgets.Slider(min, max, value).AppendTo(box).Done() }() // Done waits for the front end
	var slider *widgets.SliderBuilder
	select {
	case slider = <-ready:
	case <-time.After(KnobFrontEndWait):
		gonbui.UpdateHtml(boxDisplay, "") // no front end: no dead slider in the saved output
		headless()
		return
	}
	render(value)
	moves := slider.Listen().LatestOnly()
	defer moves.Close()
	for {
		select {
		case v := <-moves.C:
			render(v)
		case <-time.After(KnobIdle):
			gonbui.UpdateHtml(boxDisplay, "")
			gonbui.DisplayMarkdown(fmt.Sprintf("*(the slider closed after %v without a move; run the cell again to move it)*", KnobIdle))
			return
		}
	}
}
