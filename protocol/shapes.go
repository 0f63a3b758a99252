package protocol

import (
	"errors"
	"fmt"
	"strings"
)

// The shapes of calls that other formats give, each read into the same
// Call as our own (see "Other shapes" in doc.go).

// tagged reads Hermes' and Qwen's <tool_call>...</tool_call>, whose
// content starts at offset off: JSON, or Qwen3-Coder's <function=...>.
func (r *Reader) tagged(x *text, i, off int, open, shape string) read {
	close := "</" + open[1:]
	if open == "<|tool_call|>" {
		close = "<|/tool_call|>"
	}
	var all read
	for {
		j := off
		for j < len(x.s) && strings.ContainsRune(" \t\r\n", rune(x.s[j])) {
			j++
		}
		var rd read
		if k := glmName(x.s[j:]); k > 0 && open == "<tool_call>" {
			rd = r.glm(x, x.line(j), j, k)
		} else if hasPrefixFold(x.s[j:], "<function=") {
			rd = r.function(x, x.line(j), j)
			for k := range rd.calls {
				rd.calls[k].call.Shape = "Qwen3-Coder <tool_call><function=...>"
			}
		} else {
			rd = r.values(x, i, off, shape, true)
		}
		all.calls = append(all.calls, rd.calls...)
		all.next, all.tail = rd.next, rd.tail
		if len(rd.calls) > 0 && rd.calls[len(rd.calls)-1].failed() {
			return all
		}
		tail := strings.TrimSpace(rd.tail)
		if tail == "" {
			// The closing tag on a line of its own, after blank ones.
			k := rd.next
			for k < len(x.lines) && strings.TrimSpace(x.lines[k]) == "" {
				k++
			}
			if k < len(x.lines) && hasPrefixFold(strings.TrimSpace(x.lines[k]), close) {
				tail = strings.TrimSpace(strings.TrimSpace(x.lines[k])[len(close):])
				all.next = k + 1
			} else {
				// A missing closing tag is forgiven: what the call holds
				// is complete.
				for c := range all.calls {
					all.calls[c].call.Repairs = appendNew(all.calls[c].call.Repairs, "a missing "+close)
				}
			}
		} else if hasPrefixFold(tail, close) {
			tail = strings.TrimSpace(tail[len(close):])
		}
		if hasPrefixFold(tail, open) {
			line := all.next - 1
			off = x.end(line) - len(tail) + len(open)
			i = line
			continue
		}
		all.tail = tail
		return all
	}
}

// glmName returns the length of the tool name that starts s when what
// follows it is GLM's first <arg_key> (or the end of the call), else 0.
func glmName(s string) int {
	n := 0
	for n < len(s) && (identByte(s, n) || s[n] == '-' || s[n] == '.') {
		n++
	}
	rest := strings.TrimLeft(s[n:], " \t\r\n")
	if n == 0 || !strings.HasPrefix(rest, "<arg_key>") && !strings.HasPrefix(rest, "</tool_call>") {
		return 0
	}
	return n
}

// glm reads GLM's call, whose name (n bytes) starts at offset off: NAME,
// then <arg_key>KEY</arg_key><arg_value>VALUE</arg_value> pairs.
func (r *Reader) glm(x *text, i, off, n int) read {
	const shape = "GLM <tool_call>NAME<arg_key>"
	s := x.s
	call := Call{Line: i + 1, Name: s[off : off+n], Args: map[string]any{}, Shape: shape}
	var order []string
	j := off + n
	for {
		j += len(s[j:]) - len(strings.TrimLeft(s[j:], " \t\r\n"))
		if !strings.HasPrefix(s[j:], "<arg_key>") {
			break
		}
		ke := strings.Index(s[j:], "</arg_key>")
		if ke < 0 {
			return r.failed(x, i, off, shape, "an <arg_key> is never closed by </arg_key>")
		}
		key := strings.TrimSpace(s[j+len("<arg_key>") : j+ke])
		j += ke + len("</arg_key>")
		j += len(s[j:]) - len(strings.TrimLeft(s[j:], " \t\r\n"))
		if !strings.HasPrefix(s[j:], "<arg_value>") {
			return r.failed(x, i, off, shape, fmt.Sprintf("the <arg_key>%s</arg_key> is not followed by its <arg_value>", key))
		}
		ve := strings.Index(s[j:], "</arg_value>")
		if ve < 0 {
			return r.failed(x, i, off, shape, "an <arg_value> is never closed by </arg_value>")
		}
		if _, dup := call.Args[key]; dup {
			return r.failed(x, i, off, shape, fmt.Sprintf("argument %q is given twice", key))
		}
		call.Args[key] = s[j+len("<arg_value>") : j+ve]
		order = append(order, key)
		j += ve + len("</arg_value>")
	}
	call.Text = strings.TrimSpace(s[off:j])
	li, tail := x.after(j)
	return read{calls: []pending{{call: call, order: order}}, next: li + 1, tail: tail}
}

