package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Parsed is a reply read line by line.
type Parsed struct {
	// Text is what the user should see: every line that is not part of a
	// call, with thinking removed and fences left empty by calls dropped.
	Text string
	// Calls are the calls in the order they appear, malformed ones included
	// (with Err set) so each gets an ERROR result.
	Calls []Call
	// Content is the reply as the conversation keeps it: the whole reply,
	// or, when the model wrote a result line itself, the reply cut before it.
	Content string
	// Forged is the line where the model wrote a result of its own (a
	// TOOL_RESULT line, in any dress, or another format's), or 0.
	// Everything from there on was dropped unread.
	Forged int
	// Examples are the lines where calls start that were read as
	// examples, shown in a fence between text, and are not in Calls.
	Examples []int
}

const (
	callPrefix   = "TOOL_CALL"
	resultPrefix = "TOOL_RESULT"
	// maxCallLines bounds how many lines one call's JSON may span.
	maxCallLines = 200
)

// StopSequences returns the sequences at which a backend should end
// generation: a model that starts writing a result itself has finished its
// calls and is about to invent what they returned. They are the result
// lines models write most, four at most, as OpenAI's API allows; an
// "Observation:" line is not among them, as prose may start so, and the
// parser cuts a reply there all the same.
func StopSequences() []string {
	return []string{"\n" + resultPrefix, "\n**" + resultPrefix, "\n> " + resultPrefix, "<tool_response>"}
}

// marker reports whether line starts a call or a result: an unclosed call's
// JSON never runs on over one, or a forged result would hide inside it.
func marker(line string) bool {
	t := unquoteInline(strings.TrimSpace(line))
	return isCall(t) || strings.HasPrefix(t, resultPrefix)
}

func isCall(t string) bool {
	rest, ok := strings.CutPrefix(t, callPrefix)
	return ok && (strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t") || strings.HasPrefix(rest, "{"))
}

// unquoteInline removes the backticks of a line written as inline code.
func unquoteInline(t string) string {
	if len(t) >= 2 && t[0] == '`' && t[len(t)-1] == '`' && !strings.HasPrefix(t, "```") {
		return strings.TrimSpace(t[1 : len(t)-1])
	}
	return t
}

// readCall reads the call that starts on lines[start], whose trimmed text
// is first, and returns it with the index of the first line after it.
func readCall(lines []string, start int, first string) (Call, int) {
	call := Call{Line: start + 1}
	payload := strings.TrimSpace(strings.TrimPrefix(first, callPrefix))
	end := start + 1
	var obj callObject
	var err error
	for {
		obj, err = decodeCall(payload)
		if !errors.Is(err, io.ErrUnexpectedEOF) || end >= len(lines) || end-start >= maxCallLines || marker(lines[end]) {
			break
		}
		// The JSON goes on: models often spread a call over several lines.
		payload += "\n" + strings.TrimRight(lines[end], "\r")
		end++
	}
	call.Text = callPrefix + " " + payload
	if err != nil {
		call.Err = &CallError{Line: call.Line, Reason: "the TOOL_CALL line does not hold one JSON object: " + jsonReason(err),
			Hint: `Write it as TOOL_CALL {"name":"TOOL","arguments":{...}} on one line`, json: true}
		return call, end
	}
	call.Name = obj.name
	call.Args = obj.args
	return call, blocks(lines, end, &call, obj.order)
}

type callObject struct {
	name  string
	args  map[string]any
	order []string // argument names as written, for blocks
}

// decodeCall decodes {"name":...,"arguments":{...}} and checks that nothing
// but closing backticks follows it. A call that is valid JSON, a string
// name and an object of arguments each given once, and nothing else, is
// checked by json.Valid and read with no decoder (two encoding/json
// decoders cost a call about 3 KB); every other payload, and every one that fails, is read
// by decodeCallTokens, whose results it gives exactly (FuzzDecodeCall).
func decodeCall(payload string) (callObject, error) {
	if obj, ok := decodeValidCall(payload); ok {
		return obj, nil
	}
	return decodeCallTokens(payload)
}

// decodeValidCall reads payload when it is one JSON object, followed by
// nothing but white space and backticks, whose keys are "name" with a
// string and "arguments" with an object, each given once. On JSON that
// encoding/json accepts, the forgiving reader finds no slip to forgive and
// reads what encoding/json with UseNumber would: a string's invalid UTF-8
// and lone surrogates become U+FFFD, numbers stay json.Number, and a
// nested object's repeated key keeps its last value.
func decodeValidCall(payload string) (callObject, bool) {
	text := strings.TrimRight(payload, " \t\r\n`")
	start := strings.IndexByte(text, '{')
	if start < 0 || strings.TrimLeft(text[:start], " \t\r\n") != "" || !json.Valid([]byte(text)) {
		return callObject{}, false
	}
	v, _, repairs, err := readLenient(text, start)
	top, _ := v.(*object)
	if err != nil || len(repairs) > 0 || top == nil || top.twice || len(top.keys) != 2 {
		return callObject{}, false
	}
	name, okName := top.vals["name"].(string)
	args, okArgs := top.vals["arguments"].(*object)
	if !okName || !okArgs || args.twice {
		return callObject{}, false
	}
	for k, x := range args.vals {
		args.vals[k] = plain(x)
	}
	return callObject{name: name, args: args.vals, order: args.keys}, true
}

// decodeCallTokens is decodeCall for any payload, through encoding/json's
// decoder: its errors are the ones a model is shown.
func decodeCallTokens(payload string) (callObject, error) {
	var obj callObject
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.UseNumber()
	var top map[string]json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return obj, err
	}
	if rest := strings.Trim(payload[dec.InputOffset():], " \t\r\n`"); rest != "" {
		return obj, fmt.Errorf("unexpected text after the JSON object: %q", Clip(rest, 40))
	}
	// Of several unknown keys, the first in byte order is named, so that
	// the same payload always gets the same error.
	bad, found := "", false
	for key := range top {
		if key != "name" && key != "arguments" && (!found || key < bad) {
			bad, found = key, true
		}
	}
	if found {
		return obj, fmt.Errorf(`unexpected key %q: put arguments inside "arguments"`, bad)
	}
	if raw, ok := top["name"]; ok {
		if err := json.Unmarshal(raw, &obj.name); err != nil {
			return obj, errors.New(`"name" must be a string`)
		}
	}
	obj.args = map[string]any{}
	raw, ok := top["arguments"]
	if !ok || string(raw) == "null" {
		return obj, nil
	}
	ad := json.NewDecoder(bytes.NewReader(raw))
	ad.UseNumber()
	if tok, err := ad.Token(); err != nil || tok != json.Delim('{') {
		return obj, errors.New(`"arguments" must be a JSON object`)
	}
	for ad.More() {
		tok, err := ad.Token()
		if err != nil {
			return obj, err
		}
		key := tok.(string) // inside an object the decoder yields keys as strings
		var v any
		if err := ad.Decode(&v); err != nil {
			return obj, err
		}
		if _, dup := obj.args[key]; dup {
			return obj, fmt.Errorf("argument %q is given twice", key)
		}
		obj.args[key] = v
		obj.order = append(obj.order, key)
	}
	return obj, nil
}

func jsonReason(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "the JSON ends before the object is closed"
	}
	return err.Error()
}

