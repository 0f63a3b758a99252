package repl

import (
	"context"
	"fmt"
	"harness/chat"
	"strings"
)

// command is one of the REPL's slash commands: the harness runs it, and
// the model never sees it.
type command struct {
	name string // without the slash
	args string // what it takes, for /help: "NAME", or ""
	help string // one line
	// run runs the command with the rest of the line after its name,
	// trimmed. It returns errQuit to end the REPL; another error is shown
	// and the REPL goes on.
	run func(c *console, ctx context.Context, arg string) error
}

// commands lists the REPL's commands in the order /help shows them. A new
// command is one more entry here and a method of console.
func commands() []command {
	return []command{
		{"help", "", "list the commands, and what else the prompt takes", (*console).help},
		{"exit", "", "leave (so do exit, quit and Ctrl-D)", (*console).exit},
		{"clear", "", "start a new conversation", (*console).clear},
		{"model", "[PROVIDER/MODEL]", "list the providers' models; or use PROVIDER/MODEL (or a MODEL of the provider in use) from the next turn on", (*console).model},
		{"save", "NAME", "keep a copy of the conversation under NAME (a name already taken is refused)", (*console).save},
		{"load", "NAME", "go on with the conversation saved as NAME, or with session NAME", (*console).load},
		{"sessions", "[--all]", "list this workspace's saved sessions (--all: every workspace's)", (*console).sessions},
		{"tools", "", "list the tools the model may call", (*console).tools},
		{"context", "", "show what the context window holds, by part, and when compaction begins", (*console).context},
		{"diff", "", "show what this conversation changed in the workspace's files", (*console).diff},
		{"undo", "", "put back the files the last turn changed, as they were before it", (*console).undo},
	}
}

// isCommand reports whether line is a command: a slash and a word with no
// other slash in it, so that a path such as /usr/bin/env is text.
func isCommand(line string) bool {
	name, ok := strings.CutPrefix(line, "/")
	name, _, _ = strings.Cut(name, " ")
	return ok && !strings.Contains(name, "/")
}

// command runs the command line names; an unknown one gets the list.
func (c *console) command(ctx context.Context, line string) error {
	name, arg, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	for _, cmd := range c.cmds {
		if cmd.name == name {
			return cmd.run(c, ctx, strings.TrimSpace(arg))
		}
	}
	var names []string
	for _, cmd := range c.cmds {
		names = append(names, "/"+cmd.name)
	}
	fmt.Fprintf(c.out, "unknown command /%s; the commands are %s (/help says what each does)\n", name, strings.Join(names, " "))
	return nil
}

func (c *console) help(context.Context, string) error {
	width := 0
	usage := func(cmd command) string { return strings.TrimSpace("/" + cmd.name + " " + cmd.args) }
	for _, cmd := range c.cmds {
		width = max(width, len(usage(cmd)))
	}
	for _, cmd := range c.cmds {
		fmt.Fprintf(c.out, "  %-*s  %s\n", width, usage(cmd), cmd.help)
	}
	fmt.Fprintln(c.out, `Anything else is sent to the model. @PATH attaches a file of the workspace (@PATH:LINE names a line of it), @workspace its listing; text between """ lines is one input.`)
	return nil
}

func (c *console) exit(context.Context, string) error { return errQuit }

func (c *console) clear(context.Context, string) error {
	c.chat.Clear(c.out, c.st)
	return nil
}

func (c *console) model(ctx context.Context, spec string) error {
	return c.chat.SwitchModel(ctx, spec, c.out, c.st)
}

func (c *console) save(_ context.Context, name string) error { return c.chat.Save(name, c.out) }

func (c *console) load(ctx context.Context, ref string) error {
	return c.chat.Load(ctx, ref, c.out, c.st)
}

// sessions lists this workspace's sessions as `harness sessions` does;
// with --all, every workspace's.
func (c *console) sessions(_ context.Context, arg string) error {
	switch arg {
	case "":
		return chat.Sessions(c.chat.Dirs, c.out, c.out, c.chat.Root())
	case "--all":
		return chat.Sessions(c.chat.Dirs, c.out, c.out, "")
	}
	fmt.Fprintln(c.out, "/sessions lists this workspace's sessions; /sessions --all every workspace's.")
	return nil
}

func (c *console) tools(context.Context, string) error {
	c.chat.ListTools(c.out)
	return nil
}

func (c *console) context(context.Context, string) error { return c.chat.ShowContext(c.out) }

func (c *console) diff(context.Context, string) error {
	c.chat.Diff(c.out, c.st)
	return nil
}

func (c *console) undo(context.Context, string) error { return c.chat.Undo(c.out, c.st) }
