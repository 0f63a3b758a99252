package protocol

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Reader reads replies for one set of tools. What it knows of the tools
// decides the shapes that need a tool's name to be told from prose: a bare
// JSON object, a Python call, an XML tag named after a tool (see "Other
// shapes" in doc.go). Its zero value knows no tool and reads only the
// shapes that carry a marker of their own.
type Reader struct {
	specs []ToolSpec
	names map[string]bool
	// lines reads the line grammar alone: our marker, exactly as
	// documented, and nothing it does not say. It is what a Stream shows
	// while a reply arrives.
	lines bool
}

// NewReader returns a Reader for the tools specs describes.
func NewReader(specs []ToolSpec) *Reader {
	r := &Reader{specs: slices.Clone(specs), names: map[string]bool{}}
	for _, s := range specs {
		r.names[s.Name] = true
	}
	return r
}

// Parse reads a reply with a Reader that knows no tool.
func Parse(reply string) Parsed { return (&Reader{}).Parse(reply) }

// ParseLines reads a reply with the line grammar alone: our marker, as
// documented, and none of the other shapes, repairs or examples; and it
// stops at a line that may start a call of another format (otherShape),
// as it stops at a forged result. It is what a Stream shows while a reply
// arrives; the whole reply is then read by a Reader.
func ParseLines(reply string) Parsed { return (&Reader{lines: true}).Parse(reply) }

func (r *Reader) known(name string) bool { return r.names[name] }

// text is a reply as lines, with where each begins in it.
type text struct {
	s      string
	lines  []string
	starts []int
	// guess is how many more bytes may be read to tell whether a line
	// that starts like JSON is a call (bare): every such line may read
	// up to maxCallLines, and a reply of nothing but such lines must not
	// cost as many times its length.
	guess int
}

func newText(s string) *text {
	x := &text{s: s, lines: strings.Split(s, "\n"), guess: 8*len(s) + 1<<16}
	x.starts = make([]int, len(x.lines))
	off := 0
	for i, l := range x.lines {
		x.starts[i] = off
		off += len(l) + 1
	}
	return x
}

// line returns the index of the line that holds offset off.
func (x *text) line(off int) int {
	return sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }) - 1
}

// after returns, for an offset where something ended, the index of the
// line it ended on and the text after it on that line.
func (x *text) after(off int) (int, string) {
	if off >= len(x.s) {
		return len(x.lines) - 1, ""
	}
	li := x.line(off)
	return li, x.s[off:x.end(li)]
}

// next returns the index of the line after the one offset off is on.
func (x *text) next(off int) int {
	li, _ := x.after(off)
	return li + 1
}

// end returns the offset of the end of line i, before its newline.
func (x *text) end(i int) int { return x.starts[i] + len(x.lines[i]) }

// read is what a shape found at a line: its calls, each with the argument
// names in the order written (for blocks), the index of the line after
// the last it took, and text left on that line after the call.
type read struct {
	calls []pending
	next  int
	tail  string
	head  string // text before the call on its first line
}

type pending struct {
	call  Call
	order []string
}

type textLine struct {
	at   int
	line string
}