// function reads <function=NAME> at offset off, on line i: Llama's, with
// its arguments as a JSON object, or Qwen3-Coder's, with one
// <parameter=KEY>VALUE</parameter> an argument; then </function>.
func (r *Reader) function(x *text, i, off int) read {
	const shape = "<function=NAME>"
	s := x.s
	gt := strings.IndexByte(s[off:], '>')
	nl := strings.IndexByte(s[off:], '\n')
	if gt < 0 || nl >= 0 && nl < gt {
		return r.failed(x, i, off, shape, "the <function= tag is not closed with >")
	}
	name := strings.Trim(s[off+len("<function="):off+gt], `"' `)
	j := off + gt + 1
	for j < len(s) && strings.ContainsRune(" \t\r\n", rune(s[j])) {
		j++
	}
	call := Call{Line: i + 1, Name: name, Args: map[string]any{}, Shape: "Llama <function=NAME>{...}"}
	var order []string
	if strings.HasPrefix(s[j:], "{") {
		v, end, repairs, err := r.json(x, j)
		if err != nil {
			c := r.unreadable(x, x.line(j), j, err, call.Shape)
			return read{calls: []pending{{call: c}}, next: x.next(end)}
		}
		o, ok := v.(*object)
		if !ok {
			return r.failed(x, i, off, call.Shape, "the arguments after <function=...> must be a JSON object")
		}
		if o.dup != "" {
			return r.failed(x, i, off, call.Shape, fmt.Sprintf("argument %q is given twice", o.dup))
		}
		for _, k := range o.keys {
			call.Args[k] = plain(o.vals[k])
		}
		order, call.Repairs, j = o.keys, repairs, end
	} else {
		call.Shape = "Qwen3-Coder <function=...><parameter=...>"
		for {
			for j < len(s) && strings.ContainsRune(" \t\r\n", rune(s[j])) {
				j++
			}
			if !hasPrefixFold(s[j:], "<parameter=") {
				break
			}
			gt := strings.IndexByte(s[j:], '>')
			cl := strings.Index(s[j:], "</parameter")
			var key string
			vs := 0
			switch {
			case cl >= 0 && (gt < 0 || cl < gt) && strings.Contains(s[j+len("<parameter="):j+cl], "="):
				// <parameter=KEY=VALUE</parameter>: the tag lost its >.
				key, _, _ = strings.Cut(s[j+len("<parameter="):j+cl], "=")
				vs = j + len("<parameter=") + len(key) + 1
				call.Repairs = appendNew(call.Repairs, "a <parameter= tag without its >")
			case gt < 0:
				return r.failed(x, i, off, call.Shape, "a <parameter= tag is not closed with >")
			default:
				key = s[j+len("<parameter=") : j+gt]
				vs = j + gt + 1
			}
			key = strings.Trim(key, `"' `)
			if key == "" || strings.ContainsAny(key, "<=>\n") {
				return r.failed(x, i, off, call.Shape, "a <parameter= tag is not closed with >")
			}
			ve := strings.Index(s[vs:], "</parameter")
			close := -1
			if ve >= 0 {
				close = strings.IndexByte(s[vs+ve:], '>')
			}
			if ve < 0 || close < 0 || strings.ContainsAny(s[vs+ve+2:vs+ve+close], " \n<") {
				// No </parameter>: the value ends where the next
				// parameter, the end of the function or the reply starts.
				ve = len(s) - vs
				for _, end := range []string{"<parameter=", "</function>", "</tool_call>"} {
					if k := strings.Index(s[vs:], end); k >= 0 && k < ve {
						ve = k
					}
				}
				if ve < len(s)-vs && !strings.HasPrefix(s[vs+ve:], "<parameter=") && len(order) == 0 && strings.Contains(s[vs:vs+ve], "</parameter") {
					return r.failed(x, i, off, call.Shape, fmt.Sprintf("the <parameter=%s> is never closed by </parameter>", key))
				}
				close = 0
				call.Repairs = appendNew(call.Repairs, "a missing </parameter>")
			}
			if close > 0 && close != len("</parameter") {
				call.Repairs = appendNew(call.Repairs, "a misspelt </parameter>")
			}
			val := s[vs : vs+ve]
			val = strings.TrimPrefix(strings.TrimPrefix(val, "\r"), "\n")
			val = strings.TrimSuffix(strings.TrimSuffix(val, "\n"), "\r")
			if !strings.Contains(val, "\n") {
				val = strings.TrimSpace(val) // <parameter=path> a.txt </parameter>
			}
			if _, dup := call.Args[key]; dup {
				return r.failed(x, i, off, call.Shape, fmt.Sprintf("argument %q is given twice", key))
			}
			call.Args[key] = val
			order = append(order, key)
			j = vs + ve
			if close > 0 {
				j += close + 1
			}
		}
	}
	for j < len(s) && strings.ContainsRune(" \t\r\n", rune(s[j])) {
		j++
	}
	if k := strings.Index(s[j:], "</function>"); k > 0 && strings.Trim(s[j:j+k], "\"'` \t\r\n") == "" {
		// A stray quote between the arguments and the closing tag.
		call.Repairs = appendNew(call.Repairs, "stray quotes before </function>")
		j += k
	}
	if hasPrefixFold(s[j:], "</function>") {
		j += len("</function>")
	} else if strings.TrimSpace(s[j:]) != "" && !hasPrefixFold(s[j:], "</tool_call>") {
		return r.failed(x, i, off, call.Shape, "expected </function> after the arguments")
	} else {
		call.Repairs = appendNew(call.Repairs, "a missing </function>")
	}
	call.Text = strings.TrimSpace(s[off:min(j, len(s))])
	li, tail := x.after(j)
	return read{calls: []pending{{call: call, order: order}}, next: li + 1, tail: tail}
}

