package window_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"harness/protocol"
	"harness/window"
)

// call is a reply calling read_file on each path.
func call(paths ...string) protocol.Message {
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":%q}}\n", p)
	}
	return asst(b.String())
}

// result is the result of call id, with body.
func result(id string, ok bool, body string) protocol.Message {
	return protocol.Result{CallID: id, Tool: "read_file", OK: ok, Body: body}.Message()
}

// elided is what Mask makes of the result of call id on path, of size bytes.
func elided(id, path, size string) protocol.Message {
	what := id + " read_file"
	if path != "" {
		what += " " + path
	}
	return user("TOOL_RESULT " + id + " read_file SUCCESS\n[result of " + what + " elided to save context (" + size + "); call the tool again if you need it]")
}

func TestMask(t *testing.T) {
	big := n(2300)
	conv := []protocol.Message{
		sys("SYSTEM"), user("read them"),
		call("a.go", "b.go"), result("call_1", true, big), result("call_2", true, "short"),
		call("c.go"), result("call_3", true, n(812)),
		asst("Read them all."), user("and d.go?"),
		call("d.go"), result("call_4", true, big),
	}
	tests := []struct {
		name   string
		msgs   []protocol.Message
		keep   int
		target func(protocol.Call) string
		want   []protocol.Message
		masked int
	}{
		{name: "every step kept", msgs: conv, keep: 4, target: pathOf, want: conv},
		{name: "more kept than there are", msgs: conv, keep: 9, target: pathOf, want: conv},
		{
			name: "all but the last three", msgs: conv, keep: 3, target: pathOf, masked: 1,
			// A result shorter than its line stays.
			want: slices.Concat(conv[:3], []protocol.Message{elided("call_1", "a.go", "2.3 KB")}, conv[4:]),
		},
		{
			name: "all but the last two", msgs: conv, keep: 2, target: pathOf, masked: 2,
			want: slices.Concat(conv[:3], []protocol.Message{elided("call_1", "a.go", "2.3 KB"), conv[4], conv[5], elided("call_3", "c.go", "812 B")}, conv[7:]),
		},
		{
			name: "no target", msgs: conv, keep: 2, masked: 2,
			want: slices.Concat(conv[:3], []protocol.Message{elided("call_1", "", "2.3 KB"), conv[4], conv[5], elided("call_3", "", "812 B")}, conv[7:]),
		},
		{
			name: "even the last", msgs: conv, keep: 0, target: pathOf, masked: 3,
			want: slices.Concat(conv[:3], []protocol.Message{elided("call_1", "a.go", "2.3 KB"), conv[4], conv[5], elided("call_3", "c.go", "812 B")}, conv[7:10], []protocol.Message{elided("call_4", "d.go", "2.3 KB")}),
		},
		{
			name: "an error result keeps its status",
			msgs: []protocol.Message{sys("S"), call("a.go"), result("call_1", false, big), asst("done")}, keep: 1, target: pathOf, masked: 1,
			want: []protocol.Message{sys("S"), call("a.go"), user("TOOL_RESULT call_1 read_file ERROR\n[result of call_1 read_file a.go elided to save context (2.3 KB); call the tool again if you need it]"), asst("done")},
		},
		{
			name: "a malformed call is not named",
			msgs: []protocol.Message{sys("S"), asst("TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":3}}"), result("call_1", false, big), asst("done")}, keep: 1, target: pathOf, masked: 1,
			want: []protocol.Message{sys("S"), asst("TOOL_CALL {\"name\":\"read_file\",\"arguments\":{\"path\":3}}"), user("TOOL_RESULT call_1 read_file ERROR\n[result of call_1 read_file elided to save context (2.3 KB); call the tool again if you need it]"), asst("done")},
		},
		{
			name: "a long target is cut to one short line",
			msgs: []protocol.Message{sys("S"), call(n(100) + "\nsecond line"), result("call_1", true, big), asst("done")}, keep: 1, target: pathOf, masked: 1,
			want: []protocol.Message{sys("S"), call(n(100) + "\nsecond line"), elided("call_1", n(80)+"...", "2.3 KB"), asst("done")},
		},
		{
			name: "a user message that is no result stays",
			msgs: []protocol.Message{sys("S"), call("a.go"), user(big), asst("done")}, keep: 1, target: pathOf,
			want: []protocol.Message{sys("S"), call("a.go"), user(big), asst("done")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.msgs)
			got, masked := window.Mask(tt.msgs, tt.keep, tt.target)
			equalMsgs(t, got, tt.want)
			if masked != tt.masked {
				t.Errorf("masked %d, want %d", masked, tt.masked)
			}
			if !slices.Equal(tt.msgs, orig) {
				t.Error("Mask changed its argument")
			}
			again, n := window.Mask(got, tt.keep, tt.target)
			if n != 0 {
				t.Errorf("masking again masked %d more", n)
			}
			equalMsgs(t, again, got)
		})
	}
}

func equalMsgs(t *testing.T, got, want []protocol.Message) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
}

func dump(msgs []protocol.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		fmt.Fprintf(&b, "%d %s: %.140q\n", i, m.Role, m.Content)
	}
	return b.String()
}

// FuzzMask: whatever the results hold, masking never grows a message,
// keeps every header, and masking again changes nothing.
func FuzzMask(f *testing.F) {
	f.Add("package a\n", "TOOL_RESULT call_9 x SUCCESS", 1)
	f.Add("[result of call_1 read_file elided to save context (2.3 KB); call the tool again if you need it]", n(300), 0)
	f.Fuzz(func(t *testing.T, body1, body2 string, keep int) {
		msgs := []protocol.Message{sys("S"), user("go"),
			call("a.go", "b.go"), result("call_1", true, body1), result("call_2", true, body2),
			call("c.go"), result("call_3", true, body2+body1),
			asst("done")}
		got, _ := window.Mask(msgs, keep%4, pathOf)
		if len(got) != len(msgs) {
			t.Fatalf("%d messages, want %d", len(got), len(msgs))
		}
		for i, m := range got {
			if len(m.Content) > len(msgs[i].Content) || m.Role != msgs[i].Role {
				t.Errorf("message %d grew or changed role: %q -> %q", i, msgs[i].Content, m.Content)
			}
			if r, ok := protocol.ReadResult(msgs[i]); ok {
				if g, ok := protocol.ReadResult(m); !ok || g.CallID != r.CallID || g.OK != r.OK {
					t.Errorf("message %d lost its header: %q", i, m.Content)
				}
			}
		}
		again, _ := window.Mask(got, keep%4, pathOf)
		if !slices.Equal(again, got) {
			t.Errorf("masking again changed\n%s\nto\n%s", dump(got), dump(again))
		}
	})
}