// Parse reads a reply. It never fails: what cannot be understood becomes a
// call with Err set, and everything else is text.
func (r *Reader) Parse(reply string) Parsed {
	x := newText(thoughtFirst(reply))
	lines := x.lines
	var p Parsed
	var kept []textLine
	var spans []callSpan
	cut := len(lines)
	thinking := false
	fenceAt, fenceInfo := -1, ""
	afterCall := -1 // the line after the last call, while only blank lines follow it
	for i := 0; i < len(lines); i++ {
		// Thinking is taken out of the lines read here, never out of the
		// lines a call reads as its block: a block is taken verbatim.
		line := lines[i]
		line, thinking = unthink(line, thinking)
		t := unquoteInline(strings.TrimSpace(strings.TrimSuffix(line, "\r")))
		if r.forged(t) || !r.lines && fenceAt < 0 && afterCall == i && outputFence(t) {
			p.Forged = i + 1
			cut = i
			break
		}
		if r.lines && otherShape(t) {
			break
		}
		if rd, ok := r.callAt(x, i, line, t, fenceAt >= 0, fenceInfo); ok {
			next := rd.next
			for _, pc := range rd.calls {
				call := pc.call
				if call.Err == nil {
					next = blocks(lines, next, &call, pc.order)
				}
				p.Calls = append(p.Calls, call)
				spans = append(spans, callSpan{from: i, to: next, fence: fenceAt})
				if call.Err != nil && next == len(lines) {
					break
				}
			}
			if head := strings.TrimSpace(rd.head); head != "" {
				kept = append(kept, textLine{at: i, line: head})
			}
			if tail := strings.TrimSpace(rd.tail); tail != "" {
				kept = append(kept, textLine{at: rd.next - 1, line: tail})
				if c := &p.Calls[len(p.Calls)-1]; c.Err == nil {
					c.Repairs = appendNew(c.Repairs, "text after the call")
				}
			}
			i = next - 1
			afterCall = next
			continue
		}
		if t == "" && afterCall == i {
			afterCall = i + 1
		}
		if fence(t) {
			if fenceAt < 0 {
				fenceAt, fenceInfo = i, strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`")))
			} else {
				fenceAt, fenceInfo = -1, ""
			}
		}
		kept = append(kept, textLine{at: i, line: strings.TrimRight(line, " \t\r")})
	}
	if !r.lines {
		p.Calls, kept, p.Examples = examples(lines, p.Calls, spans, kept)
	}
	text := make([]string, len(kept))
	for i, k := range kept {
		text[i] = k.line
	}
	p.Text = strings.TrimSpace(strings.Join(dropEmptyFences(text), "\n"))
	p.Content = reply
	if p.Forged > 0 {
		p.Content = strings.TrimRight(firstLines(reply, cut), " \t\r\n")
	}
	return p
}

// otherShape reports whether t, a trimmed line, may start a call of
// another format than ours, by a token or tag no prose starts a line
// with: what a Stream holds back until the reply is whole.
func otherShape(t string) bool {
	if _, ok := dressedMarker(t); ok && !isCall(t) {
		return true
	}
	for _, p := range []string{"<tool_call", "<tools>", "<|", "[TOOL_CALLS]", "<function", "<invoke", "functools[", "✿FUNCTION✿"} {
		if hasPrefixFold(t, p) {
			return true
		}
	}
	for _, tok := range []string{"<tool_call>", "[TOOL_CALLS]", "<|python_tag|>", "to=functions.", "tool▁call"} {
		if strings.Contains(t, tok) {
			return true
		}
	}
	return false
}

// callSpan is where a call stood: its lines, and the fence around it (-1
// when none).
type callSpan struct{ from, to, fence int }

// examples takes out the calls shown as examples: those inside a fence
// with text both before the fence and after its end. Their lines go back
// into the text, and the lines where they start are returned.
func examples(lines []string, calls []Call, spans []callSpan, kept []textLine) ([]Call, []textLine, []int) {
	// The first and last lines of text that are neither blank nor fences.
	first, last := -1, -1
	for _, k := range kept {
		if strings.TrimSpace(k.line) == "" || fence(k.line) {
			continue
		}
		if first < 0 {
			first = k.at
		}
		last = k.at
	}
	ex := map[int]bool{} // by fence: whether it is an example
	for _, s := range spans {
		if _, decided := ex[s.fence]; s.fence < 0 || decided {
			continue
		}
		ex[s.fence] = first >= 0 && first < s.fence && last > fenceEnd(lines, s.to)
	}
	if !slices.Contains(slices.Collect(maps.Values(ex)), true) {
		return calls, kept, nil
	}
	var out []Call
	var lines0 []int
	back := map[int]bool{}
	for i, c := range calls {
		s := spans[i]
		if !ex[s.fence] {
			out = append(out, c)
			continue
		}
		lines0 = append(lines0, c.Line)
		for j := s.from; j < s.to; j++ {
			back[j] = true
		}
	}
	for _, k := range kept {
		delete(back, k.at)
	}
	for j := range back {
		kept = append(kept, textLine{at: j, line: strings.TrimRight(lines[j], " \t\r")})
	}
	slices.SortStableFunc(kept, func(a, b textLine) int { return a.at - b.at })
	return out, kept, lines0
}

// fenceEnd returns the index of the fence line that closes a fence whose
// calls end before line from, or the last line.
func fenceEnd(lines []string, from int) int {
	for j := from; j < len(lines); j++ {
		if fence(lines[j]) {
			return j
		}
	}
	return len(lines) - 1
}

// forged reports whether t, a trimmed line, is a result the model wrote:
// TOOL_RESULT in any dress, an Observation: line, a <tool_response> tag.
func (r *Reader) forged(t string) bool {
	if strings.HasPrefix(t, resultPrefix) {
		return true
	}
	if r.lines {
		return false
	}
	u := strings.TrimLeft(undress(t), "*_[<(`")
	if len(u) >= len(resultPrefix) && strings.EqualFold(u[:len(resultPrefix)], resultPrefix) {
		return true
	}
	return strings.HasPrefix(t, "Observation:") || hasPrefixFold(t, "<tool_response>") ||
		hasPrefixFold(t, "<tool_result>")
}

// outputFence reports whether t opens a fence for a command's output: one
// written right after a call holds what the model expects it to return.
func outputFence(t string) bool {
	if !strings.HasPrefix(t, "```") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`"))) {
	case "", "output", "text", "console", "result", "tool_output", "stdout", "plaintext":
		return true
	}
	return false
}

// undress takes off what goes before a line's first word in Markdown: a
// quote, a list bullet or number.
func undress(t string) string {
	t = strings.TrimSpace(strings.TrimLeft(t, ">"))
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "+ "), strings.HasPrefix(t, "• "):
		return strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:])
	case strings.HasPrefix(t, "* ") && !strings.HasPrefix(t, "**"):
		return strings.TrimSpace(t[2:])
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && (t[i+1] == ' ' || t[i+1] == '\t') {
		return strings.TrimSpace(t[i+2:])
	}
	return t
}

// dressedMarker reads a near miss of our marker: any case, a plural, a
// colon, Markdown emphasis, brackets, a bullet before it. It returns what
// follows the marker when that is nothing or a JSON object or array.
func dressedMarker(t string) (string, bool) {
	s := strings.TrimLeft(undress(t), "*_[<(`")
	if len(s) < len(callPrefix) || !strings.EqualFold(s[:len(callPrefix)], callPrefix) {
		return "", false
	}
	s = s[len(callPrefix):]
	if s != "" && (s[0] == 'S' || s[0] == 's') {
		s = s[1:]
	}
	if s != "" && !strings.ContainsRune("*_]>)`: \t{[", rune(s[0])) {
		return "", false
	}
	s = strings.TrimLeft(s, "*_]>)`: \t")
	if s == "" || s[0] == '{' || s[0] == '[' {
		return s, true
	}
	return "", false
}

// callAt reads the call that starts on line i, whose text with thinking
// taken out is line and trimmed t, if one does.
func (r *Reader) callAt(x *text, i int, line, t string, inFence bool, info string) (read, bool) {
	if isCall(t) {
		return r.marked(x, i, t)
	}
	if r.lines || t == "" {
		return read{}, false
	}
	// end is where t ends in the reply: a suffix of t, rest, starts at
	// end-len(rest).
	end := x.starts[i] + strings.Index(line, t) + len(t)
	if rd, ok := r.afterText(x, i, line, t, inFence, info); ok {
		return rd, true
	}
	switch {
	case strings.HasPrefix(t, "<|tool_call>"):
		return r.gemma4(x, i, end-len(t[len("<|tool_call>"):])), true
	case strings.Contains(t, "to=functions."):
		if rd, ok := r.harmony(x, i, end-len(t[strings.Index(t, "to=functions.")+len("to=functions."):])); ok {
			return rd, true
		}
	case hasPrefixFold(undress(t), "Action:"):
		if rd, ok := r.react(x, i, undress(t)); ok {
			return rd, true
		}
	case hasPrefixFold(t, "<tool_call>"):
		return r.tagged(x, i, end-len(t[len("<tool_call>"):]), "<tool_call>", "Hermes <tool_call>"), true
	case hasPrefixFold(t, "<tools>"):
		return r.tagged(x, i, end-len(t[len("<tools>"):]), "<tools>", "<tools>"), true
	case strings.HasPrefix(t, "<|tool_call|>"):
		return r.tagged(x, i, end-len(t[len("<|tool_call|>"):]), "<|tool_call|>", "<|tool_call|>"), true
	case strings.HasPrefix(t, "<|tool_call_start|>"):
		rest := strings.TrimLeft(t[len("<|tool_call_start|>"):], " ")
		if rd, ok := r.python(x, i, end-len(rest), "LFM <|tool_call_start|>", true, true); ok {
			return rd, true
		}
		return r.values(x, i, end-len(rest), "LFM <|tool_call_start|>", true), true
	case strings.HasPrefix(t, "<|python_start|>"):
		rest := strings.TrimLeft(t[len("<|python_start|>"):], " ")
		if strings.HasPrefix(rest, "{") {
			return r.values(x, i, end-len(rest), "Llama 4 <|python_start|>", true), true
		}
		if r.names == nil {
			break
		}
		if rd, ok := r.python(x, i, end-len(rest), "Llama 4 <|python_start|>", true, true); ok {
			return rd, true
		}
	case strings.HasPrefix(t, "[TOOL_CALLS]"):
		return r.mistral(x, i, end-len(t[len("[TOOL_CALLS]"):])), true
	case strings.HasPrefix(t, "<|python_tag|>"):
		rest := strings.TrimLeft(t[len("<|python_tag|>"):], " ")
		if !strings.HasPrefix(rest, "{") && !strings.HasPrefix(rest, "[") {
			// Llama's built-in tools: NAME.call(KEY=VALUE).
			if rd, ok := r.python(x, i, end-len(rest), "Llama <|python_tag|> NAME.call()", false, false); ok {
				return rd, true
			}
		}
		return r.values(x, i, end-len(rest), "Llama <|python_tag|>", true), true
	case hasPrefixFold(t, "<function="):
		return r.function(x, i, end-len(t)), true
	}
	if rest, ok := dressedMarker(t); ok {
		if rest != "" {
			return r.values(x, i, end-len(rest), "near miss of TOOL_CALL", true), true
		}
		// The marker alone: its JSON follows, maybe in a fence.
		j := i + 1
		for j < len(x.lines) && strings.TrimSpace(x.lines[j]) == "" {
			j++
		}
		if j == len(x.lines) {
			return read{}, false
		}
		nt := strings.TrimSpace(x.lines[j])
		if fence(nt) && j+1 < len(x.lines) {
			rd := r.values(x, j+1, x.starts[j+1], "TOOL_CALL alone, its JSON in a fence", true)
			if rd.next < len(x.lines) && strings.TrimSpace(rd.tail) == "" && fence(strings.TrimSpace(x.lines[rd.next])) {
				rd.next++
			}
			if len(rd.calls) > 0 {
				return rd, true
			}
		}
		if strings.HasPrefix(nt, "{") || strings.HasPrefix(nt, "[") {
			if rd := r.values(x, j, x.starts[j]+strings.Index(x.lines[j], nt), "TOOL_CALL alone, its JSON below", true); len(rd.calls) > 0 {
				return rd, true
			}
		}
		return read{}, false
	}
	if rd, ok := r.attempt(x, i, t); ok {
		return rd, true
	}
	if r.names == nil {
		return read{}, false
	}
	if inFence && (info == "tool_code" || info == "tool_call") {
		if rd, ok := r.python(x, i, end-len(t), "Gemma tool_code", false, false); ok {
			return rd, true
		}
	}
	if strings.HasPrefix(t, "[") {
		if rd, ok := r.python(x, i, end-len(t), "Python call list", true, false); ok {
			return rd, true
		}
	}
	if k := strings.Index(t, "({"); k > 0 && r.known(t[:k]) && !inFence {
		if rd, ok := r.python(x, i, end-len(t), "NAME({...})", false, false); ok {
			return rd, true
		}
	}
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && (!inFence || info == "" || info == "json" || info == "jsonc" || info == "tool_call" || info == "tool_code") {
		return r.bare(x, i, end-len(t), inFence)
	}
	return read{}, false
}

// marked reads a call in our own format: as encoding/json reads it when it
// can, so that a call written as documented decodes as it always has; and
// else again, forgiving the slips doc.go lists.
func (r *Reader) marked(x *text, i int, t string) (read, bool) {
	call, next := readCall(x.lines, i, t)
	var ce *CallError
	if r.lines || call.Err == nil || !errors.As(call.Err, &ce) || !ce.json {
		// readCall has read the blocks: there is no order left to read.
		return read{calls: []pending{{call: call}}, next: next}, true
	}
	line := x.lines[i]
	k := strings.Index(line, callPrefix) + len(callPrefix)
	for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
		k++
	}
	return r.values(x, i, x.starts[i]+k, "", true), true
}

// endTokens are the special tokens that end a call in the formats that
// have them; a server may leave them in the text.
var endTokens = []string{"<|eom_id|>", "<|eot_id|>", "<|python_end|>", "<|tool_call_end|>"}

// values reads the JSON call objects (or arrays of them) that start at
// offset off, one after another on a line, separated by white space,
// commas or semicolons, while many is true and what follows is another. A
// value that is not a call is malformed: a marker was written, so a call
// was meant.
func (r *Reader) values(x *text, i, off int, shape string, many bool) read {
	var rd read
	first := i
	for {
		v, end, repairs, err := r.json(x, off)
		if err != nil {
			rd.calls = append(rd.calls, pending{call: r.unreadable(x, first, off, err, shape)})
			rd.next = x.next(end)
			if je := (*jsonError)(nil); errors.As(err, &je) && !je.EOF {
				rd.next = x.line(je.Off) + 1
			}
			return rd
		}
		items, wrapped := callItems(v)
		if wrapped {
			repairs = append(repairs, "calls inside an envelope")
		}
		if _, ok := v.([]any); ok {
			if len(items) == 0 {
				rd.calls = append(rd.calls, pending{call: Call{Line: first + 1, Text: strings.TrimSpace(x.s[off:end]), Shape: shape,
					Err: &CallError{Line: first + 1, Reason: "the list of calls is empty", Hint: "Write one call, as TOOL_CALL {\"name\":\"TOOL\",\"arguments\":{...}}"}}})
			}
		}
		for _, item := range items {
			rd.calls = append(rd.calls, r.pendingOf(item, first, x.s[off:end], shape, repairs))
		}
		li, rest := x.after(end)
		more := strings.TrimLeft(rest, " \t`,;")
		for _, tok := range endTokens {
			if strings.HasPrefix(more, tok) {
				more = strings.TrimLeft(more[len(tok):], " \t`,;")
			}
		}
		if many && (strings.HasPrefix(more, "{") || strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(more, "["), " \t"), "{") && strings.HasPrefix(more, "[")) {
			off = x.end(li) - len(more)
			first = li
			continue
		}
		if strings.Trim(more, "}]) \t") == "" && more != "" {
			for k := range rd.calls {
				rd.calls[k].call.Repairs = appendNew(rd.calls[k].call.Repairs, "an extra closing bracket")
			}
			more = ""
		}
		rd.next, rd.tail = li+1, more
		return rd
	}
}

