package protocol

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// shownText is what a Stream must hold for reply: the text the line
// grammar gives for its complete lines, less a fence opened on the last of
// them.
func shownText(reply string) string {
	i := strings.LastIndexByte(reply, '\n')
	if i < 0 {
		return ""
	}
	text := ParseLines(reply[:i]).Text
	j := strings.LastIndexByte(text, '\n') + 1
	if strings.HasPrefix(strings.TrimSpace(text[j:]), "```") {
		return strings.TrimRight(text[:j], "\n")
	}
	return text
}

// checkStream feeds reply to a Stream in the given pieces and checks its
// text after each against shownText of the reply so far.
func checkStream(t *testing.T, pieces []string) {
	t.Helper()
	var s Stream
	var sofar strings.Builder
	prev := ""
	for n, p := range pieces {
		s.Add(p)
		sofar.WriteString(p)
		text, extends := s.Text()
		if want := shownText(sofar.String()); text != want {
			t.Fatalf("after piece %d of %q:\ntext %q\nwant %q", n, pieces, text, want)
		}
		if extends && !strings.HasPrefix(text, prev) {
			t.Fatalf("after piece %d of %q: text %q said to extend %q", n, pieces, text, prev)
		}
		prev = text
	}
}

func TestStream(t *testing.T) {
	call := `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`
	block := `TOOL_CALL {"name":"write_file","arguments":{"path":"a","content":"<<EOF"}}`
	for _, reply := range []string{
		"Hello.\nHow are you?\n",
		"  \n\nLeading blanks.\n\n\nTrailing blanks.\n\n\n",
		"Look:\n```json\n" + call + "\n```\nDone.\n",
		"Look:\n```json\n\n" + call + "\n\n```\nDone.\n",
		"Code:\n```go\nx := 1\n```\nDone.\n",
		"```\n```go\n```\n```\nend\n",
		"a\n\f\n```\n```\n\f\nb\n",
		"a\n\u00a0\n```\n\n",
		"Before.\n" + block + "\nline 1\nTOOL_CALL {}\nTOOL_RESULT x\nEOF\nAfter.\n",
		"Two blocks.\n" + `TOOL_CALL {"name":"edit_file","arguments":{"path":"a","old_text":"<<OLD","new_text":"<<NEW"}}` + "\nNEW\nOLD\nold\nOLD\nnew\nNEW\nAfter.\n",
		"Unclosed block.\n" + block + "\nnever closed\n",
		"Spread:\nTOOL_CALL {\n\"name\": \"read_file\",\n\"arguments\": {\"path\": \"a\"}\n}\nAfter.\n",
		"Unclosed JSON:\nTOOL_CALL {\"name\":\nprose\nmore prose\n",
		"Unclosed JSON to a call:\nTOOL_CALL {\"name\":\n" + call + "\nAfter.\n",
		"Hi.\n" + call + "\nTOOL_RESULT call_1 read_file SUCCESS\ninvented\n",
		"Hi.\nTOOL_RESULT x\nmore\n</think>Answer.\nMore.\n",
		"<think>\n" + call + "\n</think>\nNothing to do.\n",
		"Hi there\nstill thinking</think>Hi there, done\nyes\n",
		"Hi <think>hidden\nhidden</think> shown\n",
		"<think>a</think>\nb\n</think>c\n",
		"Hi\r\n" + call + "\r\nBye\r\n",
		"`" + call + "`\ntext\n",
		strings.Repeat("\n", 5) + "```\n",
	} {
		t.Run("", func(t *testing.T) {
			checkStream(t, []string{reply})
			checkStream(t, strings.SplitAfter(reply, "\n"))
			var bytes []string
			for i := range len(reply) {
				bytes = append(bytes, reply[i:i+1])
			}
			checkStream(t, bytes)
		})
	}
}

// TestStreamLong checks that a long reply stays linear: a block of many
// lines is read again only when its end arrives.
func TestStreamLong(t *testing.T) {
	var b strings.Builder
	b.WriteString("Writing.\n" + `TOOL_CALL {"name":"write_file","arguments":{"path":"a","content":"<<EOF"}}` + "\n")
	for i := range 5000 {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteString("\n")
	}
	b.WriteString("EOF\nDone.\n")
	var s Stream
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		s.Add(l)
	}
	if text, _ := s.Text(); text != "Writing.\nDone." {
		t.Fatalf("text %q", text)
	}
}

// TestStreamRandom checks replies made of the lines that change how a
// reply is read, in random order, cut into random pieces.
func TestStreamRandom(t *testing.T) {
	vocabulary := []string{
		"Some text.", "", "  ", "\f", "\u00a0", "\r", "```", "```go", "  ```  ", "`x`",
		`TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`,
		"`TOOL_CALL {\"name\":\"read_file\",\"arguments\":{}}`",
		`TOOL_CALL {"name":"write_file","arguments":{"path":"a","content":"<<EOF"}}`,
		`TOOL_CALL {"name":"edit_file","arguments":{"path":"a","old_text":"<<A","new_text":"<<B"}}`,
		"EOF", "A", "B  ", "TOOL_CALL {", `"name": "read_file"}`, "TOOL_CALL {\"name\":", "}",
		"TOOL_RESULT call_1 read_file SUCCESS", "<think>", "</think>", "a <think>b</think> c", "x</think>y", "<think>z",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var reply strings.Builder
		for range r.IntN(14) {
			reply.WriteString(vocabulary[r.IntN(len(vocabulary))])
			if r.IntN(8) > 0 {
				reply.WriteByte('\n')
			}
		}
		var pieces []string
		for rest := reply.String(); rest != ""; {
			n := min(1+r.IntN(20), len(rest))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		checkStream(t, pieces)
	}
}

func FuzzStream(f *testing.F) {
	call := `TOOL_CALL {"name":"read_file","arguments":{"path":"a"}}`
	for _, s := range []string{
		"Hello.\nHow are you?\n",
		"Look:\n```json\n" + call + "\n```\nDone.\n",
		"Look:\n```\n\n```\n\n```go\nx\n```\n",
		"Before.\n" + `TOOL_CALL {"name":"w","arguments":{"c":"<<EOF"}}` + "\nx\nEOF\nAfter.\n",
		"TOOL_CALL {\n\"name\":\nprose\n" + call + "\nend\n",
		"Hi.\n<think>\n" + call + "\n</think>\nAnswer\n",
		"Hi there\nthinking</think>Hi there, done\nyes\n",
		"Hi.\nTOOL_RESULT x\nmore\n",
		"a\n\f\n```\n```\nb\n",
	} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, reply string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>32))
		var pieces []string
		for rest := reply; rest != ""; {
			n := min(1+r.IntN(12), len(rest))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		checkStream(t, pieces)
	})
}

// TestStreamHoldsOtherShapes holds that a call in another format is not
// shown as text while it streams: the text stops where it starts.
func TestStreamHoldsOtherShapes(t *testing.T) {
	for _, reply := range []string{
		"Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call>\n",
		"Let me look.\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}\n",
		"Let me look.\n**TOOL_CALL:** {\"name\": \"read_file\"}\nmore\n",
		"Let me look.\n<|python_tag|>{\"name\": \"read_file\"}\n",
	} {
		var s Stream
		s.Add(reply)
		if text, _ := s.Text(); text != "Let me look." {
			t.Errorf("%q streams as %q", reply, text)
		}
		checkStream(t, strings.SplitAfter(reply, "\n"))
	}
}
