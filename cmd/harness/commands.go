package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"harness/config"
	"harness/loop"
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

// clear starts a new conversation with the same model, tools and
// settings, saved as a new session (the last one stays saved), and
// forgets the changes /diff and /undo knew of.
func (c *console) clear(context.Context, string) error {
	r := c.r
	if r.conv.writer != nil {
		if err := r.conv.writer.Close(); err != nil {
			fmt.Fprintf(c.out, "%s %v\n", c.st.Bad("warning:"), err)
		}
		r.conv.writer = r.conv.store.Create(r.conv.start)
	}
	r.conv.resumed = nil
	c.agent = r.agent(c.view)
	c.turn, r.conv.note = 1, ""
	r.journal.Reset()
	fmt.Fprintln(c.out, "A new conversation: the model remembers nothing of the last one.")
	return nil
}

// model lists the models the providers offer, or switches to one between
// turns: the conversation goes on with it. A model its server says for
// certain it does not have (Ollama's) is refused; another is taken at
// the server's word until the next request.
func (c *console) model(ctx context.Context, spec string) error {
	r := c.r
	switch {
	case r.providers == nil:
		fmt.Fprintf(c.out, "The model is %s, a scripted %s model: with --fake there are no providers, and /model has no other model to use.\n", r.backend.Model, r.backend.Name)
		return nil
	case spec == "":
		fmt.Fprintf(c.out, "The model is %s. The providers offer:\n", r.modelSpec())
		if err := r.providers.writeOffers(c.out, r.providers.list(ctx)); err != nil {
			return err
		}
		fmt.Fprintf(c.out, "/model PROVIDER/MODEL uses one of them from the next turn on; /model MODEL one of %s's.\n", r.providers.cur.Provider.Value)
		return nil
	}
	from := r.modelSpec()
	b, s, err := r.providers.pick(spec)
	if err != nil {
		fmt.Fprintf(c.out, "%v; the model is still %s.\n", err, from)
		return nil
	}
	if err := checkBackend(ctx, b); certainlyMissing(err) {
		fmt.Fprintf(c.out, "%s; the model is still %s.\n", modelAdvice(err, true), from)
		return nil
	} else if err != nil {
		fmt.Fprintf(c.out, "%s %s\n", c.st.Bad("warning:"), modelAdvice(err, true))
	}
	size, err := r.windowFor(ctx, c.out, b)
	if err != nil {
		fmt.Fprintf(c.out, "%v; the model is still %s.\n", err, from)
		return nil
	}
	if err := r.useModel(b, s, size, c.out); err != nil {
		return err
	}
	agent, err := loop.Resume(r.model, r.tools, r.cfg, c.agent.State(), r.hooks(r.ui(c.view)...)...)
	if err != nil {
		return err
	}
	if r.conv.writer != nil {
		r.conv.writer.Follow(agent)
	}
	c.agent = agent
	if err := r.modelChanged(agent.State().Turn+1, from); err != nil {
		fmt.Fprintf(c.out, "%s %v\n", c.st.Bad("warning:"), err)
	}
	fmt.Fprintf(c.out, "The model is %s from the next turn on.\n", r.modelSpec())
	return nil
}

// checkBackend asks b's server whether it has b's model, when b is a
// checker: an Ollama server, or an OpenAI-compatible one (whose missing
// model is only a warning: some answer whatever the name). A scripted
// model is not asked.
func checkBackend(ctx context.Context, b loop.Model) error {
	c, ok := b.(checker)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return c.Check(ctx)
}

// modelSpec is the run's model as -m names it: PROVIDER/MODEL, or the
// model's name alone when there are no providers (--fake).
func (r *runner) modelSpec() string {
	if r.providers == nil {
		return r.backend.Model
	}
	return r.providers.spec()
}