func (p pending) failed() bool { return p.call.Err != nil }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// callItems returns the call objects v holds: v itself, the elements of
// an array, or those of an envelope, {"tool_calls":[...]} or
// {"tool_call":{...}}, which it reports.
func callItems(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, false
	case *object:
		if len(v.keys) == 1 {
			switch inner := v.vals[v.keys[0]].(type) {
			case []any:
				if v.keys[0] == "tool_calls" {
					return inner, true
				}
			case *object:
				if v.keys[0] == "tool_call" {
					return []any{inner}, true
				}
			}
		}
	}
	return []any{v}, false
}

// pendingOf makes the call that item, one JSON value of a call's text,
// holds.
func (r *Reader) pendingOf(item any, line int, src, shape string, repairs []string) pending {
	call := Call{Line: line + 1, Text: strings.TrimSpace(src), Shape: shape}
	if shape == "" {
		call.Text = callPrefix + " " + call.Text
	}
	obj, more, err := callOf(item, r.specs)
	if err != nil {
		call.Name = obj.name // for the error, and to tell an attempt
		call.Err = &CallError{Line: line + 1, Reason: "the call cannot be read: " + err.Error(), Hint: `Write it as TOOL_CALL {"name":"TOOL","arguments":{...}} on one line`}
		return pending{call: call}
	}
	call.Name, call.Args = obj.name, obj.args
	call.Repairs = append(slices.Clone(repairs), more...)
	return pending{call: call, order: obj.order}
}