// failed is a read of one malformed call of shape, starting at offset off
// of line i, that takes that line.
func (r *Reader) failed(x *text, i, off int, shape, reason string) read {
	call := Call{Line: i + 1, Text: strings.TrimSpace(x.s[off:x.end(i)]), Shape: shape,
		Err: &CallError{Line: i + 1, Reason: reason, Hint: `Write it as TOOL_CALL {"name":"TOOL","arguments":{...}} on one line`}}
	return read{calls: []pending{{call: call}}, next: i + 1}
}

// mistral reads what follows Mistral's [TOOL_CALLS]: a JSON array or
// object, or NAME[ARGS]{...}, maybe after a [CALL_ID].
func (r *Reader) mistral(x *text, i, off int) read {
	const shape = "Mistral [TOOL_CALLS]"
	var all read
	for {
		for off < len(x.s) && (x.s[off] == ' ' || x.s[off] == '\t' || strings.HasPrefix(x.s[off:], "▁")) {
			if x.s[off] == ' ' || x.s[off] == '\t' {
				off++
			} else {
				off += len("▁") // a tokenizer's space, left in the text
			}
		}
		if strings.HasPrefix(x.s[off:], "[") || strings.HasPrefix(x.s[off:], "{") {
			rd := r.values(x, i, off, shape, true)
			all.calls = append(all.calls, rd.calls...)
			all.next, all.tail = rd.next, rd.tail
		} else {
			n := off
			for n < len(x.s) && identByte(x.s, n) || n < len(x.s) && (x.s[n] == '-' || x.s[n] == '.') {
				n++
			}
			name := x.s[off:n]
			rest := x.s[n:]
			if strings.HasPrefix(rest, "[CALL_ID]") {
				k := strings.Index(rest, "[ARGS]")
				if k < 0 {
					return r.failed(x, i, off, shape, "[CALL_ID] is not followed by [ARGS]")
				}
				rest = rest[k:]
			}
			at := len(x.s) - len(rest) + len("[ARGS]")
			switch {
			case name != "" && strings.HasPrefix(rest, "[ARGS]"):
			case name != "" && strings.HasPrefix(rest, "{"):
				at = len(x.s) - len(rest) // NAME{...}, as some Mistral templates write
			default:
				return r.failed(x, i, off, shape, "[TOOL_CALLS] is followed neither by a JSON list of calls nor by NAME[ARGS]{...}")
			}
			v, end, repairs, err := r.json(x, at)
			if err != nil {
				return read{calls: []pending{{call: r.unreadable(x, x.line(at), at, err, shape)}}, next: x.next(end)}
			}
			o, ok := v.(*object)
			if !ok {
				return r.failed(x, i, off, shape, "the arguments after [ARGS] must be a JSON object")
			}
			call := Call{Line: i + 1, Name: name, Args: map[string]any{}, Shape: shape + " NAME[ARGS]", Repairs: repairs, Text: strings.TrimSpace(x.s[off:end])}
			for _, k := range o.keys {
				call.Args[k] = plain(o.vals[k])
			}
			if o.dup != "" {
				call.Err = &CallError{Line: i + 1, Reason: fmt.Sprintf("argument %q is given twice", o.dup)}
			}
			all.calls = append(all.calls, pending{call: call, order: o.keys})
			li, tail := x.after(end)
			all.next, all.tail = li+1, tail
		}
		tail := strings.TrimSpace(all.tail)
		if strings.HasPrefix(tail, "[TOOL_CALLS]") && !all.calls[len(all.calls)-1].failed() {
			off = x.end(all.next-1) - len(tail) + len("[TOOL_CALLS]")
			i = all.next - 1
			continue
		}
		return all
	}
}

