package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"harness/protocol"
)

// maxDescription bounds a description as the prompt carries it, in bytes.
const maxDescription = 600

// args reads the arguments of a tool from its input schema, as the SDK
// decodes it (a map, from JSON).
func args(schema any) []protocol.Arg {
	obj, _ := asMap(schema)
	props, _ := asMap(obj["properties"])
	var required []string
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok && props[name] != nil && !slices.Contains(required, name) {
				required = append(required, name)
			}
		}
	}
	var rest []string
	for name := range props {
		if !slices.Contains(required, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	var out []protocol.Arg
	for _, name := range append(required, rest...) {
		prop, _ := asMap(props[name])
		out = append(out, protocol.Arg{
			Name:        name,
			Type:        typeOf(prop),
			Required:    slices.Contains(required, name),
			Description: describe(prop),
		})
	}
	return out
}

func asMap(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// typeOf is the protocol type of a property: its JSON type, the one type
// other than "null" of a list, the type its enum's values share, or Any.
func typeOf(prop map[string]any) protocol.Type {
	var types []string
	switch t := prop["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 && !slices.ContainsFunc(enum, func(v any) bool { _, ok := v.(string); return !ok }) {
			return protocol.String
		}
		return protocol.Any
	}
	if len(types) > 1 {
		return protocol.Any
	}
	switch t := protocol.Type(types[0]); t {
	case protocol.String, protocol.Integer, protocol.Boolean, protocol.Number, protocol.Array, protocol.Object:
		return t
	}
	return protocol.Any
}

// describe is a property's description with what else the schema says of
// it that the model needs: its values, its items' type, its default.
func describe(prop map[string]any) string {
	parts := []string{}
	if d, ok := prop["description"].(string); ok && fold(d) != "" {
		parts = append(parts, fold(d))
	}
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = compact(v)
		}
		parts = append(parts, "one of "+strings.Join(vals, ", "))
	}
	if items, ok := asMap(prop["items"]); ok {
		if t := typeOf(items); t != protocol.Any {
			parts = append(parts, "items: "+string(t))
		}
	}
	if def, ok := prop["default"]; ok {
		parts = append(parts, "default "+compact(def))
	}
	return cut(strings.Join(parts, "; "))
}

// compact is v as compact JSON.
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// fold turns every run of white space in s, newlines included, into one
// space, and drops the characters that act on a terminal or turn text
// around (controls, bidi marks): what a server says is shown, and never
// acts.
func fold(s string) string { return strings.Join(strings.Fields(strings.Map(inert, s)), " ") }

// inert is r, or -1, to drop it, when it is a control character or a
// bidi mark; white space stays, for fold to squeeze.
func inert(r rune) rune {
	if !unicode.IsSpace(r) && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
		return -1
	}
	return r
}

// cut shortens s to maxDescription bytes, at a character's start.
func cut(s string) string {
	if len(s) <= maxDescription {
		return s
	}
	i := maxDescription
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
