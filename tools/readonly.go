package tools

import (
	"context"

	"harness/guard"
	"harness/protocol"
)

// readsWhen returns t knowing which of its calls only read: the result of
// such a call never says that the workspace changed (Result.Wrote), even
// though the tool may write. The turn report lists no change for it.
func readsWhen(reads func(ctx context.Context, args map[string]any) bool, t Tool) Tool {
	t.reads = reads
	return t
}

// commandReads reports the bash calls whose command line, as the guard
// reads it, only reads: the line the call ran, parsed once, when ctx
// carries it (checkedLine).
func commandReads(ctx context.Context, args map[string]any) bool {
	command, _ := args["command"].(string)
	if line := checkedLine(ctx, command); line != nil {
		return line.ReadOnly()
	}
	return guard.ReadOnly(command)
}

// OnlyReads reports whether call is a call of bash whose command line, as
// the guard reads it, only reads (guard.ReadOnly): a helper that only
// reads may run it.
func OnlyReads(call protocol.Call) bool {
	command, ok := call.Args["command"].(string)
	return call.Name == bashName && ok && guard.ReadOnly(command)
}