// python reads calls written as Python: a list of them, [f(a=1), g()],
// as Llama 3.2 and 4 write, or one, as Gemma writes in a tool_code fence
// (maybe as print(default_api.f(a=1))). It reads nothing unless every
// function named is a tool's.
//
// After a token that marks a call (marked), a name that is no tool's is
// read too, as a call the model is then told is unknown.
func (r *Reader) python(x *text, i, off int, shape string, list, marked bool) (read, bool) {
	p := &pyReader{s: x.s, i: off}
	var calls []pending
	if list {
		if !strings.HasPrefix(x.s[off:], "[") {
			return read{}, false
		}
		p.i++
	}
	for {
		p.space()
		wrapped := false
		if strings.HasPrefix(p.s[p.i:], "print(") {
			p.i += len("print(")
			wrapped = true
		}
		p.i += len(prefixOf(p.s[p.i:], "default_api."))
		name := p.ident()
		builtin := strings.HasPrefix(p.s[p.i:], ".call(")
		if builtin {
			// Llama's built-in tools, NAME.call(...): a marker said a
			// call was meant, so the name is not needed to tell.
			p.i += len(".call")
		}
		if name == "" || !builtin && !marked && !r.known(name) || !strings.HasPrefix(p.s[p.i:], "(") {
			return read{}, false
		}
		start := p.i - len(name)
		call := Call{Line: x.line(start) + 1, Name: name, Args: map[string]any{}, Shape: shape}
		order, err := p.args(call.Args)
		if err == nil && wrapped {
			p.space()
			if !strings.HasPrefix(p.s[p.i:], ")") {
				err = errors.New("print( is not closed")
			} else {
				p.i++
			}
		}
		call.Text = strings.TrimSpace(p.s[start:min(p.i, len(p.s))])
		if err != nil {
			call.Err = &CallError{Line: call.Line, Reason: "the call cannot be read: " + err.Error(),
				Hint: `Write it as TOOL_CALL {"name":"` + name + `","arguments":{...}} on one line`}
			return read{calls: append(calls, pending{call: call}), next: x.next(p.i)}, true
		}
		call.Repairs = p.repairs
		calls = append(calls, pending{call: call, order: order})
		p.space()
		if list && strings.HasPrefix(p.s[p.i:], ",") {
			p.i++
			continue
		}
		if list {
			if !strings.HasPrefix(p.s[p.i:], "]") {
				return read{calls: []pending{{call: Call{Line: i + 1, Name: name, Shape: shape, Text: strings.TrimSpace(p.s[off:min(p.i, len(p.s))]),
					Err: &CallError{Line: i + 1, Reason: "the list of calls is not closed with ]", Hint: "Write each call as TOOL_CALL {\"name\":\"TOOL\",\"arguments\":{...}} on a line of its own"}}}}, next: x.next(p.i)}, true
			}
			p.i++
		}
		li, tail := x.after(p.i)
		return read{calls: calls, next: li + 1, tail: tail}, true
	}
}

