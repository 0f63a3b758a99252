package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"harness/loop"
	"harness/tour"
	"harness/xdg"
)

type cli struct {
	Version versionFlag `help:"Print the version and exit."`

	Chat       chatCmd       `cmd:"" default:"withargs" help:"Work with the model in the workspace: a REPL, or one turn with -p (the default command)."`
	Prompt     promptCmd     `cmd:"" help:"Print the system prompt that would be sent, and exit."`
	Sessions   sessionsCmd   `cmd:"" help:"List the saved conversations of this workspace (--all: of every workspace), to continue with --resume ID."`
	Context    contextCmd    `cmd:"" help:"Show what a saved conversation holds of its context window, by part, as the REPL's /context does (default: this workspace's latest session)."`
	Replay     replayCmd     `cmd:"" help:"Print a run record (--record FILE), or a saved session (by its file, id or name), as a readable transcript."`
	Config     configCmd     `cmd:"" help:"Print the model settings a chat with the same flags would use, and where each came from (flag, environment, settings file or default), the API key redacted."`
	FakeOllama fakeOllamaCmd `cmd:"" name:"fake-ollama" help:"Serve a fake-model script over Ollama's HTTP API, for tests and demos."`
	Tour       tourCmd       `cmd:"" help:"Walk through how a harness is built, one layer a stage, offline: harness tour lists the stages, harness tour N runs one."`
	MCP        mcpCmd        `cmd:"" name:"mcp" help:"Show the MCP servers config.toml declares, whether each starts, and their tools."`
	TinyModel  tinyModelCmd  `cmd:"" name:"tiny-model" help:"Write a tiny model that speaks the tool protocol (a GGUF file and a Modelfile), to try the harness on a real Ollama."`
}

// execute runs the command line args with the folders of the process's
// environment.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return executeIn(ctx, xdg.OS(), args, stdin, stdout, stderr)
}

// executeIn runs the command line args, the harness's settings and state
// in the folders that dirs finds.
func executeIn(ctx context.Context, dirs xdg.Dirs, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var c cli
	exited, code := false, 0
	parser, err := kong.New(&c,
		kong.Name("harness"),
		kong.Description("An agent harness for local models: it gives the model tools through a plain-text protocol and runs them inside a workspace."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { exited, code = true, c }),
		kong.UsageOnError(),
		kong.Help(withHelp(kong.DefaultHelpPrinter)),
		kong.ShortHelp(withHelp(kong.DefaultShortHelpPrinter)),
		kong.FlagNamer(flagName),
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Bind(stdio{in: stdin, out: stdout, err: stderr}, dirs),
		kong.BindTo(tour.Harness(executeIn), (*tour.Harness)(nil)),
	)
	if err != nil {
		fmt.Fprintf(stderr, "harness: %v\n", err)
		return exitError
	}
	kctx, err := parser.Parse(args)
	if exited {
		return code
	}
	if errors.Is(err, errNoPrompt) {
		err = errNoPrompt // the flag's name is in the message already
	}
	if m, ok := misplacedFlag(parser.Model.Node, args); ok && err != nil {
		err = errors.New(m.String())
	}
	if err != nil {
		if words := strayWords(parser.Model.Node, args); len(words) > 0 {
			err = fmt.Errorf("%w. %s", err, wordsHint(words))
		}
		fmt.Fprintf(stderr, "harness: %v\n", err)
		return exitUsage
	}
	err = kctx.Run()
	if err != nil {
		fmt.Fprintf(stderr, "harness: %v\n", err)
	}
	return exitCodeOf(err)
}

// exitCodeOf is the exit code of a command that returned err.
func exitCodeOf(err error) int {
	var ec *exitCodeError
	var sig *signalled
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ec):
		return ec.code
	case errors.As(err, &sig):
		return sig.code()
	case errors.Is(err, loop.ErrLimit):
		return exitLimit
	case errors.Is(err, context.Canceled):
		return exitInterrupt
	}
	return exitError
}

