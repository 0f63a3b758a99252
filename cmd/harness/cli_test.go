package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"harness/config"
	"harness/record"
)

func TestStrayWords(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.FlagNamer(flagName))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"hello", "there"}, []string{"hello", "there"}},
		{[]string{"-m", "qwen3", "hello"}, []string{"hello"}},
		{[]string{"--model=qwen3", "-w", "dir", "hi"}, []string{"hi"}},
		{[]string{"--lie", "joke", "--approve", "all", "hi"}, []string{"hi"}},
		{[]string{"--version", "hi"}, []string{"hi"}},
		{[]string{"replay", "a", "b"}, nil},
		{[]string{"-w", "dir", "prompt", "x"}, nil},
		{[]string{"-p"}, nil},
		{[]string{"--", "-p"}, []string{"-p"}},
		{[]string{"-p", "what", "does", "it", "do"}, []string{"what", "does", "it", "do"}},
		{[]string{"--prompt=what", "is", "this"}, []string{"what", "is", "this"}},
		{[]string{"-m", "q", "-p", "hi", "there", "--approve", "all"}, []string{"hi", "there"}},
		{[]string{"-p", "hi", "--bogus"}, nil},
		{[]string{"-p", "--max-steps", "3"}, nil},
	}
	for _, tt := range tests {
		if got := strayWords(parser.Model.Node, tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("strayWords(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestMisplacedFlag(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.FlagNamer(flagName))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want misplaced
		ok   bool
	}{
		{[]string{"--tools", "x", "prompt"}, misplaced{flag: "--tools", command: "prompt", def: "chat", takes: true}, true},
		{[]string{"--tools=x", "prompt"}, misplaced{flag: "--tools", command: "prompt", def: "chat", takes: true}, true},
		{[]string{"-p", "hi", "sessions"}, misplaced{flag: "-p", command: "sessions", def: "chat", takes: false}, true},
		{[]string{"prompt", "--tools", "x"}, misplaced{}, false},
		{[]string{"--tools", "x", "chat"}, misplaced{}, false},
		{[]string{"--tools", "x", "hello"}, misplaced{}, false},
		{[]string{"--tools", "x"}, misplaced{}, false},
		{[]string{"--version", "prompt"}, misplaced{}, false},
		{[]string{"--", "--tools", "prompt"}, misplaced{}, false},
	}
	for _, tt := range tests {
		got, ok := misplacedFlag(parser.Model.Node, tt.args)
		if got != tt.want || ok != tt.ok {
			t.Errorf("misplacedFlag(%q) = %+v, %v; want %+v, %v", tt.args, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRecordIsPrivate: a new --record file is its owner's alone, since it
// holds whatever the model read; an existing one keeps the mode it has.
func TestRecordIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no such modes")
	}
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept.jsonl")
	if err := os.WriteFile(kept, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o644) // whatever the umask
	for path, want := range map[string]os.FileMode{filepath.Join(dir, "new.jsonl"): 0o600, kept: 0o644} {
		_, done, err := openRecord(path, record.Start{})
		if err != nil {
			t.Fatal(err)
		}
		done()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), fi.Mode().Perm(), want)
		}
	}
}