func prefixOf(s, p string) string {
	if strings.HasPrefix(s, p) {
		return p
	}
	return ""
}

// pyReader reads Python call syntax: NAME(KEY=VALUE, ...), values being
// literals (strings, numbers, True, False, None, lists and dicts).
type pyReader struct {
	s       string
	i       int
	repairs []string
}

func (p *pyReader) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyReader) ident() string {
	start := p.i
	for p.i < len(p.s) && identByte(p.s, p.i) {
		p.i++
	}
	return p.s[start:p.i]
}

// args reads (KEY=VALUE, ...) into args and returns the keys in order.
// ({...}), one JSON object and nothing else, is read as the arguments.
func (p *pyReader) args(args map[string]any) ([]string, error) {
	p.i++ // (
	var order []string
	if p.space(); strings.HasPrefix(p.s[p.i:], "{") {
		l := &lenient{s: p.s, i: p.i}
		v, err := l.value()
		if err != nil {
			return nil, err
		}
		o, ok := v.(*object)
		if !ok || o.dup != "" {
			return nil, errors.New("the arguments in ({...}) are not one JSON object")
		}
		p.i = l.i
		if p.space(); !strings.HasPrefix(p.s[p.i:], ")") {
			return nil, errors.New("({...}) is not closed with )")
		}
		p.i++
		for _, k := range o.keys {
			args[k] = plain(o.vals[k])
		}
		p.repairs = append(p.repairs, l.repairs...)
		return o.keys, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, errors.New("the call is not closed with )")
		}
		if p.s[p.i] == ')' {
			p.i++
			return order, nil
		}
		key := p.ident()
		p.space()
		if key == "" || !strings.HasPrefix(p.s[p.i:], "=") {
			return nil, fmt.Errorf("expected an argument written as NAME=VALUE at %q", Clip(p.s[p.i:], 20))
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := args[key]; dup {
			return nil, fmt.Errorf("argument %q is given twice", key)
		}
		args[key] = v
		order = append(order, key)
		p.space()
		if strings.HasPrefix(p.s[p.i:], ",") {
			p.i++
		}
	}
}

func (p *pyReader) value() (any, error) {
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(p.s[p.i:], q) {
			end := strings.Index(p.s[p.i+3:], q)
			if end < 0 {
				return nil, errors.New("a string in triple quotes is never closed")
			}
			v := p.s[p.i+3 : p.i+3+end]
			p.i += 6 + end
			return v, nil
		}
	}
	l := &lenient{s: p.s, i: p.i}
	v, err := l.value()
	p.i = l.i
	if err != nil {
		return nil, err
	}
	for _, rep := range l.repairs {
		if rep != "single quotes" && !strings.HasPrefix(rep, "Python's") {
			p.repairs = appendNew(p.repairs, rep)
		}
	}
	return plain(v), nil
}