// json reads the JSON value at offset off of x: over the lines after its
// own, up to maxCallLines, while they go on with JSON and do not start a
// call or a result; with one missing closing brace at its end added.
func (r *Reader) json(x *text, off int) (any, int, []string, error) {
	first := x.line(off)
	limit := min(len(x.lines), first+maxCallLines)
	stop := x.end(limit - 1)
	for k := first + 1; k < limit; k++ {
		if marker(x.lines[k]) {
			stop = x.end(k - 1)
			break
		}
	}
	v, end, repairs, err := readLenient(x.s[:stop], off)
	var je *jsonError
	if errors.As(err, &je) && !je.EOF {
		if k := x.line(je.Off); k > first && !jsonish(x.lines[k]) {
			stop = x.end(k - 1)
			v, end, repairs, err = readLenient(x.s[:stop], off)
		}
	}
	if errors.As(err, &je) && !je.EOF && (strings.HasPrefix(x.s[je.Off:], "</") || strings.HasPrefix(x.s[je.Off:], "<|")) {
		// A closing tag or token where the JSON goes on: the JSON ended.
		stop = je.Off
		v, end, repairs, err = readLenient(x.s[:stop], off)
	}
	last := strings.TrimRight(x.s[off:stop], " \t\r\n")
	if errors.As(err, &je) && je.EOF && !je.inString && len(je.open) == 1 && !strings.HasSuffix(last, ",") && !strings.HasSuffix(last, ":") {
		closer := "}"
		if je.open[0] == '[' {
			closer = "]"
		}
		v2, end2, repairs2, err2 := readLenient(x.s[off:stop]+closer, 0)
		if err2 == nil {
			return v2, min(off+end2, stop), append(repairs2, "a missing "+closer+" at the end"), nil
		}
	}
	return v, end, repairs, err
}