// TestFlagNames: every flag and command of the command line is named by
// flagName as kong names it by default.
func TestFlagNames(t *testing.T) {
	names := func(opts ...kong.Option) []string {
		t.Helper()
		parser, err := kong.New(&cli{}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		kong.Visit(parser.Model, func(n kong.Visitable, next kong.Next) error {
			switch n := n.(type) {
			case *kong.Node:
				out = append(out, "command "+n.Path())
			case *kong.Flag:
				out = append(out, "flag "+n.Name)
			}
			return next(nil)
		})
		return out
	}
	want, got := names(), names(kong.FlagNamer(flagName))
	if len(want) < 80 {
		t.Fatalf("only %d flags and commands: %q", len(want), want)
	}
	if !slices.Equal(got, want) {
		t.Errorf("flagName names them\n%q\nkong names them\n%q", got, want)
	}
	for _, tt := range []struct{ field, want string }{
		{"MaxSteps", "max-steps"}, {"BaseURL", "base-url"}, {"URLPath", "url-path"},
		{"NoMCP", "no-mcp"}, {"Sha256Sum", "sha-256-sum"}, {"ABc", "a-bc"}, {"X", "x"},
	} {
		if got := flagName(tt.field); got != tt.want {
			t.Errorf("flagName(%q) = %q, want %q", tt.field, got, tt.want)
		}
	}
}

// TestFlagConstants: the flags' defaults and choices written into their
// tags are those of the code they stand for.
func TestFlagConstants(t *testing.T) {
	parser, err := kong.New(&cli{})
	if err != nil {
		t.Fatal(err)
	}
	addHelp(parser.Model.Node)
	var chat *kong.Node
	for _, n := range parser.Model.Children {
		if n.Name == "chat" {
			chat = n
		}
	}
	if chat == nil {
		t.Fatal("no chat command")
	}
	flags := map[string]*kong.Flag{}
	for _, f := range chat.Flags {
		flags[f.Name] = f
	}
	if f := flags["backend"]; f == nil || f.Enum != backendNames() || f.Default != backends[0].Name {
		t.Errorf("--backend: enum %q default %q, want %q and %q", f.Enum, f.Default, backendNames(), backends[0].Name)
	}
	for name, group := range map[string]string{"continue": "Sessions", "no-session": "Sessions", "max-steps": "Limits",
		"sandbox": "Safety", "approve": "Safety", "bash-block": "Safety", "prompt": "", "workspace": ""} {
		f := flags[name]
		if f == nil {
			t.Errorf("no --%s", name)
			continue
		}
		if got := f.Group; got == nil && group != "" || got != nil && got.Title != group {
			t.Errorf("--%s is in group %v, want %q", name, got, group)
		}
	}
	if f := flags["model"]; f == nil || !strings.Contains(f.Help, "else "+config.DefaultModel+").") {
		t.Errorf("--model's help does not name the default model %s: %q", config.DefaultModel, f.Help)
	}
}

// TestFlagHelp: every flag of every command has help, whether its tag or
// its struct's help method holds it, and the method's text is the flag's.
func TestFlagHelp(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.FlagNamer(flagName))
	if err != nil {
		t.Fatal(err)
	}
	addHelp(parser.Model.Node)
	flags := 0
	kong.Visit(parser.Model, func(n kong.Visitable, next kong.Next) error {
		if node, ok := n.(*kong.Node); ok {
			for _, f := range node.Flags {
				flags++
				if f.Help == "" || f.OrigHelp != f.Help {
					t.Errorf("harness %s --%s: help %q (first %q)", node.Path(), f.Name, f.Help, f.OrigHelp)
				}
			}
		}
		return next(nil)
	})
	if flags < 60 {
		t.Errorf("only %d flags", flags)
	}
	for _, tt := range []struct{ command, flag, want string }{
		{"chat", "max-steps", budgetFlags{}.help("MaxSteps")},
		{"chat", "workspace", workspaceFlags{}.help("Workspace")},
		{"prompt", "workspace", workspaceFlags{}.help("Workspace")},
		{"config", "num-ctx", providerFlags{}.help("NumCtx")},
		{"context", "num-ctx", "Context window in tokens (default: the num_ctx the session sent, which only an ollama provider does, else 16384)."},
	} {
		var got string
		for _, n := range parser.Model.Children {
			for _, f := range n.Flags {
				if n.Name == tt.command && f.Name == tt.flag {
					got = f.Help
				}
			}
		}
		if got != tt.want || got == "" {
			t.Errorf("harness %s --%s: help %q, want %q", tt.command, tt.flag, got, tt.want)
		}
	}
}