// useModel makes b, whose settings are s, the run's model, with the tools
// built for it again (its helpers use it too).
func (r *runner) useModel(b backend, s config.Settings, size int, out io.Writer) error {
	ts, err := r.toolsFor(b)
	if err != nil {
		return err
	}
	r.model, r.tools, r.backend = b, ts, b.Describe()
	r.providers.cur = s
	if size != r.cfg.Window {
		fmt.Fprintf(out, "The context window is %d tokens, not %d, from the next turn on.\n", size, r.cfg.Window)
		r.cfg.Window, r.ctxview.Size = size, size
	}
	return nil
}

// modelChanged records that the run's model, which was from, answers from
// turn on: in the run record, in the session, and in what a new session
// of the run starts with. The record and the session name both as
// PROVIDER/MODEL, so that a resumed conversation finds the provider too.
func (r *runner) modelChanged(turn int, from string) error {
	to := r.modelSpec()
	r.conv.start.Model, r.conv.start.Backend, r.conv.start.Options = r.backend.Model, r.backend.Name, r.backend.Options
	if from == to {
		return nil
	}
	var errs []error
	if r.rec != nil {
		errs = append(errs, r.rec.Model(turn, from, to))
	}
	if r.conv.writer != nil {
		errs = append(errs, r.conv.writer.Model(turn, from, to))
	}
	return errors.Join(errs...)
}

// context shows what the context window holds for the conversation so
// far: each part's tokens, the free space, the reply's reserve and the
// compaction threshold. It changes nothing.
func (c *console) context(context.Context, string) error {
	st := c.agent.State()
	d := c.r.ctxview.Measure(st, c.r.instructions())
	if err := d.Render(c.out); err != nil {
		return err
	}
	if n, tokens := c.r.mcpShare(d); n > 0 {
		fmt.Fprintf(c.out, "the tools of MCP servers take %d of the system prompt's tokens (%d tools)\n", tokens, n)
	}
	return nil
}

// tools lists each tool with the first sentence of its description.
func (c *console) tools(context.Context, string) error {
	specs := c.r.tools.Specs()
	width := 0
	for _, s := range specs {
		width = max(width, len(s.Name))
	}
	for _, s := range specs {
		fmt.Fprintf(c.out, "  %-*s  %s\n", width, s.Name, firstSentence(s.Description))
	}
	return nil
}

// firstSentence is the text up to its first full stop and space.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func (c *console) diff(context.Context, string) error {
	d := c.r.journal.Diff()
	if d == "" {
		fmt.Fprintln(c.out, "No file was changed by edit_file or write_file in this conversation.")
		return nil
	}
	fmt.Fprint(c.out, c.st.Diff(d))
	return nil
}

// undo puts back what the last turn that wrote files changed, and tells
// the model so with the next input. The note is saved in the session at
// once, so that it reaches the model even if the next input comes in
// another run (-c, /load).
func (c *console) undo(context.Context, string) error {
	u := c.r.journal.Undo()
	if len(u.Done) == 0 && len(u.Kept) == 0 {
		fmt.Fprintln(c.out, "Nothing to undo: no turn changed a file with edit_file or write_file.")
		return nil
	}
	fmt.Fprintf(c.out, "Undid the file changes of turn %d:\n", u.Turn)
	for _, d := range u.Done {
		fmt.Fprintf(c.out, "  %s\n", d)
	}
	for _, k := range u.Kept {
		fmt.Fprintf(c.out, "  %s\n", c.st.Bad(k.Why))
	}
	var told []string
	told = append(told, u.Done...)
	for _, k := range u.Kept {
		if k.Changed {
			told = append(told, k.Name+" was left as it is, as it changed after that turn")
		} else {
			told = append(told, k.Name+" could not be put back")
		}
	}
	as := "Those files are as they were before that turn."
	if len(u.Kept) > 0 {
		as = "The files put back are as they were before that turn; the others are as they are now."
	}
	note := fmt.Sprintf("[The user undid the file changes of turn %d: %s. %s]", u.Turn, strings.Join(told, "; "), as)
	return c.r.addNote(c.agent.State().Turn, note)
}