// versionFlag prints the version and exits, as kong.VersionFlag does, but
// works the version out only when it is asked for: kong.VersionFlag takes
// it from a parser variable, and every variable costs every flag of every
// command a regexp match and a copy of the variables at every start.
type versionFlag bool

func (versionFlag) BeforeReset(app *kong.Kong) error {
	fmt.Fprintln(app.Stdout, version())
	app.Exit(0)
	return nil
}

// flagName is the name of the flag or command of a struct field:
// the field's name in kebab case, as kong names it by default ("MaxSteps"
// is max-steps, "BaseURL" base-url, "FakeOllama" fake-ollama), for field
// names of ASCII letters and digits (TestFlagNames holds every field of
// the command line to it). kong's own namer splits each name into slices
// of runes, a dozen allocations a flag at every start.
func flagName(field string) string {
	class := func(c byte) int {
		switch {
		case 'a' <= c && c <= 'z':
			return 1
		case 'A' <= c && c <= 'Z':
			return 2
		case '0' <= c && c <= '9':
			return 3
		}
		return 4
	}
	var b strings.Builder
	b.Grow(len(field) + 4)
	for i := 0; i < len(field); i++ {
		c := field[i]
		if i > 0 {
			prev, cur := class(field[i-1]), class(c)
			// A word starts where the kind of character changes, and at
			// the last capital of a run of them that a lower-case letter
			// follows ("URLPath": url, path).
			next := 0
			if i+1 < len(field) {
				next = class(field[i+1])
			}
			if prev != cur && !(prev == 2 && cur == 1) || prev == 2 && cur == 2 && next == 1 {
				b.WriteByte('-')
			}
		}
		if class(c) == 2 {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// flagHelper is a struct of flags that holds their help in a method, by
// field name, rather than in each field's tag. kong turns every tag into
// runes and unquotes and interpolates each of its values at every start,
// at a cost that grows with the tag's length: the help of the chat
// command's flags was most of its tags, and a third of the memory the
// parser took. addHelp gives the flags their help when help is printed.
type flagHelper interface {
	help(field string) string
}

// withHelp returns print, which first gives the flags their help: a run
// that prints no help never looks for it.
func withHelp(print kong.HelpPrinter) kong.HelpPrinter {
	return func(options kong.HelpOptions, ctx *kong.Context) error {
		addHelp(ctx.Model.Node)
		return print(options, ctx)
	}
}

// addHelp gives each flag of node and the commands under it that has no
// help of its own the help its struct, or a struct embedded in it, holds.
func addHelp(node *kong.Node) {
	for _, child := range node.Children {
		addHelp(child)
	}
	if len(node.Flags) == 0 || !node.Target.IsValid() {
		return
	}
	for _, f := range node.Flags {
		if f.Help == "" && f.Target.CanAddr() {
			f.Help = fieldHelp(node.Target, f.Target.UnsafeAddr())
			f.OrigHelp = f.Help
		}
	}
}

// fieldHelp returns the help that the struct s, or a struct embedded in
// it, holds for its field at addr, or "". A kong flag knows the value it
// sets but not the name of its field, so the field is found by its
// address; an embedded struct is searched before its own address is
// compared, since it shares that address with its first field.
func fieldHelp(s reflect.Value, addr uintptr) string {
	t := s.Type()
	for i := range t.NumField() {
		ft, fv := t.Field(i), s.Field(i)
		if ft.Anonymous && ft.Type.Kind() == reflect.Struct {
			if h := fieldHelp(fv, addr); h != "" {
				return h
			}
			continue
		}
		if fv.UnsafeAddr() != addr || ft.Type.Size() == 0 {
			continue
		}
		// A zero value of the struct's type: the help of a field does not
		// depend on what the flags hold, and a struct embedded unexported
		// gives no value to call it on.
		if h, ok := reflect.New(t).Interface().(flagHelper); ok {
			return h.help(ft.Name)
		}
		return ""
	}
	return ""
}
