// Package tour is the harness's tour: stages that each run the real
// harness offline, with a scripted model, on a small workspace, and say
// what to notice in what it shows. Each stage is one txtar archive in
// stages/.
package tour

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
	"mvdan.cc/sh/v3/syntax"

	"harness/mcp/mcptest"
	"harness/xdg"
)

// The tour's stages, one txtar archive each, and the workspace they all
// start from. A stage's comment holds "title:" and "args:" lines, and a
// "then:" line for a stage that runs the harness a second time, with
// these flags added; its files are intro and notice (shown before and
// after the runs), input (the lines typed into the REPL), model.fake (the
// scripted model), input2 and model2.fake (for the second run), want (one
// regular expression a line that the output must match, for the tests)
// and ws/... (files added to the workspace).
//
//go:embed stages/*.txtar
var stagesFS embed.FS

const workspace = "stages/workspace.txtar"

// Stage is one stage of the tour.
type Stage struct {
	Title  string
	args   []string // flags of the chat, besides --show-wire, --fake and -w
	intro  string
	notice string
	input  string
	script string
	Want   []string     // what its output must show, for the tests
	files  []txtar.File // added to the workspace, their names without ws/
	mcp    string       // the name of the stage's MCP server, or ""
	// then, input2 and script2 are the second run's, when then is set.
	then    []string
	input2  string
	script2 string
}

// ErrNoStage is the error of Run for a stage the tour does not have.
var ErrNoStage = errors.New("there is no stage")

// Tour is the stages, in order, and the workspace they start from.
type Tour struct {
	Stages []Stage
	base   []txtar.File
}