// jsonish reports whether a line could go on with a JSON value.
func jsonish(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" {
		return true
	}
	if strings.ContainsRune("{}[]\",:'“”‘’-/0123456789", []rune(t)[0]) {
		return true
	}
	for _, w := range []string{"true", "false", "null", "True", "False", "None"} {
		if strings.HasPrefix(t, w) {
			return true
		}
	}
	return false
}

// unreadable is the malformed call of JSON that could not be read.
func (r *Reader) unreadable(x *text, line, off int, err error, shape string) Call {
	text := strings.TrimSpace(x.s[off:x.end(line)])
	call := Call{Line: line + 1, Text: text, Shape: shape}
	if shape == "" {
		call.Text = callPrefix + " " + text
	}
	reason := err.Error()
	var je *jsonError
	if errors.As(err, &je) && !je.EOF {
		at := min(je.Off, len(x.s))
		l := x.line(at)
		c := utf8.RuneCountInString(x.s[x.starts[l]:at]) + 1
		if l++; l == line+1 {
			reason = fmt.Sprintf("at column %d, %s", c, reason)
		} else {
			reason = fmt.Sprintf("on line %d, column %d, %s", l, c, reason)
		}
	}
	call.Err = &CallError{Line: line + 1, Reason: "the call's JSON cannot be read: " + reason,
		Hint: `Write it as TOOL_CALL {"name":"TOOL","arguments":{...}} on one line`, json: true}
	return call
}