// blockWord reports whether v is a block marker "<<WORD".
func blockWord(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	word, ok := strings.CutPrefix(s, "<<")
	if !ok || word == "" {
		return "", false
	}
	for _, r := range word {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return "", false
		}
	}
	return word, true
}

// readBlock reads lines from lines[from] up to a line that is word and
// returns the text, each line ending in a newline, and the index after the
// terminator.
func readBlock(lines []string, from int, word string) (string, int, bool) {
	var b strings.Builder
	for i := from; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r") == word {
			return b.String(), i + 1, true
		}
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	return "", len(lines), false
}

// thoughtFirst blanks out, keeping its line breaks, the start of a reply
// that closes a think span it never opened: it thought from its start.
func thoughtFirst(s string) string {
	const open, close = "<think>", "</think>"
	if i, j := strings.Index(s, open), strings.Index(s, close); j >= 0 && (i < 0 || j < i) {
		return blank(s[:j+len(close)]) + s[j+len(close):]
	}
	return s
}

// unthink takes the thinking out of line: <think>...</think> spans, and,
// when the reply is thinking already, everything up to the close. It
// reports whether the reply is still thinking after the line; a span that
// is never closed thinks to the end.
func unthink(line string, thinking bool) (string, bool) {
	const open, close = "<think>", "</think>"
	if !thinking && !strings.Contains(line, open) {
		return line, false
	}
	var b strings.Builder
	for {
		if thinking {
			j := strings.Index(line, close)
			if j < 0 {
				return b.String(), true
			}
			line, thinking = line[j+len(close):], false
			continue
		}
		i := strings.Index(line, open)
		if i < 0 {
			b.WriteString(line)
			return b.String(), false
		}
		b.WriteString(line[:i])
		line, thinking = line[i+len(open):], true
	}
}

func blank(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) }

// dropEmptyFences removes code fences that held nothing but calls.
func dropEmptyFences(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		if fence(lines[i]) {
			j := i + 1
			for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
				j++
			}
			if j < len(lines) && strings.TrimSpace(lines[j]) == "```" {
				i = j
				continue
			}
		}
		out = append(out, lines[i])
	}
	return out
}

func fence(line string) bool { return strings.HasPrefix(strings.TrimSpace(line), "```") }

func firstLines(s string, n int) string {
	idx := 0
	for range n {
		j := strings.IndexByte(s[idx:], '\n')
		if j < 0 {
			return s
		}
		idx += j + 1
	}
	return s[:idx]
}

// Clip cuts s to at most n bytes and a mark, "...", at a character's
// start: what a message quotes of a text is never half a character.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