// Harness runs the harness on the command line args, with its settings
// and state in the folders of dirs, and returns its exit code.
type Harness func(ctx context.Context, dirs xdg.Dirs, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// List writes the list of the stages to w.
func (t *Tour) List(w io.Writer) {
	fmt.Fprint(w, "A tour of how an agent harness is built, one layer a stage. Each stage runs\n"+
		"offline: a scripted model plays the model, and every message it is sent and\n"+
		"sends back is shown. Run a stage with: harness tour N\n\n")
	for i, s := range t.Stages {
		fmt.Fprintf(w, "%4d  %s\n", i+1, s.Title)
	}
}

// Load reads the stages in order, and the workspace's files.
func Load() (*Tour, error) {
	data, err := stagesFS.ReadFile(workspace)
	if err != nil {
		return nil, err
	}
	t := &Tour{base: txtar.Parse(data).Files}
	names, err := fs.Glob(stagesFS, "stages/*.txtar")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if name == workspace {
			continue
		}
		data, err := stagesFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, err := ParseStage(txtar.Parse(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		t.Stages = append(t.Stages, s)
	}
	return t, nil
}

// ParseStage reads a stage from its archive (see the files' comment
// above).
func ParseStage(a *txtar.Archive) (Stage, error) {
	var s Stage
	for line := range strings.Lines(string(a.Comment)) {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch key {
		case "title":
			s.Title = strings.TrimSpace(value)
		case "args":
			s.args = strings.Fields(value)
		case "then":
			s.then = strings.Fields(value)
		case "mcp":
			s.mcp = strings.TrimSpace(value)
		}
	}
	for _, f := range a.Files {
		text := string(f.Data)
		switch {
		case f.Name == "intro":
			s.intro = text
		case f.Name == "notice":
			s.notice = text
		case f.Name == "input":
			s.input = text
		case f.Name == "model.fake":
			s.script = text
		case f.Name == "input2":
			s.input2 = text
		case f.Name == "model2.fake":
			s.script2 = text
		case f.Name == "want":
			s.Want = strings.Split(strings.TrimSpace(text), "\n")
		case strings.HasPrefix(f.Name, "ws/"):
			s.files = append(s.files, txtar.File{Name: strings.TrimPrefix(f.Name, "ws/"), Data: f.Data})
		default:
			return s, fmt.Errorf("unknown file %s", f.Name)
		}
	}
	if s.Title == "" || s.script == "" || s.input == "" {
		return s, fmt.Errorf("a stage needs a title, an input and a model.fake")
	}
	if (s.then != nil) != (s.script2 != "" && s.input2 != "") {
		return s, fmt.Errorf("a second run needs a then: line, an input2 and a model2.fake")
	}
	return s, nil
}

// defaults are the settings every stage runs with unless its args
// say otherwise: the stages show what these do, whatever the user's
// environment (HARNESS_APPROVE, HARNESS_SANDBOX) says.
var defaults = [][2]string{{"--approve", "auto"}, {"--sandbox", "none"}}

// Run runs stage n (from 1) in a new folder that it removes afterwards: the
// real harness, in its REPL, fed the stage's input. The harness's
// settings and state folders are in that folder too, so that the user's
// own settings (config.toml, SYSTEM.md) play no part, and that the tour
// leaves nothing behind (sessions, copies for /undo). A stage whose
// scripted model was not sent what it expected fails.
func (t *Tour) Run(ctx context.Context, out io.Writer, n int, harness Harness) (code int, err error) {
	if n < 1 || n > len(t.Stages) {
		return 0, fmt.Errorf("%w %d; the stages are 1 to %d (harness tour lists them)", ErrNoStage, n, len(t.Stages))
	}
	s, of := t.Stages[n-1], len(t.Stages)
	dir, err := os.MkdirTemp("", "harness-tour-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	dirs := stageDirs(dir)
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return 0, err
	}
	var names []string
	for _, f := range append(slices.Clone(t.base), s.files...) {
		p := filepath.Join(ws, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return 0, err
		}
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}

	if s.mcp != "" {
		url, stop, err := mcptest.Listen(mcptest.Options{})
		if err != nil {
			return 0, err
		}
		defer stop()
		file := filepath.Join(dir, "config", "harness", "config.toml")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(file, fmt.Appendf(nil, "[mcp.%s]\nurl = %q\n", s.mcp, url), 0o644); err != nil {
			return 0, err
		}
	}
	fmt.Fprintf(out, "Stage %d of %d: %s\n\n%s\n", n, of, s.Title, s.intro)
	fmt.Fprintf(out, "Running, in %s, whose folder ws holds %s:\n\n", dir, strings.Join(names, ", "))
	args := withSettings(s.args)
	code, err = runOnce(ctx, harness, out, dirs, dir, ws, "model.fake", s.script, args, s.input)
	if err == nil && code == 0 && s.then != nil {
		fmt.Fprintf(out, "\nThen, in the same folder:\n\n")
		code, err = runOnce(ctx, harness, out, dirs, dir, ws, "model2.fake", s.script2, append(slices.Clone(args), s.then...), s.input2)
	}
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "\nWhat to notice\n\n%s", s.notice)
	if n < of {
		fmt.Fprintf(out, "\nNext: harness tour %d\n", n+1)
	}
	return code, nil
}

// stageDirs are the settings and state folders of a stage run in dir.
func stageDirs(dir string) xdg.Dirs {
	return xdg.Dirs{
		Getenv: func(key string) string {
			switch key {
			case "XDG_CONFIG_HOME":
				return filepath.Join(dir, "config")
			case "XDG_STATE_HOME":
				return filepath.Join(dir, "state")
			}
			return os.Getenv(key)
		},
		Home: os.UserHomeDir,
	}
}

// withSettings returns args, after the tour's settings that they do not
// set.
func withSettings(args []string) []string {
	var out []string
	for _, s := range defaults {
		if !slices.ContainsFunc(args, func(a string) bool { return a == s[0] || strings.HasPrefix(a, s[0]+"=") }) {
			out = append(out, s[0], s[1])
		}
	}
	return append(out, args...)
}

// runOnce writes the script named name into dir and runs the harness on
// ws with it and args, in the folders of dirs, input on its standard
// input, its output and messages on out. It returns the harness's exit
// code.
func runOnce(ctx context.Context, harness Harness, out io.Writer, dirs xdg.Dirs, dir, ws, name, script string, args []string, input string) (int, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return 0, err
	}
	args = append([]string{"--show-wire", "--fake", path, "-w", ws}, args...)
	fmt.Fprintf(out, "  harness %s < input\n\nwhere input is what you would type, a line each:\n\n", strings.Join(shownArgs(args, dir), " "))
	for line := range strings.Lines(input) {
		fmt.Fprintf(out, "  %s", line)
	}
	fmt.Fprintf(out, "\nA line starting with => went to the model, one starting with <= came back.\n\n")
	return harness(ctx, dirs, args, strings.NewReader(input), out, out), nil
}

// shownArgs writes args with the stage's folder left out of its paths.
func shownArgs(args []string, dir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if rel, err := filepath.Rel(dir, a); err == nil && filepath.IsAbs(a) {
			a = filepath.ToSlash(rel)
		}
		out[i] = shellQuote(a)
	}
	return out
}

// shellQuote quotes s for a shell when it needs it. An argument cannot
// hold the one byte a shell cannot quote, NUL.
func shellQuote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return strconv.Quote(s)
	}
	return q
}
