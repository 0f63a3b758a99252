package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// argKeys are the keys a call object may hold its arguments under, ours
// first: models trained on other formats write the others.
var argKeys = []string{"arguments", "parameters", "args", "input"}

// nameKeys are the keys a call object may name its tool with.
var nameKeys = []string{"name", "tool", "tool_name", "action"}

// callOf reads a call object that the forgiving JSON reader returned, in
// any of the dialects "Call objects" in doc.go lists. specs, when not nil,
// lets arguments written beside the name (no "arguments" key) be read as
// arguments when each is one of the named tool's.
func callOf(v any, specs []ToolSpec) (callObject, []string, error) {
	var obj callObject
	o, ok := v.(*object)
	if !ok {
		return obj, nil, fmt.Errorf("a call is a JSON object, not %s", describe(plain(v)))
	}
	var repairs []string
	if f, ok := o.get("function"); ok {
		if inner, ok := f.(*object); ok {
			// OpenAI's {"type":"function","function":{"name":...,"arguments":"..."}}.
			for _, k := range o.keys {
				if k != "function" && k != "type" && k != "id" {
					return obj, nil, fmt.Errorf("unexpected key %q beside \"function\"", k)
				}
			}
			repairs = append(repairs, `OpenAI's "function" object`)
			o = inner
		} else if s, ok := f.(string); ok && !has(o, "name") {
			o = renamed(o, "function", "name")
			repairs = append(repairs, fmt.Sprintf(`"function" for "name" (%s)`, s))
		}
	}
	if o.twice {
		return obj, nil, fmt.Errorf("the key %q is given twice", o.dup)
	}
	nameKey := ""
	for _, k := range nameKeys {
		if has(o, k) {
			nameKey = k
			break
		}
	}
	if nameKey != "" {
		s, ok := o.vals[nameKey].(string)
		if !ok {
			return obj, nil, fmt.Errorf("%q must be a string", nameKey)
		}
		obj.name = s
		if nameKey != "name" {
			repairs = append(repairs, fmt.Sprintf("%q for \"name\"", nameKey))
		}
	}
	argKey := ""
	for _, k := range argKeys {
		if has(o, k) {
			if argKey != "" {
				return obj, nil, fmt.Errorf("the call holds both %q and %q; give the arguments once, under \"arguments\"", argKey, k)
			}
			argKey = k
		}
	}
	var extra []string
	for _, k := range o.keys {
		switch {
		case k == nameKey || k == argKey:
		case k == "id":
			repairs = append(repairs, `"id" left out`)
		case k == "type" && o.vals[k] == "function":
			repairs = append(repairs, `"type" left out`)
		default:
			extra = append(extra, k)
		}
	}
	obj.args = map[string]any{}
	if len(extra) > 0 {
		spec, known := find(specs, obj.name)
		if argKey != "" || !known || slices.ContainsFunc(extra, func(k string) bool { _, ok := spec.Arg(k); return !ok }) {
			return obj, nil, fmt.Errorf(`unexpected key %q: a call holds "name" and "arguments", and the tool's arguments go inside "arguments"`, extra[0])
		}
		repairs = append(repairs, "arguments beside the name")
		for _, k := range extra {
			obj.args[k] = plain(o.vals[k])
			obj.order = append(obj.order, k)
		}
		return obj, repairs, nil
	}
	if argKey == "" {
		return obj, repairs, nil
	}
	if argKey != "arguments" {
		repairs = append(repairs, fmt.Sprintf("%q for \"arguments\"", argKey))
	}
	raw := o.vals[argKey]
	if s, ok := raw.(string); ok {
		v, end, more, err := readLenient(s, 0)
		if err != nil || strings.TrimSpace(s[end:]) != "" {
			return obj, nil, fmt.Errorf("%q is a string that does not hold a JSON object; give the arguments as an object", argKey)
		}
		raw = v
		repairs = append(repairs, fmt.Sprintf("%q given as a JSON string", argKey))
		repairs = append(repairs, more...)
	}
	switch a := raw.(type) {
	case nil:
	case *object:
		if a.twice {
			return obj, nil, fmt.Errorf("argument %q is given twice", a.dup)
		}
		for _, k := range a.keys {
			obj.args[k] = plain(a.vals[k])
		}
		obj.order = a.keys
	default:
		return obj, nil, fmt.Errorf("%q must be a JSON object", argKey)
	}
	return obj, repairs, nil
}

func has(o *object, key string) bool { _, ok := o.vals[key]; return ok }

// renamed returns o with key from called to.
func renamed(o *object, from, to string) *object {
	n := &object{vals: map[string]any{}, twice: o.twice, dup: o.dup}
	for _, k := range o.keys {
		nk := k
		if k == from {
			nk = to
		}
		n.keys = append(n.keys, nk)
		n.vals[nk] = o.vals[k]
	}
	return n
}

// Rewrite writes a call of name with args, in order (other arguments after
// them, sorted), in the documented format: one TOOL_CALL line, each
// string argument that holds a line break or a quote sent as a block after
// it. It is what an ERROR result shows a model whose call could not be
// read as it wrote it.
func Rewrite(name string, args map[string]any, order []string) string {
	keys := slices.Clone(order)
	var rest []string
	for k := range args {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	keys = append(keys, rest...)
	var b, blocks strings.Builder
	b.WriteString(`TOOL_CALL {"name":` + compact(name) + `,"arguments":{`)
	words := []string{"EOF", "OLD", "NEW", "TEXT"}
	used, n := 0, 0
	for _, k := range keys {
		v, ok := args[k]
		if !ok {
			continue
		}
		if n++; n > 1 {
			b.WriteByte(',')
		}
		b.WriteString(compact(k))
		b.WriteByte(':')
		if s, ok := v.(string); ok && strings.ContainsAny(s, "\n\"") {
			word := fmt.Sprintf("EOF%d", used)
			if used < len(words) {
				word = words[used]
			}
			used++
			b.WriteString(`"<<` + word + `"`)
			blocks.WriteString(s)
			if !strings.HasSuffix(s, "\n") {
				blocks.WriteByte('\n')
			}
			blocks.WriteString(word + "\n")
			continue
		}
		b.WriteString(compact(v))
	}
	b.WriteString("}}")
	if blocks.Len() > 0 {
		b.WriteByte('\n')
		b.WriteString(strings.TrimSuffix(blocks.String(), "\n"))
	}
	return b.String()
}

// compact is v as compact JSON, with <, > and & as they are.
func compact(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `"..."`
	}
	return strings.TrimSuffix(b.String(), "\n")
}