// attempt recognises the formats that are read only to be refused: the
// model meant a call, and is told how to write it (see "Attempts" in
// doc.go). It takes the lines up to the format's closing token.
func (r *Reader) attempt(x *text, i int, t string) (read, bool) {
	var format string
	var close []string
	switch {
	case strings.Contains(t, "tool▁call") || hasPrefixFold(t, "<|tool_calls_begin|>") || hasPrefixFold(t, "<|tool_call_begin|>"):
		format, close = "DeepSeek's tool-call markers", []string{"tool▁calls▁end"}
	case strings.Contains(t, "｜DSML｜"):
		format, close = "DeepSeek's DSML markup", []string{"</｜DSML｜function_calls>", "</｜DSML｜tool_calls>"}
	case hasPrefixFold(t, "functools["):
		format = "Phi-4's functools[...]"
	case strings.HasPrefix(t, "✿FUNCTION✿"):
		format, close = "Qwen-Agent's ✿FUNCTION✿", []string{"✿ARGS✿"}
	case hasPrefixFold(t, "<function_call>"):
		format, close = "<function_call>", []string{"</function_call>"}
	case hasPrefixFold(t, "<invoke"):
		format, close = "<invoke>", []string{"</invoke>"}
	case hasPrefixFold(t, "<function name="):
		format, close = "<function name=...>", []string{"</function>"}
	case hasPrefixFold(t, "<function-name>"):
		format, close = "<function-name>", []string{"</arguments>"}
	default:
		if r.names == nil || !strings.HasPrefix(t, "<") {
			return read{}, false
		}
		tag := t[1:]
		if k := strings.IndexAny(tag, "> "); k > 0 {
			tag = tag[:k]
		}
		if !r.known(tag) || !strings.HasPrefix(t, "<"+tag+">") {
			return read{}, false
		}
		format, close = "an XML tag named after the tool", []string{"</" + tag + ">"}
	}
	next := i + 1
	if len(close) > 0 {
	scan:
		for k := i; k < len(x.lines) && k < i+maxCallLines; k++ {
			for _, c := range close {
				if strings.Contains(x.lines[k], c) {
					next = k + 1
					break scan
				}
			}
		}
	}
	body := strings.Join(x.lines[i:next], "\n")
	call := Call{Line: i + 1, Text: strings.TrimSpace(body), Shape: format}
	ce := &CallError{Line: i + 1, Reason: fmt.Sprintf("the call is written in %s, which this harness does not read", format),
		Hint: `Write each call as TOOL_CALL {"name":"TOOL","arguments":{...}} on a line of its own`}
	if name, args, order := r.guess(strings.ReplaceAll(body, "｜DSML｜", ""), format); name != "" {
		call.Name = name
		ce.Hint = `Write it as TOOL_CALL {"name":"` + name + `","arguments":{...}} on a line of its own`
		if len(args) > 0 {
			ce.Hint, ce.Rewrite = "", Rewrite(name, args, order)
		}
	}
	call.Err = ce
	return read{calls: []pending{{call: call}}, next: next}, true
}

// guess finds, for the rewrite an attempt's error shows, the tool an
// attempt names and the arguments it gives, when it can.
func (r *Reader) guess(body, format string) (string, map[string]any, []string) {
	name := ""
	at := -1
	for n := range r.names {
		if k := strings.Index(body, n); k >= 0 && (at < 0 || k < at || k == at && len(n) > len(name)) {
			name, at = n, k
		}
	}
	if name == "" {
		return "", nil, nil
	}
	args := map[string]any{}
	var order []string
	if k := strings.IndexByte(body[at:], '{'); k >= 0 {
		if v, _, _, err := readLenient(body, at+k); err == nil {
			if o, ok := v.(*object); ok {
				if inner, ok := o.vals["arguments"].(*object); ok {
					o = inner
				}
				for _, key := range o.keys {
					args[key] = plain(o.vals[key])
				}
				return name, args, o.keys
			}
		}
	}
	// XML children: <path>a.txt</path>, or <parameter name="path">a.txt</parameter>.
	rest := body[at:]
	for {
		lt := strings.Index(rest, "<")
		if lt < 0 {
			break
		}
		rest = rest[lt+1:]
		gt := strings.IndexByte(rest, '>')
		if gt < 0 {
			break
		}
		tag := rest[:gt]
		key := tag
		for _, p := range []string{"parameter", "param"} {
			if strings.HasPrefix(tag, p+" name=") {
				key, _, _ = strings.Cut(tag[len(p+" name="):], " ")
				key = strings.Trim(key, `"'`)
				tag = p
				break
			}
		}
		if strings.HasPrefix(tag, "/") || strings.ContainsAny(key, " =/") || key == name {
			rest = rest[gt+1:]
			continue
		}
		end := strings.Index(rest[gt+1:], "</"+tag+">")
		if end < 0 {
			break
		}
		if _, dup := args[key]; !dup {
			args[key] = strings.Trim(rest[gt+1:gt+1+end], "\n")
			order = append(order, key)
		}
		rest = rest[gt+1+end:]
	}
	return name, args, order
}

// blocks reads the blocks of call's arguments, in the order written,
// from lines[from] on, and returns the index of the line after them. A
// block never closed makes the call malformed, and takes the rest of the
// reply.
func blocks(lines []string, from int, call *Call, order []string) int {
	end := from
	for _, key := range order {
		word, ok := blockWord(call.Args[key])
		if !ok {
			continue
		}
		body, next, ok := readBlock(lines, end, word)
		if !ok {
			call.Err = &CallError{Line: call.Line, Reason: fmt.Sprintf("the block for argument %q was never closed by a line %s", key, word),
				Hint: "End each block with a line that holds only its word"}
			return len(lines)
		}
		call.Args[key] = body
		end = next
	}
	return end
}

