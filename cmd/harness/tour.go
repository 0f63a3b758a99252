package main

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

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
//go:embed tour/*.txtar
var tourFS embed.FS

const tourWorkspace = "tour/workspace.txtar"

type tourCmd struct {
	Stage int `arg:"" optional:"" placeholder:"N" help:"The stage to run; without it, the list of stages."`
}

// stage is one stage of the tour.
type stage struct {
	title  string
	args   []string // flags of the chat, besides --show-wire, --fake and -w
	intro  string
	notice string
	input  string
	script string
	want   []string
	files  []txtar.File // added to the workspace, their names without ws/
	mcp    string       // the name of the stage's MCP server, or ""
	// then, input2 and script2 are the second run's, when then is set.
	then    []string
	input2  string
	script2 string
}

// Run lists the stages, or runs one.
func (c *tourCmd) Run(ctx context.Context, std stdio) error {
	stages, base, err := loadTour()
	if err != nil {
		return err
	}
	if c.Stage == 0 {
		fmt.Fprint(std.out, "A tour of how an agent harness is built, one layer a stage. Each stage runs\n"+
			"offline: a scripted model plays the model, and every message it is sent and\n"+
			"sends back is shown. Run a stage with: harness tour N\n\n")
		for i, s := range stages {
			fmt.Fprintf(std.out, "%4d  %s\n", i+1, s.title)
		}
		return nil
	}
	if c.Stage < 1 || c.Stage > len(stages) {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("there is no stage %d; the stages are 1 to %d (harness tour lists them)", c.Stage, len(stages))}
	}
	return runStage(ctx, std, c.Stage, len(stages), stages[c.Stage-1], base)
}

// loadTour reads the stages in order, and the workspace's files.
func loadTour() ([]stage, []txtar.File, error) {
	data, err := tourFS.ReadFile(tourWorkspace)
	if err != nil {
		return nil, nil, err
	}
	base := txtar.Parse(data).Files
	names, err := fs.Glob(tourFS, "tour/*.txtar")
	if err != nil {
		return nil, nil, err
	}
	var stages []stage
	for _, name := range names {
		if name == tourWorkspace {
			continue
		}
		data, err := tourFS.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		s, err := parseStage(txtar.Parse(data))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		stages = append(stages, s)
	}
	return stages, base, nil
}

func parseStage(a *txtar.Archive) (stage, error) {
	var s stage
	for line := range strings.Lines(string(a.Comment)) {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch key {
		case "title":
			s.title = strings.TrimSpace(value)
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
			s.want = strings.Split(strings.TrimSpace(text), "\n")
		case strings.HasPrefix(f.Name, "ws/"):
			s.files = append(s.files, txtar.File{Name: strings.TrimPrefix(f.Name, "ws/"), Data: f.Data})
		default:
			return s, fmt.Errorf("unknown file %s", f.Name)
		}
	}
	if s.title == "" || s.script == "" || s.input == "" {
		return s, fmt.Errorf("a stage needs a title, an input and a model.fake")
	}
	if (s.then != nil) != (s.script2 != "" && s.input2 != "") {
		return s, fmt.Errorf("a second run needs a then: line, an input2 and a model2.fake")
	}
	return s, nil
}

// tourSettings are the settings every stage runs with unless its args
// say otherwise: the stages show what these do, whatever the user's
// environment (HARNESS_APPROVE, HARNESS_SANDBOX) says.
var tourSettings = [][2]string{{"--approve", "auto"}, {"--sandbox", "none"}}

// runStage runs stage n in a new folder that it removes afterwards: the
// real harness, in its REPL, fed the stage's input. The harness's
// settings and state folders are in that folder too, so that the user's
// own settings (config.toml, SYSTEM.md) play no part, and that the tour
// leaves nothing behind (sessions, copies for /undo). A stage whose
// scripted model was not sent what it expected fails.
func runStage(ctx context.Context, std stdio, n, of int, s stage, base []txtar.File) error {
	dir, err := os.MkdirTemp("", "harness-tour-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	dirs := stageDirs(dir)
	ws := filepath.Join(dir, "ws")
	var names []string
	for _, f := range append(slices.Clone(base), s.files...) {
		p := filepath.Join(ws, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}

	if s.mcp != "" {
		url, stop, err := mcptest.Listen(mcptest.Options{})
		if err != nil {
			return err
		}
		defer stop()
		settings := filepath.Join(dir, "config", "harness", "config.toml")
		if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(settings, fmt.Appendf(nil, "[mcp.%s]\nurl = %q\n", s.mcp, url), 0o644); err != nil {
			return err
		}
	}
	out := std.out
	fmt.Fprintf(out, "Stage %d of %d: %s\n\n%s\n", n, of, s.title, s.intro)
	fmt.Fprintf(out, "Running, in %s, whose folder ws holds %s:\n\n", dir, strings.Join(names, ", "))
	args := withSettings(s.args)
	code, err := runOnce(ctx, out, dirs, dir, ws, "model.fake", s.script, args, s.input)
	if err == nil && code == exitOK && s.then != nil {
		fmt.Fprintf(out, "\nThen, in the same folder:\n\n")
		code, err = runOnce(ctx, out, dirs, dir, ws, "model2.fake", s.script2, append(slices.Clone(args), s.then...), s.input2)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nWhat to notice\n\n%s", s.notice)
	if n < of {
		fmt.Fprintf(out, "\nNext: harness tour %d\n", n+1)
	}
	if code != exitOK {
		return &exitCodeError{code: code, err: fmt.Errorf("stage %d ended with exit code %d", n, code)}
	}
	return nil
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
	for _, s := range tourSettings {
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
func runOnce(ctx context.Context, out io.Writer, dirs xdg.Dirs, dir, ws, name, script string, args []string, input string) (int, error) {
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
	return runIn(ctx, dirs, args, strings.NewReader(input), out, out), nil
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

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`&|;<>()*?[]{}~!#") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
