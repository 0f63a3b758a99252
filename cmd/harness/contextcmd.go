package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"harness/chat"
	"harness/plural"
	"harness/protocol"
	"harness/sandbox"
	"harness/session"
	"harness/tools"
	"harness/view"
	"harness/window"
	"harness/xdg"
)

// contextCmd shows what a saved conversation holds of its context window,
// as the REPL's /context shows it for the conversation in progress.
type contextCmd struct {
	Session   string `arg:"" optional:"" placeholder:"ID|NAME" help:"The session, by id or by the name /save gave it (default: this workspace's latest)."`
	Workspace string `short:"w" default:"." placeholder:"DIR" help:"The workspace whose session it is."`
	NumCtx    int    `placeholder:"N" help:"Context window in tokens (default: the num_ctx the session sent, which only an ollama provider does, else 16384)."`
	MaxTokens int    `placeholder:"N" help:"Tokens kept free for the reply (default: the session's reply limit, else an eighth of the window)."`
}

// Run finds the session, as --resume or -c would, and writes its
// breakdown: what it holds by part, the free space, the reply's reserve
// and where compaction begins. It reads the session and changes nothing.
func (c *contextCmd) Run(std stdio, dirs xdg.Dirs) error {
	ws, err := tools.NewWorkspace(c.Workspace)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	sv, err := c.load(dirs, ws.Root())
	if err != nil {
		return err
	}
	size := defaultWindow
	if n, ok := sv.Start.IntOption(protocol.NumCtx); ok {
		size = n
	}
	if c.NumCtx > 0 {
		size = c.NumCtx
	}
	reserve, _ := sv.Start.IntOption(protocol.NumPredict)
	if c.MaxTokens > 0 {
		reserve = c.MaxTokens
	}
	if reserve >= size {
		return &exitCodeError{code: exitUsage, err: fmt.Errorf("a reply limit of %d tokens leaves no room in a window of %d: give --num-ctx or --max-tokens", reserve, size)}
	}
	name := sv.ID()
	if sv.Start.Name != "" {
		name += " (" + sv.Start.Name + ")"
	}
	fmt.Fprintf(std.out, "session %s: %s, %s; %s model %s\n", name, plural.Count(sv.State.Turn, "turn"), plural.Count(len(sv.State.Messages), "message"), sv.Start.Backend, sv.Model)
	v := &view.Window{Compact: window.New(window.Config{Reserve: reserve}), Size: size}
	return v.Show(std.out, sv.State, savedInstructions(sv))
}

// load reads the session c names in the workspace root: its latest when
// it names none.
func (c *contextCmd) load(dirs xdg.Dirs, root string) (*session.Saved, error) {
	dir, err := chat.SessionDir(dirs)
	if err != nil {
		return nil, err
	}
	none := &exitCodeError{code: exitUsage, err: fmt.Errorf("%w of %s (harness sessions --all lists every workspace's)", session.ErrNotFound, root)}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, none
	}
	store, err := session.Open(dir)
	if err != nil {
		return nil, err
	}
	var info session.Info
	if c.Session == "" {
		info, err = store.Latest(root)
	} else {
		info, err = store.Find(root, c.Session)
	}
	switch {
	case errors.Is(err, session.ErrNotFound) && c.Session == "":
		return nil, none
	case errors.Is(err, session.ErrNotFound):
		return nil, &exitCodeError{code: exitUsage, err: err}
	case err != nil:
		return nil, err
	}
	return store.Load(info.ID)
}

// savedInstructions is the text the project instructions added to a saved
// session's system prompt: what follows the prompt the protocol builds
// for its workspace and the tools it was started with. It is "" when the
// workspace is gone, or the prompt begins otherwise (the tools or the
// harness changed): the instructions then count as system prompt.
func savedInstructions(sv *session.Saved) string {
	list := strings.Join(sv.Start.Tools, ",")
	w := &workspaceFlags{Workspace: sv.Start.Workspace, Tools: &list}
	tb, err := w.tools(&safetyFlags{Sandbox: string(sandbox.None)}, nil, nil)
	if err != nil {
		return ""
	}
	specs, err := w.specs(tb)
	if err != nil {
		return ""
	}
	return chat.InstructionsIn(sv.State.Messages[0].Content, protocol.SystemPrompt(tb.ws.Root(), w.mainSpecs(specs)))
}