// afterText reads a call that starts with a special token after text on
// its line ("Let me look.<tool_call>{...}"): the text is text, and the
// call is read as if its token started the line. Only tokens no prose
// holds qualify, and only when what follows them is the start of a call.
func (r *Reader) afterText(x *text, i int, line, t string, inFence bool, info string) (read, bool) {
	for _, tok := range []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>"} {
		k := strings.Index(t, tok)
		if k <= 0 {
			continue
		}
		rest := strings.TrimLeft(t[k+len(tok):], " \t")
		if !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, "[") && !strings.HasPrefix(rest, "<function=") &&
			!(tok == "[TOOL_CALLS]" && strings.Contains(rest, "[ARGS]")) {
			continue
		}
		rd, ok := r.callAt(x, i, line, t[k:], inFence, info)
		if ok {
			rd.head = t[:k]
		}
		return rd, ok
	}
	return read{}, false
}

// gemma4 reads Gemma 4's call, after its <|tool_call> token at offset
// off: call:NAME{KEY:VALUE,...} with strings between <|"|> tokens, or
// call:NAME(KEY=VALUE, ...); then <tool_call|>.
func (r *Reader) gemma4(x *text, i, off int) read {
	const shape = "Gemma 4 <|tool_call>"
	s := x.s
	j := off
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if !strings.HasPrefix(s[j:], "call:") {
		return r.failed(x, i, off, shape, "<|tool_call> is not followed by call:NAME")
	}
	j += len("call:")
	p := &pyReader{s: s, i: j}
	name := p.ident()
	call := Call{Line: i + 1, Name: name, Args: map[string]any{}, Shape: shape}
	var order []string
	var err error
	switch {
	case strings.HasPrefix(s[p.i:], "("):
		order, err = p.args(call.Args)
		j = p.i
	case strings.HasPrefix(s[p.i:], "{"):
		order, j, err = gemmaArgs(s, p.i, call.Args)
	default:
		err = errors.New("call:NAME is followed neither by {...} nor by (...)")
	}
	if err != nil {
		return r.failed(x, i, off, shape, "the call cannot be read: "+err.Error())
	}
	j += len(prefixOf(s[j:], "<tool_call|>"))
	call.Text = strings.TrimSpace(s[off-len("<|tool_call>") : j])
	li, tail := x.after(j)
	return read{calls: []pending{{call: call, order: order}}, next: li + 1, tail: tail}
}

// gemmaArgs reads {KEY:VALUE,...} at offset i of s into args, a string
// VALUE written <|"|>...<|"|>, and returns the keys in order and the
// offset after the closing brace.
func gemmaArgs(s string, i int, args map[string]any) ([]string, int, error) {
	const q = `<|"|>`
	var order []string
	i++ // {
	for {
		for i < len(s) && strings.ContainsRune(" \t\r\n,", rune(s[i])) {
			i++
		}
		if i >= len(s) {
			return nil, i, errors.New("the arguments are not closed with }")
		}
		if s[i] == '}' {
			return order, i + 1, nil
		}
		p := &pyReader{s: s, i: i}
		key := p.ident()
		if key == "" || !strings.HasPrefix(s[p.i:], ":") {
			return nil, i, fmt.Errorf("expected KEY: at %q", Clip(s[i:], 20))
		}
		i = p.i + 1
		var v any
		if strings.HasPrefix(s[i:], q) {
			end := strings.Index(s[i+len(q):], q)
			if end < 0 {
				return nil, i, fmt.Errorf("the string of %q is never closed by %s", key, q)
			}
			v = s[i+len(q) : i+len(q)+end]
			i += 2*len(q) + end
		} else {
			l := &lenient{s: s, i: i}
			val, err := l.value()
			if err != nil {
				return nil, i, err
			}
			v, i = plain(val), l.i
		}
		if _, dup := args[key]; dup {
			return nil, i, fmt.Errorf("argument %q is given twice", key)
		}
		args[key] = v
		order = append(order, key)
	}
}

