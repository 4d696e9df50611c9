package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// helpInvocations are the arguments that print each command's flags (-h), one per flag set a user meets.
func helpInvocations() [][]string {
	var out [][]string
	for _, c := range commands() {
		switch c.name {
		case "data":
			out = append(out, []string{"data", "list", "-h"}, []string{"data", "fetch", "-h"})
		default:
			out = append(out, []string{c.name, "-h"})
		}
	}
	return out
}

// commandFlagSets runs every command's -h and returns the flag set each made, by invocation.
func commandFlagSets(t *testing.T) (map[string]*flag.FlagSet, map[string]string) {
	t.Helper()
	sets, helps := map[string]*flag.FlagSet{}, map[string]string{}
	for _, args := range helpInvocations() {
		key := strings.Join(args[:len(args)-1], " ")
		var made []*flag.FlagSet
		flagSetMade = func(fs *flag.FlagSet) { made = append(made, fs) }
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		flagSetMade = nil
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("eccco %s: err = %v, want flag.ErrHelp", strings.Join(args, " "), err)
		}
		if len(made) != 1 {
			t.Fatalf("eccco %s made %d flag sets, want 1", strings.Join(args, " "), len(made))
		}
		sets[key], helps[key] = made[0], stderr.String()
	}
	return sets, helps
}

// TestFlagRegistrations counts the flags as a user meets them, each command's flag set on its own, and
// keeps the count within the redesign's bound (issue 52: at most 120).
func TestFlagRegistrations(t *testing.T) {
	sets, _ := commandFlagSets(t)
	total := 0
	var lines []string
	for key, fs := range sets {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		total += n
		lines = append(lines, fmt.Sprintf("%-12s %d", key, n))
	}
	sort.Strings(lines)
	t.Logf("flag registrations: %d\n%s", total, strings.Join(lines, "\n"))
	if total > 120 {
		t.Errorf("%d flag registrations, want at most 120", total)
	}
}

// flagLine is a flag's first line in PrintDefaults: "  -name VALUE" (VALUE: the usage's back-quoted word,
// else the type), the usage either after a tab or on the lines below.
var flagLine = regexp.MustCompile(`^  -([^ \t]+)(?: ([^\t]*))?`)

// Every command's -h names each flag's value with one word (issue 52: the flag package reads back-quoted
// words in a usage string as the value's name, so 'eccco report -h' printed
// "-paper-mode eccco bench --mode paper").
func TestHelpValueNames(t *testing.T) {
	_, helps := commandFlagSets(t)
	for key, help := range helps {
		for line := range strings.Lines(help) {
			m := flagLine.FindStringSubmatch(strings.TrimRight(line, "\n"))
			if m != nil && strings.ContainsAny(strings.TrimSpace(m[2]), " ") {
				t.Errorf("eccco %s -h: flag -%s has the value name %q: %q", key, m[1], m[2], line)
			}
		}
	}
}

// explain and explain-onnx are two commands, each --data and --model meaning one thing; the former
// spelling of explain-onnx ('eccco explain --schema') still works, with a notice on stderr naming the new
// command; each one's help names the other.
func TestExplainONNXIsItsOwnCommand(t *testing.T) {
	help := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("eccco %v: err = %v, want flag.ErrHelp", args, err)
		}
		return stderr.String()
	}
	onnx, old, paper := help("explain-onnx", "-h"), help("explain", "--schema", "s.json", "-h"), help("explain", "-h")
	notice, rest, _ := strings.Cut(old, "\n")
	if !strings.Contains(notice, "eccco explain-onnx") || rest != onnx {
		t.Errorf("explain --schema -h: want a one-line notice naming explain-onnx, then explain-onnx's help; got\n%s", old)
	}
	if !strings.Contains(onnx, "eccco explain.") {
		t.Errorf("explain-onnx -h does not name explain:\n%s", onnx)
	}
	if !strings.Contains(paper, "eccco explain-onnx") || strings.Contains(paper, "-schema") {
		t.Errorf("explain -h should name explain-onnx and have no --schema:\n%s", paper)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"help", "explain"}, &stdout, &stderr); err != nil || !strings.Contains(strings.Join(strings.Fields(stdout.String()), " "), "'eccco explain-onnx'") {
		t.Errorf("help explain (err %v) does not name explain-onnx:\n%s", err, stdout.String())
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"help", "explain-onnx"}, &stdout, &stderr); err != nil || !strings.Contains(strings.Join(strings.Fields(stdout.String()), " "), "'eccco explain'") {
		t.Errorf("help explain-onnx (err %v) does not name explain:\n%s", err, stdout.String())
	}
	// explain's --model names a model kind or a saved model's folder, never an ONNX file.
	_, _, err := runCLI(t, "explain", "--data", "moons", "--model", "m.onnx")
	if err == nil || !strings.Contains(err.Error(), "eccco explain-onnx") {
		t.Errorf("explain --model m.onnx: err = %v, want it to point to explain-onnx", err)
	}
}

// Every spelling of authors-models=false refuses authors-models-dir, saying that the two contradict
// (issue 52: =0 and =False silently ignored the folder, =false was refused).
func TestAuthorsModelsSpellings(t *testing.T) {
	for _, off := range []string{"false", "0", "False", "f", "FALSE"} {
		_, _, err := runCLI(t, "perf", "--data", "moons", "--mode", "authors-code", "--set", "authors-models="+off,
			"--set", "authors-models-dir="+t.TempDir(), "--out", "none")
		if !errors.Is(err, experiment.ErrInvalid) || !strings.Contains(err.Error(), "authors-models=false says not to use them") {
			t.Errorf("authors-models=%s with authors-models-dir: err = %v, want ErrInvalid saying the two contradict", off, err)
		}
	}
}
