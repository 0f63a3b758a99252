package tools

import (
	"context"
	"slices"

	"harness/protocol"
)

// Described returns a tool whose arguments are described at run time, by
// spec, rather than by the fields of a struct: the tool of an MCP server,
// whose arguments its JSON Schema gives. run gets the arguments as
// protocol.Validate left them: strings, int64 for integers, json.Number
// for numbers, bools, []any and map[string]any. It returns the body of a
// SUCCESS result, or an error whose text is the body of an ERROR result.
func Described(spec protocol.ToolSpec, run func(ctx context.Context, args map[string]any) (string, error)) Tool {
	spec.Args = slices.Clone(spec.Args)
	return Tool{spec: spec, run: run}
}
