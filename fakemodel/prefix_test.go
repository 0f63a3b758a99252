package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

func conv(msgs ...string) api.ChatRequest {
	req := api.ChatRequest{Model: "fake"}
	for i, m := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		req.Messages = append(req.Messages, api.Message{Role: role, Content: m})
	}
	return req
}

func TestCheckPrefixes(t *testing.T) {
	tests := []struct {
		name    string
		reqs    []api.ChatRequest
		ok      bool
		request int
		message int
		missing bool
	}{
		{"none", nil, true, 0, 0, false},
		{"one", []api.ChatRequest{conv("a")}, true, 0, 0, false},
		{"growing", []api.ChatRequest{conv("a"), conv("a", "b", "c"), conv("a", "b", "c", "d", "e")}, true, 0, 0, false},
		{"same", []api.ChatRequest{conv("a"), conv("a")}, true, 0, 0, false},
		{"edited", []api.ChatRequest{conv("a"), conv("a", "b", "c"), conv("a", "B", "c", "d", "e")}, false, 2, 1, false},
		{"trailing space", []api.ChatRequest{conv("a", "b "), conv("a", "b", "c")}, false, 1, 1, false},
		{"shrunk", []api.ChatRequest{conv("a", "b", "c"), conv("a")}, false, 1, 1, true},
		{"thinking dropped", []api.ChatRequest{
			{Messages: []api.Message{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b", Thinking: "t"}}},
			conv("a", "b", "c"),
		}, false, 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPrefixes(tt.reqs)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckPrefixes: %v", err)
				}
				return
			}
			var perr *PrefixError
			if !errors.As(err, &perr) {
				t.Fatalf("CheckPrefixes = %v, want a *PrefixError", err)
			}
			if perr.Request != tt.request || perr.Message != tt.message || (perr.Got == nil) != tt.missing {
				t.Errorf("got request %d message %d missing %v, want %d %d %v",
					perr.Request, perr.Message, perr.Got == nil, tt.request, tt.message, tt.missing)
			}
		})
	}
}

func TestPrefixErrorText(t *testing.T) {
	long := strings.Repeat("x", 10000)
	err := CheckPrefixes([]api.ChatRequest{conv(long + "a"), conv(long + "b")})
	if err == nil {
		t.Fatal("CheckPrefixes found no difference")
	}
	if n := len(err.Error()); n > 400 {
		t.Errorf("error for a long message is %d bytes: %v", n, err)
	}
}

func TestReadLog(t *testing.T) {
	stream := false
	reqs := []api.ChatRequest{
		conv("a"),
		{Model: "fake", Stream: &stream, Messages: conv("a", "b\n\"c\"", "ü").Messages, Options: map[string]any{"stop": []any{"\nTOOL_RESULT"}}},
	}
	var log bytes.Buffer
	for _, r := range reqs {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		log.Write(append(line, '\n'))
	}
	got, err := ReadLog(&log)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, reqs) {
		t.Errorf("ReadLog:\ngot  %+v\nwant %+v", got, reqs)
	}

	if got, err := ReadLog(strings.NewReader("")); err != nil || len(got) != 0 {
		t.Errorf("ReadLog of nothing = %v, %v", got, err)
	}
	if _, err := ReadLog(strings.NewReader(`{"model":"fake"}` + "\n{not json\n")); err == nil {
		t.Error("ReadLog of a bad log succeeded")
	}
}
