package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"harness/loop"
	"harness/tour"
	"harness/xdg"
)

// chatCLI is the part of the command line that a run of the default
// command needs: the version flag and the chat command. cli embeds it, so
// that the two are one declaration.
type chatCLI struct {
	Version versionFlag `help:"Print the version and exit."`

	Chat chatCmd `cmd:"" default:"withargs" help:"Work with the model in the workspace: a REPL, or one turn with -p (the default command)."`
}

// cli is the whole command line: every command, the default one first.
type cli struct {
	chatCLI `embed:""`

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
	return executeLine(ctx, dirs, args, stdio{in: stdin, out: stdout, err: stderr}, chatOnly(args))
}

// executeLine runs the command line args as parseLine parses it with
// tryChat.
func executeLine(ctx context.Context, dirs xdg.Dirs, args []string, std stdio, tryChat bool) int {
	p := parseLine(ctx, dirs, args, std, tryChat)
	if p.exited {
		return p.code
	}
	err := p.err
	if p.parser == nil {
		fmt.Fprintf(std.err, "harness: %v\n", err)
		return exitError
	}
	if errors.Is(err, errNoPrompt) {
		err = errNoPrompt // the flag's name is in the message already
	}
	if m, ok := misplacedFlag(p.parser.Model.Node, args); ok && err != nil {
		err = errors.New(m.String())
	}
	if err != nil {
		if words := strayWords(p.parser.Model.Node, args); len(words) > 0 {
			err = fmt.Errorf("%w. %s", err, wordsHint(words))
		}
		fmt.Fprintf(std.err, "harness: %v\n", err)
		return exitUsage
	}
	err = p.kctx.Run()
	if err != nil {
		fmt.Fprintf(std.err, "harness: %v\n", err)
	}
	return exitCodeOf(err)
}

// parseLine parses the command line args, its commands to run with std.
//
// kong builds the model of every command, flag and help text it is given
// at every start, before it reads a word, and a run of the default command
// needs one command of ten. So with tryChat, which chatOnly(args) allows,
// args are parsed first with the parser of chatCLI alone, whose output is
// held back; when that parse fails in any way, they are parsed again with
// the whole command line's parser, as they would have been without the
// first, so that errors, usage and help are the whole parser's.
func parseLine(ctx context.Context, dirs xdg.Dirs, args []string, std stdio, tryChat bool) parsed {
	if tryChat {
		out, errs := &heldWriter{to: std.out}, &heldWriter{to: std.err}
		p := parse(ctx, &chatCLI{}, dirs, args, std, out, errs)
		if p.err == nil && p.code == exitOK {
			out.release()
			errs.release()
			return p
		}
	}
	return parse(ctx, &cli{}, dirs, args, std, std.out, std.err)
}

// heldWriter holds what is written to it until it is released, and then
// writes it, and what follows, to the writer to.
type heldWriter struct {
	to       io.Writer
	held     bytes.Buffer
	released bool
}

func (w *heldWriter) Write(p []byte) (int, error) {
	if w.released {
		return w.to.Write(p)
	}
	return w.held.Write(p)
}

// release writes what w holds, and lets what follows through.
func (w *heldWriter) release() error {
	w.released = true
	if w.held.Len() == 0 { // to may be nil where nothing is written
		return nil
	}
	_, err := w.to.Write(w.held.Bytes())
	return err
}

// parsed is what parse found.
type parsed struct {
	grammar any           // what args were parsed into: a *cli or a *chatCLI
	parser  *kong.Kong    // nil when it could not be built (err says why)
	kctx    *kong.Context // the command to run, when err is nil
	err     error
	exited  bool // whether the parser asked to exit, with code
	code    int
}

// parse parses args into the command line grammar, a *cli or a *chatCLI,
// the parser writing its help, version and usage to stdout and stderr and
// binding std for the commands to run with.
func parse(ctx context.Context, grammar any, dirs xdg.Dirs, args []string, std stdio, stdout, stderr io.Writer) parsed {
	p := parsed{grammar: grammar}
	p.parser, p.err = kong.New(grammar,
		kong.Name("harness"),
		kong.Description("An agent harness for local models: it gives the model tools through a plain-text protocol and runs them inside a workspace."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { p.exited, p.code = true, c }),
		kong.UsageOnError(),
		kong.Help(withHelp(kong.DefaultHelpPrinter)),
		kong.ShortHelp(withHelp(kong.DefaultShortHelpPrinter)),
		kong.FlagNamer(flagName),
		kong.BindTo(ctx, (*context.Context)(nil)),
		kong.Bind(std, dirs),
		kong.BindTo(tour.Harness(executeIn), (*tour.Harness)(nil)),
	)
	if p.err != nil {
		p.parser = nil
		return p
	}
	p.kctx, p.err = p.parser.Parse(args)
	return p
}

// chatOnly reports whether chatCLI's parser can parse args as the whole
// command line's parser would: when no word of args names a command that
// cli has and chatCLI has not, wherever it stands (the value of a flag
// too, which is simpler than telling values from commands and costs only
// time), and none asks for help: help, --help, or a short flag or group
// of them with an h, such as -h or -ch. Lines that then parse alike (the
// same command, flags, values and errors) are those the two parsers trace
// alike: kong reads flags before a command as the default command's, and
// turns to it when a word names no command.
func chatOnly(args []string) bool {
	all, chat := commandNames(reflect.TypeFor[cli]()), commandNames(reflect.TypeFor[chatCLI]())
	for _, a := range args {
		switch {
		case a == "help", strings.HasPrefix(a, "--help"),
			!strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.Contains(a, "h"),
			slices.Contains(all, a) && !slices.Contains(chat, a):
			return false
		}
	}
	return true
}

// commandNames returns the names of the commands of the command line
// struct t and of the structs it embeds, by their name tags or their
// fields' names, as kong names them, and their aliases.
func commandNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if _, ok := f.Tag.Lookup("embed"); ok && f.Anonymous {
			names = append(names, commandNames(f.Type)...)
			continue
		}
		if _, ok := f.Tag.Lookup("cmd"); !ok {
			continue
		}
		name, ok := f.Tag.Lookup("name")
		if !ok {
			name = flagName(f.Name)
		}
		names = append(names, name)
		if aliases := f.Tag.Get("aliases"); aliases != "" {
			names = append(names, strings.Split(aliases, ",")...)
		}
	}
	return names
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
