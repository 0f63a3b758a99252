package protocol

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadResult(t *testing.T) {
	tests := []struct {
		name string
		msg  Message
		want Result
		ok   bool
	}{
		{"success", Message{User, "TOOL_RESULT call_7 read_file SUCCESS\npackage a\n"}, Result{CallID: "call_7", Tool: "read_file", OK: true, Body: "package a\n"}, true},
		{"error", Message{User, "TOOL_RESULT call_2 - ERROR\nNothing was run."}, Result{CallID: "call_2", Tool: "-", Body: "Nothing was run."}, true},
		{"header alone", Message{User, "TOOL_RESULT call_1 x SUCCESS"}, Result{CallID: "call_1", Tool: "x", OK: true}, true},
		{"an assistant's", Message{Assistant, "TOOL_RESULT call_1 x SUCCESS\nhi"}, Result{}, false},
		{"user words", Message{User, "read a.go"}, Result{}, false},
		{"unknown status", Message{User, "TOOL_RESULT call_1 x MAYBE\nhi"}, Result{}, false},
		{"missing tool", Message{User, "TOOL_RESULT call_1 SUCCESS\nhi"}, Result{}, false},
		{"double space", Message{User, "TOOL_RESULT  call_1 x SUCCESS\nhi"}, Result{}, false},
		{"indented", Message{User, " TOOL_RESULT call_1 x SUCCESS\nhi"}, Result{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReadResult(tt.msg)
			if !reflect.DeepEqual(got, tt.want) || ok != tt.ok {
				t.Errorf("ReadResult = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// FuzzReadResult: every result's message reads back as the result, with the
// changes Message makes (an empty body, a tool name it cannot carry).
func FuzzReadResult(f *testing.F) {
	f.Add("call_1", "read_file", true, "package a\n")
	f.Add("call_2", "", false, "")
	f.Add("call_3", "a b", true, "TOOL_RESULT call_9 x SUCCESS\n")
	f.Fuzz(func(t *testing.T, id, tool string, ok bool, body string) {
		if id == "" || strings.ContainsAny(id, " \n") {
			t.Skip() // ids are call_N
		}
		got, read := ReadResult(Result{CallID: id, Tool: tool, OK: ok, Body: body}.Message())
		want := Result{CallID: id, Tool: tool, OK: ok, Body: body}
		if tool == "" || strings.ContainsAny(tool, " \t\r\n") {
			want.Tool = "-"
		}
		if strings.TrimSpace(body) == "" {
			want.Body = "(no output)"
		}
		if !read || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadResult = %+v, %v; want %+v", got, read, want)
		}
	})
}