// bare reads a line that starts with a JSON object or array: a call only
// when every value names one of the tools. Prose about JSON stays text.
func (r *Reader) bare(x *text, i, off int, inFence bool) (read, bool) {
	if x.guess <= 0 {
		return read{}, false
	}
	_, end, _, err := r.json(x, off)
	x.guess -= end - off
	if err != nil {
		// Unreadable JSON that starts like a call of one of the tools is
		// an attempt, and the model is told; anything else is text.
		head := x.s[off:min(len(x.s), off+120)]
		attempt := strings.Contains(head, `"name"`) && !inFence && strings.Contains(head, `"arguments"`)
		for name := range r.names {
			attempt = attempt || strings.Contains(head, `"name"`) && strings.Contains(head, `"`+name+`"`)
		}
		if attempt {
			return read{calls: []pending{{call: r.unreadable(x, i, off, err, "JSON object")}}, next: x.next(end)}, true
		}
		return read{}, false
	}
	rd := r.values(x, i, off, "JSON object", true)
	known, calls := false, true
	for _, pc := range rd.calls {
		known = known || r.known(pc.call.Name)
		calls = calls && pc.call.Err == nil && pc.call.Name != ""
	}
	// A call of a tool the harness has is a call. So is JSON that is
	// nothing but call objects with their arguments, outside a fence, or
	// in a fence that is all the reply holds: a call of a tool it has
	// not, which the model is told of.
	src := x.s[off:min(end, len(x.s))]
	withArgs := false
	for _, k := range argKeys {
		withArgs = withArgs || strings.Contains(src, `"`+k+`"`)
	}
	if known || calls && withArgs && (!inFence || alone(x, i, rd.next)) {
		return rd, true
	}
	return read{}, false
}

// alone reports whether lines from up to to are all the text of x: the
// lines around them are blank or fences.
func alone(x *text, from, to int) bool {
	for k, l := range x.lines {
		if k >= from && k < to {
			continue
		}
		if t := strings.TrimSpace(l); t != "" && !fence(t) {
			return false
		}
	}
	return true
}

// hasPrefixFold reports whether s starts with prefix, in any ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
