package fakemodel

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"harness/protocol"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Reply
	}{
		{"empty", "", nil},
		{"only comments", "# a comment\n\n  \n# another\n", nil},
		{"bare header", ">>>\nhello\n", []Reply{{Line: 1, Body: "hello"}}},
		{"no final newline", ">>>\nhello", []Reply{{Line: 1, Body: "hello"}}},
		{"empty body", ">>>\n>>>\nsecond\n", []Reply{{Line: 1}, {Line: 2, Body: "second"}}},
		{"empty body at end", ">>>\n", []Reply{{Line: 1}}},
		{"trailing empty line keeps a newline", ">>>\na\n\n", []Reply{{Line: 1, Body: "a\n"}}},
		{"multi-line body", "# c\n>>>\none\ntwo\n\nfour\n>>>\nnext\n", []Reply{
			{Line: 2, Body: "one\ntwo\n\nfour"},
			{Line: 7, Body: "next"},
		}},
		{"hash in body is text", ">>>\n# not a comment\n", []Reply{{Line: 1, Body: "# not a comment"}}},
		{"escapes", ">>>\n\\>>> quoted header\n\\\\two\n\\x\n\\\nplain \\ inside\n", []Reply{
			{Line: 1, Body: ">>> quoted header\n\\two\nx\n\nplain \\ inside"},
		}},
		{"expect bare", ">>> expect=TOOL_RESULT\nok\n", []Reply{{Line: 1, Expect: "TOOL_RESULT", Body: "ok"}}},
		{"expect quoted", `>>> expect="call_1 read SUCCESS\n"` + "\nok\n", []Reply{{Line: 1, Expect: "call_1 read SUCCESS\n", Body: "ok"}}},
		{"match", ">>> expect=a match=whole\nok\n", []Reply{{Line: 1, Expect: "a", Match: MatchWhole, Body: "ok"}}},
		{"expect empty quoted", `>>> expect=""` + "\nok\n", []Reply{{Line: 1, Body: "ok"}}},
		{"role", ">>> role=user\n>>> role=assistant\n>>> role=system\n", []Reply{
			{Line: 1, Role: protocol.User},
			{Line: 2, Role: protocol.Assistant},
			{Line: 3, Role: protocol.System},
		}},
		{"done", ">>> done=stop\n>>> done=length\n", []Reply{
			{Line: 1, Done: protocol.DoneStop},
			{Line: 2, Done: protocol.DoneLength},
		}},
		{"think", `>>> think="hmm, \"quotes\" and ünïcode"` + "\nx\n", []Reply{{Line: 1, Think: `hmm, "quotes" and ünïcode`, Body: "x"}}},
		{"delay", ">>> delay=1.5s\n", []Reply{{Line: 1, Delay: 1500 * time.Millisecond}}},
		{"pace", ">>> pace=300ms\n", []Reply{{Line: 1, Pace: 300 * time.Millisecond}}},
		{"all attributes, tabs and extra spaces", ">>>  expect=\"a b\"\trole=user   done=length think=t delay=2ms  \nbody\n", []Reply{
			{Line: 1, Expect: "a b", Role: protocol.User, Done: protocol.DoneLength, Think: "t", Delay: 2 * time.Millisecond, Body: "body"},
		}},
		{"when", `>>> when="summarize a.txt"` + "\nx\n>>> when=b\ny\n", []Reply{
			{Line: 1, When: "summarize a.txt", Body: "x"},
			{Line: 3, When: "b", Body: "y"},
		}},
		{"bare value may hold quotes and equals", `>>> expect=a"b=c` + "\n", []Reply{{Line: 1, Expect: `a"b=c`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("test.txt", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if s.Name != "test.txt" {
				t.Errorf("Name = %q, want test.txt", s.Name)
			}
			if !reflect.DeepEqual(s.Replies, tt.want) {
				t.Errorf("Replies:\ngot  %#v\nwant %#v", s.Replies, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
	}{
		{"text before header", "# ok\nhello\n>>>\n", 2},
		{"no space after marker", ">>>expect=x\n", 1},
		{"unknown attribute", "# c\n>>> expct=x\n", 2},
		{"missing value", ">>>\nok\n>>> expect\n", 3},
		{"empty bare value", ">>> expect=\n", 1},
		{"missing name", ">>> =x\n", 1},
		{"unterminated quote", `>>> expect="abc` + "\n", 1},
		{"unknown match", ">>> match=exactly\n", 1},
		{"bad escape", `>>> expect="\q"` + "\n", 1},
		{"no space after quoted value", `>>> expect="a"role=user` + "\n", 1},
		{"duplicate", ">>> role=user role=user\n", 1},
		{"bad role", ">>> role=tool\n", 1},
		{"bad done", ">>> done=eos\n", 1},
		{"bad delay", ">>> delay=soon\n", 1},
		{"negative delay", ">>> delay=-1s\n", 1},
		{"bad pace", ">>> pace=slow\n", 1},
		{"negative pace", ">>> pace=-1s\n", 1},
		{"duplicate when", ">>> when=a when=b\n", 1},
		{"empty bare when", ">>> when=\n", 1},
		{"invalid utf-8", ">>>\nok\n\xff\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.txt", []byte(tt.in))
			var perr *ParseError
			if !errors.As(err, &perr) {
				t.Fatalf("Parse error = %v, want a *ParseError", err)
			}
			if perr.Name != "bad.txt" || perr.Line != tt.line {
				t.Errorf("error at %s:%d, want bad.txt:%d (%v)", perr.Name, perr.Line, tt.line, err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.txt")
	if err := os.WriteFile(path, []byte(">>>\nhi\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != path || len(s.Replies) != 1 || s.Replies[0].Body != "hi" {
		t.Errorf("Load = %+v", s)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v, want os.ErrNotExist", err)
	}
}

func TestFormat(t *testing.T) {
	s := &Script{Replies: []Reply{
		{Expect: "a\tb", Role: protocol.User, Done: protocol.DoneLength, Think: "t", Delay: time.Second, Pace: time.Millisecond, Body: ">>> x\n\\y\nz\n"},
		{},
		{Expect: "c", Match: MatchEnd, Body: "d"},
		{When: "task one", Body: "w"},
	}}
	want := ">>> expect=\"a\\tb\" role=user done=length think=\"t\" delay=1s pace=1ms\n\\>>> x\n\\\\y\nz\n\n>>>\n\n>>> expect=\"c\" match=end\nd\n>>> when=\"task one\"\nw\n"
	if got := string(s.Format()); got != want {
		t.Errorf("Format:\ngot  %q\nwant %q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("# c\n>>> expect=\"x\\n\" role=user done=length think=\"t\" delay=1ms pace=2ms\nbody\n\\>>> esc\n\\\\\n>>>\n"))
	f.Add([]byte(">>>\n\n\n>>>"))
	f.Add([]byte(">>> expect=a\"b\n"))
	f.Add([]byte(">>> when=\"task a\"\nx\n>>> when=b expect=c\ny\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz", data)
		if err != nil {
			return
		}
		text := s.Format()
		s2, err := Parse("fuzz", text)
		if err != nil {
			t.Fatalf("formatted script does not parse: %v\n%q", err, text)
		}
		if len(s.Replies) != len(s2.Replies) {
			t.Fatalf("round trip: %d replies, then %d", len(s.Replies), len(s2.Replies))
		}
		for i := range s.Replies {
			a, b := s.Replies[i], s2.Replies[i]
			a.Line, b.Line = 0, 0
			if a != b {
				t.Fatalf("round trip of reply %d:\ngot  %#v\nwant %#v", i, b, a)
			}
		}
		if text2 := s2.Format(); string(text2) != string(text) {
			t.Fatalf("Format not stable:\n%q\n%q", text, text2)
		}
	})
}
