package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrMalformed is wrapped by every error that makes a call unrunnable:
// bad JSON, an unterminated block, an unknown tool, a missing, unknown or
// mistyped argument.
var ErrMalformed = errors.New("malformed tool call")

// CallError says why a call cannot run. Line is the reply line where the
// call starts (0 when unknown); Hint lists what would have been valid.
type CallError struct {
	Line   int
	Reason string
	Hint   string
	// Rewrite, when not empty, is the call as it should have been
	// written: TOOL_CALL line and blocks.
	Rewrite string
	// json is set when the call's JSON could not be read as JSON: the
	// forgiving reading may yet read it.
	json bool
}

func (e *CallError) Error() string {
	msg := e.Reason
	if e.Line > 0 {
		msg = fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	if e.Hint != "" {
		msg += ". " + e.Hint
	}
	if e.Rewrite != "" {
		msg += ". Write it as: " + e.Rewrite
	}
	return msg
}

func (e *CallError) Unwrap() error { return ErrMalformed }

// Check reports whether call names one of specs and carries exactly the
// arguments that tool takes, each of the right type. Integers given as
// whole-valued JSON numbers are accepted; Check converts them to int64 so
// the tool need not.
func Check(specs []ToolSpec, call *Call) error {
	if call.Err != nil {
		return call.Err
	}
	spec, ok := find(specs, call.Name)
	if !ok {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		sort.Strings(names)
		reason := fmt.Sprintf("unknown tool %q", call.Name)
		if call.Name == "" {
			reason = `the call has no "name"`
		} else if near := nearest(names, call.Name); near != "" {
			reason += fmt.Sprintf(" (did you mean %s?)", near)
		}
		hint := "Valid tools: " + strings.Join(names, ", ")
		if len(names) == 0 {
			hint = "There are no tools here; answer in plain text"
		}
		return &CallError{Line: call.Line, Reason: reason, Hint: hint}
	}
	hint := "Arguments of " + spec.Name + ": " + spec.Arguments()
	var unknown []string
	for name := range call.Args {
		if _, ok := spec.Arg(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return &CallError{Line: call.Line, Reason: fmt.Sprintf("%s does not take argument %s", spec.Name, QuoteAll(unknown)), Hint: hint}
	}
	for _, a := range spec.Args {
		v, present := call.Args[a.Name]
		if present && v == nil && !a.Required {
			// null for an optional argument: the default.
			delete(call.Args, a.Name)
			call.Repairs = appendNew(call.Repairs, "null for an optional argument")
			present = false
		}
		if !present {
			if a.Required {
				return &CallError{Line: call.Line, Reason: fmt.Sprintf("%s needs argument %q", spec.Name, a.Name), Hint: hint}
			}
			continue
		}
		conv, ok := convert(a.Type, v)
		if !ok {
			conv, ok = fromString(a.Type, v)
			if ok {
				call.Repairs = appendNew(call.Repairs, fmt.Sprintf("%s given as a string", article(a.Type)))
			}
		}
		if !ok {
			return &CallError{Line: call.Line, Reason: fmt.Sprintf("argument %q of %s must be %s, not %s", a.Name, spec.Name, article(a.Type), describe(v)), Hint: hint}
		}
		call.Args[a.Name] = conv
	}
	return nil
}

// fromString reads an integer written as a string of digits ("20"), or a
// boolean written as "true" or "false": one reading only.
func fromString(t Type, v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	switch t {
	case Integer:
		digits := strings.TrimPrefix(s, "-")
		if digits == "" || len(digits) > 15 || strings.Trim(digits, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	case Boolean:
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return nil, false
}

func find(specs []ToolSpec, name string) (ToolSpec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return ToolSpec{}, false
}

func convert(t Type, v any) (any, bool) {
	switch t {
	case String:
		s, ok := v.(string)
		return s, ok
	case Boolean:
		b, ok := v.(bool)
		return b, ok
	case Integer:
		switch n := v.(type) {
		case int64:
			return n, true
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return i, true
			}
			f, err := n.Float64()
			if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, false
			}
			return int64(f), true
		}
	}
	return nil, false
}

// article is the type t with its article: "an integer", "a string".
func article(t Type) string {
	switch t {
	case Integer, Array, Object:
		return "an " + string(t)
	case Any:
		return "a JSON value"
	}
	return "a " + string(t)
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + v.String()
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// QuoteAll quotes each of names as Go quotes a string, and joins them
// with commas: how a message lists names that may hold any character.
func QuoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// nearest returns the name of names that name most likely misspells: the
// same in another letter case, or with hyphens, spaces or dots for
// underscores, or at most two letters apart (one, for a name of five
// letters or fewer). "" when none is.
func nearest(names []string, name string) string {
	norm := func(s string) string {
		return strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(strings.ToLower(s))
	}
	best, bestD := "", 3
	for _, n := range names {
		if norm(n) == norm(name) {
			return n
		}
		limit := 2
		if len(n) <= 5 {
			limit = 1
		}
		if d := distance(norm(n), norm(name)); d <= limit && d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the edit distance between a and b, by bytes: insertions,
// deletions and substitutions.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
