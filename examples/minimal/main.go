// Command minimal is a whole agent harness in one screen: a REPL that
// talks to a model served by Ollama, gives it one tool, read_file, and
// runs the tool when a reply calls it. It is the core of harness with
// everything else taken away (no approvals, sandbox, sessions, budgets or
// compaction), to read in one sitting:
//
//	go run ./examples/minimal -w . -model qwen2.5-coder:7b
//
// Each line you type is one turn. The loop sends the whole conversation
// to the model, reads the reply with protocol's reader, runs the calls it
// holds and sends their results back, step after step, until a reply
// calls nothing: that reply is the answer.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"harness/loop"
	"harness/ollama"
	"harness/protocol"
	"harness/tools"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}

// run is the program: flags, the parts, and the REPL.
func run(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	fs := flag.NewFlagSet("minimal", flag.ContinueOnError)
	fs.SetOutput(out)
	root := fs.String("w", ".", "the workspace: the folder the model may read")
	host := fs.String("host", os.Getenv("OLLAMA_HOST"), "the Ollama server (default OLLAMA_HOST, else 127.0.0.1:11434)")
	name := fs.String("model", "qwen2.5-coder:7b", "the model to talk to")
	if err := fs.Parse(args); err != nil {
		return err
	}

	// The world the model may see: one folder, through one tool.
	ws, err := tools.NewWorkspace(*root)
	if err != nil {
		return err
	}
	set, err := tools.NewSet(tools.ReadFile(ws))
	if err != nil {
		return err
	}

	// The model: an Ollama server, spoken to over HTTP.
	u, err := ollama.ParseHost(*host)
	if err != nil {
		return err
	}
	model := ollama.New(u, *name, ollama.Options{NumCtx: 8192})

	// The conversation: a system prompt built from the tools, and a loop
	// that owns the messages. The hook shows each call and its result.
	agent := loop.New(model, set, loop.Config{
		System: protocol.SystemPrompt(ws.Root(), set.Specs()),
	}, loop.Observe(func(e loop.Event) { show(out, e) }))

	fmt.Fprintf(out, "minimal: %s at %s, workspace %s; an empty line or Ctrl-D leaves\n", *name, u.Redacted(), ws.Root())
	lines := bufio.NewScanner(in)
	for {
		fmt.Fprint(out, "You: ")
		if !lines.Scan() || lines.Text() == "" {
			fmt.Fprintln(out)
			return lines.Err()
		}
		answer, err := agent.Turn(ctx, lines.Text())
		if err != nil {
			// A failed turn is reported; the conversation goes on.
			fmt.Fprintln(out, "error:", err)
			continue
		}
		fmt.Fprintln(out, "Assistant:", answer)
	}
}

// show prints the points of a turn a learner wants to see: each model
// call, and each tool call with the first line of what it returned.
func show(out io.Writer, e loop.Event) {
	switch e.Kind {
	case loop.StepStarted:
		fmt.Fprintf(out, "<step %d: %d messages to the model>\n", e.Step, len(e.Request.Messages))
	case loop.CallStarted:
		fmt.Fprintf(out, "tool-call: %s %v\n", e.Call.Name, e.Call.Args)
	case loop.CallEnded:
		status := "ok"
		if !e.Result.OK {
			status = "error"
		}
		fmt.Fprintf(out, "tool-%s: %s\n", status, firstLine(e.Result.Body))
	}
}

func firstLine(s string) string {
	first, rest, _ := strings.Cut(strings.TrimRight(s, "\n"), "\n")
	if rest != "" {
		first += " ..."
	}
	return first
}