// harmony reads gpt-oss's call in its Harmony format, whose tool's name
// starts at offset off, after "to=functions.": the arguments follow
// <|message|> as a JSON object.
func (r *Reader) harmony(x *text, i, off int) (read, bool) {
	const shape = "gpt-oss Harmony to=functions.NAME"
	p := &pyReader{s: x.s, i: off}
	name := p.ident()
	msg := strings.Index(x.s[p.i:x.end(i)], "<|message|>")
	if name == "" || msg < 0 {
		return read{}, false
	}
	at := p.i + msg + len("<|message|>")
	v, end, repairs, err := r.json(x, at)
	if err != nil {
		return read{calls: []pending{{call: r.unreadable(x, i, at, err, shape)}}, next: x.next(end)}, true
	}
	o, ok := v.(*object)
	if !ok {
		return r.failed(x, i, at, shape, "the arguments after <|message|> must be a JSON object"), true
	}
	call := Call{Line: i + 1, Name: name, Args: map[string]any{}, Shape: shape, Repairs: repairs, Text: strings.TrimSpace(x.s[x.starts[i]:end])}
	for _, k := range o.keys {
		call.Args[k] = plain(o.vals[k])
	}
	if o.dup != "" {
		call.Err = &CallError{Line: i + 1, Reason: fmt.Sprintf("argument %q is given twice", o.dup)}
	}
	end += len(prefixOf(x.s[end:], "<|call|>"))
	li, tail := x.after(end)
	return read{calls: []pending{{call: call, order: o.keys}}, next: li + 1, tail: tail}, true
}

// react reads a ReAct call: a line "Action: NAME", then a line "Action
// Input: INPUT", INPUT a JSON object of arguments, or the value of the
// tool's one required argument.
func (r *Reader) react(x *text, i int, t string) (read, bool) {
	const shape = "ReAct Action/Action Input"
	// A tool's name has no backslash: \_ is Markdown's escape of _.
	name := strings.ReplaceAll(strings.Trim(strings.TrimSpace(t[len("Action:"):]), "`*\"'"), `\_`, "_")
	j := i + 1
	for j < len(x.lines) && strings.TrimSpace(x.lines[j]) == "" {
		j++
	}
	if j == len(x.lines) {
		return read{}, false
	}
	in := undress(strings.TrimSpace(x.lines[j]))
	if !hasPrefixFold(in, "Action Input:") {
		if strings.HasPrefix(in, "Observation:") && name != "" {
			// An action whose result the model wrote itself: an attempt,
			// whatever it names.
			return r.failed(x, i, x.starts[i], shape, "the Action line names no tool, and the Observation after it was written by the model"), true
		}
		return read{}, false
	}
	if name == "" || strings.ContainsAny(name, " \t") {
		return r.failed(x, i, x.starts[i], shape, "the Action line must name one tool, such as read_file, and nothing else"), true
	}
	input := strings.TrimSpace(in[len("Action Input:"):])
	call := Call{Line: i + 1, Name: name, Args: map[string]any{}, Shape: shape}
	var order []string
	next := j + 1
	if strings.HasPrefix(input, "{") {
		at := x.starts[j] + strings.Index(x.lines[j], input)
		v, end, repairs, err := r.json(x, at)
		if err != nil {
			return read{calls: []pending{{call: r.unreadable(x, j, at, err, shape)}}, next: x.next(end)}, true
		}
		o, ok := v.(*object)
		if !ok || o.dup != "" {
			return r.failed(x, j, at, shape, "Action Input must be one JSON object of the tool's arguments"), true
		}
		for _, k := range o.keys {
			call.Args[k] = plain(o.vals[k])
		}
		order, call.Repairs, next = o.keys, repairs, x.next(end)
	} else if spec, ok := find(r.specs, name); ok {
		var required []Arg
		for _, a := range spec.Args {
			if a.Required {
				required = append(required, a)
			}
		}
		if len(required) != 1 || required[0].Type != String {
			call.Err = &CallError{Line: i + 1, Reason: fmt.Sprintf("the Action Input of %s is not a JSON object of its arguments", name),
				Hint: `Write it as TOOL_CALL {"name":"` + name + `","arguments":{...}} on a line of its own`}
		} else {
			call.Args[required[0].Name] = unquote(input)
			order = []string{required[0].Name}
			call.Repairs = []string{"Action Input as the value of " + required[0].Name}
		}
	}
	call.Text = strings.TrimSpace(strings.Join(x.lines[i:min(next, len(x.lines))], "\n"))
	return read{calls: []pending{{call: call, order: order}}, next: next}, true
}

// unquote takes off the quotes around s, when it starts and ends with the
// same one.
func unquote(s string) string {
	if len(s) >= 2 && strings.ContainsRune("\"'`", rune(s[0])) && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
