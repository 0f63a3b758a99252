package tools

import "harness/guard"

// readsWhen returns t knowing which of its calls only read: the result of
// such a call never says that the workspace changed (Result.Wrote), even
// though the tool may write. The turn report lists no change for it.
func readsWhen(reads func(args map[string]any) bool, t Tool) Tool {
	t.reads = reads
	return t
}

// commandReads reports the bash calls whose command line, as the guard
// reads it, only reads.
func commandReads(args map[string]any) bool {
	command, _ := args["command"].(string)
	return guard.ReadOnly(command)
}
