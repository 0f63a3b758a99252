package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"
)

// promptText is the value of -p. It is read by its own decoder so that a
// -p with no text after it says so plainly, rather than as a parser's
// error about tokens.
type promptText string

// errNoPrompt is the error of a -p given nothing to send.
var errNoPrompt = errors.New(`-p needs the text to send after it, as in: harness -p "what does this project do?"`)

func (p *promptText) Decode(ctx *kong.DecodeContext) error {
	t := ctx.Scan.Pop()
	if !t.IsValue() {
		return errNoPrompt
	}
	s, ok := t.Value.(string)
	if !ok {
		return errNoPrompt
	}
	*p = promptText(s)
	return nil
}

// promptFlag is the name of -p's long form.
const promptFlag = "prompt"

// strayWords returns the words of args that are neither flags, nor their
// values, nor a command of root: most likely a question meant for -p, as
// in "harness hello". The value of -p counts among them, in its place: in
// "harness -p what does it do" the question is all four words. It returns
// nil when the first word names a command, whose own parsing went wrong.
func strayWords(root *kong.Node, args []string) []string {
	takesValue := map[string]bool{}
	isPrompt := map[string]bool{}
	for _, node := range append([]*kong.Node{root}, root.Children...) {
		for _, f := range node.Flags {
			v := !f.IsBool() && !f.IsCounter()
			names := []string{"--" + f.Name}
			for _, a := range f.Aliases {
				names = append(names, "--"+a)
			}
			if f.Short != 0 {
				names = append(names, "-"+string(f.Short))
			}
			for _, n := range names {
				takesValue[n] = v
				isPrompt[n] = isPrompt[n] || f.Name == promptFlag
			}
		}
	}
	var words []string
	stray := 0 // words that are not -p's
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			stray += len(args) - i - 1
			words = append(words, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"+promptFlag+"="):
			words = append(words, strings.TrimPrefix(a, "--"+promptFlag+"="))
		case isPrompt[a]:
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				words = append(words, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "-"):
			if takesValue[a] {
				i++
			}
		case stray == 0 && isCommandName(root, a):
			return nil
		default:
			words = append(words, a)
			stray++
		}
	}
	if stray == 0 {
		return nil
	}
	return words
}

func isCommandName(root *kong.Node, name string) bool {
	for _, c := range root.Children {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return true
		}
	}
	return false
}

// wordsHint says how to ask the model what words given without -p ask.
func wordsHint(words []string) string {
	return fmt.Sprintf("To ask the model, use -p: harness -p %s; for a conversation, run harness without words (the REPL); harness --help lists the commands",
		strconv.Quote(strings.Join(words, " ")))
}

// misplaced is a flag of the default command given before another command:
// the parser reads flags before a command as the default command's.
type misplaced struct {
	flag    string // as given, such as --tools
	command string // the command named after it
	def     string // the default command
	takes   bool   // whether that command has the flag too
}

// misplacedFlag finds the first flag of args that belongs to root's
// default command, and not to root, given before the name of another
// command. It returns false when there is none.
func misplacedFlag(root *kong.Node, args []string) (misplaced, bool) {
	def := root.DefaultCmd
	if def == nil {
		return misplaced{}, false
	}
	flagOf := func(n *kong.Node, name string) *kong.Flag {
		for _, f := range n.Flags {
			if "--"+f.Name == name || slices.Contains(f.Aliases, strings.TrimPrefix(name, "--")) ||
				(f.Short != 0 && name == "-"+string(f.Short)) {
				return f
			}
		}
		return nil
	}
	var found *misplaced
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return misplaced{}, false
		}
		if strings.HasPrefix(a, "-") {
			name, _, inline := strings.Cut(a, "=")
			f := flagOf(def, name)
			if f == nil {
				f = flagOf(root, name)
			} else if found == nil && flagOf(root, name) == nil {
				found = &misplaced{flag: name, def: def.Name}
			}
			if f != nil && !inline && !f.IsBool() && !f.IsCounter() {
				i++ // its value
			}
			continue
		}
		if found == nil || !isCommandName(root, a) {
			return misplaced{}, false
		}
		for _, c := range root.Children {
			if c.Name == a || slices.Contains(c.Aliases, a) {
				if c == def {
					return misplaced{}, false
				}
				found.command = c.Name
				found.takes = flagOf(c, found.flag) != nil
				return *found, true
			}
		}
	}
	return misplaced{}, false
}

// String says what is wrong with the flag, and what to write instead.
func (m misplaced) String() string {
	if m.takes {
		return fmt.Sprintf("%s is given before the command %s, where it is read as a flag of the default command %s; put it after the command: harness %s %s ...", m.flag, m.command, m.def, m.command, m.flag)
	}
	return fmt.Sprintf("%s is a flag of the default command %s, which %s does not take", m.flag, m.def, m.command)
}