// TestChatOnly: the lines that may be parsed with chatCLI's parser alone
// are those that name no other command and ask for no help.
func TestChatOnly(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"-p", "what is this"}, true},
		{[]string{"chat", "-p", "hi"}, true},
		{[]string{"--version"}, true},
		{[]string{"-w", "dir", "-c", "--approve", "all"}, true},
		{[]string{"-p", "the test-server"}, true}, // a command of mcp's only
		{[]string{""}, true},
		{[]string{"--help"}, false},
		{[]string{"--help=false"}, false},
		{[]string{"-h"}, false},
		{[]string{"-ch"}, false},
		{[]string{"help"}, false},
		{[]string{"chat", "--help"}, false},
		{[]string{"prompt"}, false},
		{[]string{"-w", "dir", "prompt"}, false},
		{[]string{"-p", "prompt"}, false},
		{[]string{"--", "sessions"}, false},
		{[]string{"fake-ollama"}, false},
		{[]string{"tiny-model"}, false},
		{[]string{"mcp"}, false},
	}
	for _, tt := range tests {
		if got := chatOnly(tt.args); got != tt.want {
			t.Errorf("chatOnly(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestCommandNames: commandNames names the commands of the command line,
// and of chatCLI, as kong names them, with their aliases.
func TestCommandNames(t *testing.T) {
	for _, tt := range []struct {
		grammar any
		t       reflect.Type
		min     int
	}{{&cli{}, reflect.TypeFor[cli](), 10}, {&chatCLI{}, reflect.TypeFor[chatCLI](), 1}} {
		parser, err := kong.New(tt.grammar, kong.FlagNamer(flagName))
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, c := range parser.Model.Children {
			want = append(want, c.Name)
			want = append(want, c.Aliases...)
		}
		got := commandNames(tt.t)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || len(want) < tt.min {
			t.Errorf("commandNames(%v) = %q, kong names %q", tt.t, got, want)
		}
	}
}

// chatOf returns the chat command that p parsed args into.
func chatOf(t *testing.T, p parsed) chatCmd {
	t.Helper()
	switch g := p.grammar.(type) {
	case *cli:
		return g.Chat
	case *chatCLI:
		return g.Chat
	}
	t.Fatalf("parsed into %T", p.grammar)
	return chatCmd{}
}

// TestChatParsesAlike: a line that chatCLI's parser takes is parsed into
// the same command, with the same values and flags given, as the whole
// command line's parser parses it; a line it does not take, the whole
// parser parses as it would alone.
func TestChatParsesAlike(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		lean bool // whether chatCLI's parser takes it
	}{
		{nil, nil, true},
		{[]string{"chat"}, nil, true},
		{[]string{"-p", "hi"}, nil, true},
		{[]string{"chat", "-p", "hi", "-m", "qwen3"}, nil, true},
		{[]string{"-p", "what does it do", "-m", "p/qwen3", "--host", "x:1", "-w", "dir", "--max-steps", "3",
			"--max-time", "5s", "--no-compact", "--show-wire", "--output", "json", "--parser", "strict"}, nil, true},
		{[]string{"--prompt=hi", "--compact=false", "--output=stream-json", "--record", "r.jsonl"}, nil, true},
		{[]string{"-pxyz"}, nil, true},
		{[]string{"-p=hi"}, nil, true},
		{[]string{"--version"}, nil, true},
		{[]string{"--version", "-p", "hi"}, nil, true},
		{[]string{"-c", "--no-session"}, nil, true},
		{[]string{"--resume", "abc"}, nil, true},
		{[]string{"--lie", "joke", "--lie", "ext:.go=.js", "--tools", "read_file,bash"}, nil, true},
		{[]string{"--tools", ""}, nil, true},
		{[]string{"--temperature", "0.5", "--seed", "3", "--max-tokens", "9", "--num-ctx", "4096"}, nil, true},
		{[]string{"--backend", "openai", "--base-url", "127.0.0.1:1", "--provider", "lms"}, nil, true},
		{[]string{"--sandbox-hide", "a,b", "--sandbox-hide", "c", "--sandbox-write", "w", "--sandbox-read", "r"}, nil, true},
		{[]string{"--bash-allow", "a,b", "--bash-block", "c", "--bash-max-file-size", "2GiB", "--bash-timeout", "1m"}, nil, true},
		{[]string{"--mcp", "a", "--mcp", "b", "--no-mcp"}, nil, true},
		{[]string{"--agent-max-steps", "2", "--max-repeats", "0", "--max-output-tokens", "5", "--max-model-calls", "1",
			"--max-format-errors", "1", "--test-pattern", "x"}, nil, true},
		{[]string{"-w", "dir", "--"}, nil, true},
		{nil, map[string]string{"HARNESS_SANDBOX": "none", "HARNESS_APPROVE": "deny"}, true},
		{[]string{"--approve", "all", "--sandbox", "bwrap"}, map[string]string{"HARNESS_SANDBOX": "none", "HARNESS_APPROVE": "deny"}, true},
		{[]string{"--sandbox", "none"}, map[string]string{"HARNESS_SANDBOX": "bogus"}, true},
		{nil, map[string]string{"HARNESS_SANDBOX": "bogus"}, false},
		{[]string{"hello"}, nil, false},
		{[]string{"--version", "hi"}, nil, false},
		{[]string{"--version", "--output", "bogus"}, nil, false},
		{[]string{"-p"}, nil, false},
		{[]string{"-p", "hi", "--bogus"}, nil, false},
		{[]string{"--output", "bogus"}, nil, false},
		{[]string{"--max-steps", "x"}, nil, false},
		{[]string{"-c", "--resume", "x"}, nil, false},
		{[]string{"chat", "chat"}, nil, false},
		{[]string{"--", "-p", "hi"}, nil, false},
		{[]string{"--continue=maybe"}, nil, false},
		{[]string{"--help"}, nil, false},
		{[]string{"-w", "dir", "sessions"}, nil, false},
	}
	ctx := context.Background()
	dirs := tempDirs(t)
	for _, tt := range tests {
		for k, v := range tt.env {
			t.Setenv(k, v)
		}
		var out, errs [2]strings.Builder
		lean := parseLine(ctx, dirs, tt.args, stdio{out: &out[0], err: &errs[0]}, true)
		full := parseLine(ctx, dirs, tt.args, stdio{out: &out[1], err: &errs[1]}, false)
		for k := range tt.env {
			os.Unsetenv(k)
		}
		if _, ok := lean.grammar.(*chatCLI); ok != tt.lean {
			t.Errorf("%q %v: parsed into %T (err %v)", tt.args, tt.env, lean.grammar, lean.err)
		}
		if fmt.Sprint(lean.err) != fmt.Sprint(full.err) || lean.exited != full.exited || lean.code != full.code {
			t.Errorf("%q %v: err %v, exit %v %d; the whole parser: %v, %v %d", tt.args, tt.env, lean.err, lean.exited, lean.code, full.err, full.exited, full.code)
		}
		if out[0].String() != out[1].String() || errs[0].String() != errs[1].String() {
			t.Errorf("%q: printed %q and %q; the whole parser %q and %q", tt.args, out[0].String(), errs[0].String(), out[1].String(), errs[1].String())
		}
		if lean.err != nil || full.err != nil {
			continue
		}
		if got, want := lean.kctx.Command(), full.kctx.Command(); got != want {
			t.Errorf("%q: command %q, the whole parser %q", tt.args, got, want)
		}
		if got, want := flagsGiven(lean.kctx), flagsGiven(full.kctx); !slices.Equal(got, want) {
			t.Errorf("%q: flags given %q, the whole parser %q", tt.args, got, want)
		}
		if got, want := chatOf(t, lean), chatOf(t, full); !reflect.DeepEqual(got, want) {
			t.Errorf("%q %v: chat\n%+v\nthe whole parser\n%+v", tt.args, tt.env, got, want)
		}
	}
}

// TestExecuteAlike: what a command line prints, and its exit code, are
// those of the whole command line's parser alone, for usage, errors and
// the version. Lines that ask for help never reach the chat parser
// (chatOnly refuses them, as TestChatOnly holds), so for them this
// compares the whole parser with itself and holds only their output.
func TestExecuteAlike(t *testing.T) {
	lines := [][]string{
		{"--help"}, {"-h"}, {"help"}, {"chat", "--help"}, {"chat", "-h"}, {"-ch"}, {"-p", "hi", "--help"},
		{"--version"}, {"--version", "-p", "hi"}, {"--version", "hi"}, {"--version", "--output", "bogus"}, {"chat", "--version"},
		{"hello"}, {"hello", "there"}, {"-p"}, {"-p", "hi", "--bogus"}, {"--bogus"}, {"-x"},
		{"--tools", "x", "prompt"}, {"-p", "hi", "sessions"}, {"--", "-p"}, {"--output", "bogus"},
		{"--sandbox", "bogus", "-p", "hi"}, {"--max-steps", "x"}, {"-c", "--resume", "x", "-p", "hi"},
		{"promt"}, {"chat", "hello"}, {"chat", "chat"}, {"-w"}, {"--continue=maybe"}, {"-p", "--max-steps", "3"},
		{"--output=json"}, {"-m"},
	}
	ctx := context.Background()
	for _, c := range []string{"prompt", "sessions", "context", "replay", "config", "fake-ollama", "tour", "mcp", "tiny-model"} {
		lines = append(lines, []string{c, "--help"}, []string{c, "--bogus"})
	}
	for _, args := range lines {
		var out, errs [2]strings.Builder
		dirs := tempDirs(t)
		got := executeIn(ctx, dirs, args, strings.NewReader(""), &out[0], &errs[0])
		want := executeLine(ctx, dirs, args, stdio{in: strings.NewReader(""), out: &out[1], err: &errs[1]}, false)
		if got != want || out[0].String() != out[1].String() || errs[0].String() != errs[1].String() {
			t.Errorf("%q: exit %d, printed\n%s\n%s\nthe whole parser: exit %d, printed\n%s\n%s",
				args, got, out[0].String(), errs[0].String(), want, out[1].String(), errs[1].String())
		}
		if out[1].Len()+errs[1].Len() == 0 {
			t.Errorf("%q printed nothing", args)
		}
	}
}

// TestOtherCommandsSelected: a line that names a command other than chat
// runs that command.
func TestOtherCommandsSelected(t *testing.T) {
	parser, err := kong.New(&cli{}, kong.FlagNamer(flagName))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{
		"prompt":      {"prompt", "-w", "dir"},
		"sessions":    {"sessions", "--all"},
		"context":     {"context"},
		"replay":      {"replay", "record.jsonl"},
		"config":      {"config", "-m", "qwen3"},
		"fake-ollama": {"fake-ollama", "--script", "s.fake"},
		"tour":        {"tour", "2"},
		"mcp":         {"mcp", "list", "x"},
		"tiny-model":  {"tiny-model", "--out", "dir"},
	}
	ctx := context.Background()
	for _, c := range parser.Model.Children {
		if c.Name == "chat" {
			continue
		}
		args, ok := lines[c.Name]
		if !ok {
			t.Errorf("no line for the command %s", c.Name)
			continue
		}
		var out, errs strings.Builder
		p := parseLine(ctx, tempDirs(t), args, stdio{out: &out, err: &errs}, chatOnly(args))
		if p.err != nil {
			t.Errorf("%q: %v", args, p.err)
			continue
		}
		if got := strings.Fields(p.kctx.Command()); len(got) == 0 || got[0] != c.Name {
			t.Errorf("%q: runs the command %q, want %s", args, p.kctx.Command(), c.Name)
		}
	}
}

// TestHeldWriter: what is written before release reaches the writer only
// at release, in order with what follows; nothing held writes nothing.
func TestHeldWriter(t *testing.T) {
	var to strings.Builder
	w := &heldWriter{to: &to}
	fmt.Fprint(w, "one ")
	fmt.Fprint(w, "two ")
	if to.Len() != 0 {
		t.Fatalf("wrote %q before release", to.String())
	}
	if err := w.release(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(w, "three")
	if got := to.String(); got != "one two three" {
		t.Errorf("wrote %q, want %q", got, "one two three")
	}
	if err := (&heldWriter{}).release(); err != nil { // to is nil
		t.Errorf("releasing nothing: %v", err)
	}
}

// TestCLIMethods: cli has no method of its own, such as a hook or a
// Validate that kong would call on the application at every parse: the
// parser of chatCLI, which parses most lines, would never call it. Such a
// method belongs on chatCLI.
func TestCLIMethods(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[cli](), reflect.TypeFor[*cli]()} {
		for m := range typ.Methods() {
			if _, ok := reflect.PointerTo(reflect.TypeFor[chatCLI]()).MethodByName(m.Name); !ok {
				t.Errorf("%v has the method %s, which chatCLI has not", typ, m.Name)
			}
		}
	}
}
