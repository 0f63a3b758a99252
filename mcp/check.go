package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"harness/protocol"
)

// Check checks a call of a server's tool against the tool's whole input
// schema, for the approval gate to run before anyone is asked: the error
// is the ERROR result the model reads, the same teaching error as a call
// whose argument has the wrong type gets, and the server is never called.
// Calls of other tools are not its business: it returns nil.
func (ss *Servers) Check(_ context.Context, call protocol.Call) error {
	if ss == nil {
		return nil
	}
	for _, c := range ss.clients {
		v, ok := c.resolved[call.Name]
		if !ok {
			continue
		}
		instance, err := normal(call.Args)
		if err == nil {
			err = v.validate(instance)
		}
		if err == nil {
			return nil
		}
		i := slices.IndexFunc(c.status.Tools, func(s protocol.ToolSpec) bool { return s.Name == call.Name })
		reason := fmt.Sprintf("the arguments do not fit the input schema of %s: %s", call.Name, cut(fold(err.Error())))
		ce := &protocol.CallError{Reason: reason, Hint: "Arguments of " + call.Name + ": " + c.status.Tools[i].Arguments()}
		return errors.New(protocol.Rejected(call, ce).Body)
	}
	return nil
}

// normal is args as JSON decodes them, which is what the validator reads.
func normal(args map[string]any) (any, error) {
	if args == nil {
		args = map[string]any{}
	}
	data, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var v any
	err = json.Unmarshal(data, &v)
	return v, err
}

// Subject is what the approval question shows of a call of a server's
// tool: its arguments as one line of JSON, or, when a string argument
// holds several lines, one line "name: value" an argument with each value
// whole, so that no line of it is hidden. It is "" for calls of other
// tools.
func (ss *Servers) Subject(call protocol.Call) string {
	if !ss.has(call.Name) {
		return ""
	}
	multi := false
	for _, v := range call.Args {
		if s, ok := v.(string); ok && strings.Contains(s, "\n") {
			multi = true
		}
	}
	if !multi {
		if len(call.Args) == 0 {
			return "{}"
		}
		b, err := json.Marshal(call.Args)
		if err != nil {
			return fmt.Sprint(call.Args)
		}
		return string(b)
	}
	names := make([]string, 0, len(call.Args))
	for k := range call.Args {
		names = append(names, k)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		v := call.Args[k]
		if s, ok := v.(string); ok {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.TrimSuffix(s, "\n"))
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", k, compact(v))
	}
	return b.String()
}

// has reports whether name is a tool of one of the servers.
func (ss *Servers) has(name string) bool {
	if ss == nil {
		return false
	}
	for _, c := range ss.clients {
		if _, ok := c.resolved[name]; ok {
			return true
		}
	}
	return false
}
