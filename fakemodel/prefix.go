package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ollama/ollama/api"
)

// PrefixError says where a request of a conversation stopped repeating the
// messages of the request before it. Indexes are 0-based.
type PrefixError struct {
	// Request is the index of the offending request; it is compared with
	// request Request-1.
	Request int
	// Message is the index of the first message that differs, or of the
	// first one missing when the request has fewer messages than the
	// previous one.
	Message int
	// Want is the previous request's message, as JSON; Got is the
	// request's own, or nil when it is missing.
	Want, Got []byte
}

func (e *PrefixError) Error() string {
	if e.Got == nil {
		return fmt.Sprintf("fakemodel: requests[%d] has only %d messages, fewer than requests[%d]",
			e.Request, e.Message, e.Request-1)
	}
	at := 0
	for at < len(e.Want) && at < len(e.Got) && e.Want[at] == e.Got[at] {
		at++
	}
	return fmt.Sprintf("fakemodel: requests[%d].messages[%d] differs from requests[%d].messages[%d] at byte %d of its JSON: want %s, got %s",
		e.Request, e.Message, e.Request-1, e.Message, at, around(e.Want, at), around(e.Got, at))
}

// CheckPrefixes checks that the messages of each request begin with the
// messages of the request before it, byte for byte in their JSON form: that
// a conversation only ever grows at its end. The error, if any, is a
// *PrefixError for the first request that breaks this.
func CheckPrefixes(reqs []api.ChatRequest) error {
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Messages, reqs[i].Messages
		for j, m := range prev {
			want, err := json.Marshal(m)
			if err != nil {
				return fmt.Errorf("fakemodel: requests[%d].messages[%d]: %w", i-1, j, err)
			}
			if j >= len(cur) {
				return &PrefixError{Request: i, Message: j, Want: want}
			}
			got, err := json.Marshal(cur[j])
			if err != nil {
				return fmt.Errorf("fakemodel: requests[%d].messages[%d]: %w", i, j, err)
			}
			if !bytes.Equal(want, got) {
				return &PrefixError{Request: i, Message: j, Want: want, Got: got}
			}
		}
	}
	return nil
}

// ReadLog reads the requests of a log written by a Server given WithLog.
func ReadLog(r io.Reader) ([]api.ChatRequest, error) {
	var reqs []api.ChatRequest
	dec := json.NewDecoder(r)
	for {
		var req api.ChatRequest
		err := dec.Decode(&req)
		if errors.Is(err, io.EOF) {
			return reqs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("fakemodel: reading request %d of log: %w", len(reqs)+1, err)
		}
		reqs = append(reqs, req)
	}
}

// around shows the part of b near byte at.
func around(b []byte, at int) string {
	const width = 60
	s := string(b)
	start, end := max(0, at-width), min(len(s), at+width)
	start, end = runeStart(s, start), runeStart(s, end)
	out := s[start:end]
	if start > 0 {
		out = "..." + out
	}
	if end < len(s) {
		out += "..."
	}
	return out
}
