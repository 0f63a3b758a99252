package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Validate is Check for every Type: it also takes the arguments of type
// Number, Array, Object and Any that the tools of MCP servers have. A call
// of a tool whose arguments are all strings, integers and booleans is
// Check's alone. Otherwise the other arguments are Check's, and those of
// the wider types are checked here, in the order of the spec: a missing
// required one, or one of the wrong JSON type, is a *CallError that lists
// the tool's arguments, as Check's are. A Number stays a json.Number, an
// Array a []any, an Object a map[string]any.
func Validate(specs []ToolSpec, call *Call) error {
	i := slices.IndexFunc(specs, func(s ToolSpec) bool { return s.Name == call.Name })
	if call.Err != nil || i < 0 || !slices.ContainsFunc(specs[i].Args, wide) {
		return Check(specs, call)
	}
	spec := specs[i]
	narrow := spec
	narrow.Args = slices.DeleteFunc(slices.Clone(spec.Args), wide)
	held := make(map[string]any)
	for _, a := range spec.Args {
		if v, ok := call.Args[a.Name]; ok && wide(a) {
			held[a.Name] = v
			delete(call.Args, a.Name)
		}
	}
	err := Check([]ToolSpec{narrow}, call)
	for name, v := range held {
		if call.Args == nil {
			call.Args = make(map[string]any)
		}
		call.Args[name] = v
	}
	hint := "Arguments of " + spec.Name + ": " + spec.Arguments()
	if ce, ok := err.(*CallError); ok {
		ce.Hint = hint
		return ce
	}
	if err != nil {
		return err
	}
	for _, a := range spec.Args {
		if !wide(a) {
			continue
		}
		v, present := call.Args[a.Name]
		if !present {
			if a.Required {
				return &CallError{Line: call.Line, Reason: fmt.Sprintf("%s needs argument %q", spec.Name, a.Name), Hint: hint}
			}
			continue
		}
		if !fits(a.Type, v) {
			return &CallError{Line: call.Line, Reason: fmt.Sprintf("argument %q of %s must be %s, not %s", a.Name, spec.Name, article(a.Type), describe(v)), Hint: hint}
		}
	}
	return nil
}

// wide reports whether a is of a type Check does not know.
func wide(a Arg) bool {
	switch a.Type {
	case Number, Array, Object, Any:
		return true
	}
	return false
}

// fits reports whether v, as the parser decoded it, is a value of type t.
func fits(t Type, v any) bool {
	switch t {
	case Number:
		switch n := v.(type) {
		case json.Number:
			_, err := n.Float64()
			return err == nil
		case int64, float64:
			return true
		}
		return false
	case Array:
		_, ok := v.([]any)
		return ok
	case Object:
		_, ok := v.(map[string]any)
		return ok
	}
	return true // Any
}
