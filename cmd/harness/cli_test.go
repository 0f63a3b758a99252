package main

import (
	"os"
	"path/filepath"
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
