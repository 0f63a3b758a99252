package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// sent keeps the JSON of the messages the model was last sent. A
// conversation goes whole to the server at every step, and each request
// begins with the messages of the one before: only the messages a request
// adds are encoded, and its body reads the others from here. Encoding the
// whole conversation at every step was most of what the harness did at
// each step of a long session, and of the memory it used.
type sent struct {
	mu   sync.Mutex
	msgs []protocol.Message // the messages encoded, in order
	ends []int              // where each one's JSON ends in json
	json []byte             // their JSON, separated by commas
}

// body is a request's body: the JSON of an api.ChatRequest, byte for byte
// what json.Marshal makes of it, in three parts.
type body struct {
	head, msgs, tail []byte
}

func (b body) size() int64 { return int64(len(b.head) + len(b.msgs) + len(b.tail)) }

func (b body) reader() io.Reader { return &bodyReader{parts: [][]byte{b.head, b.msgs, b.tail}} }

// bodyReader reads a body's parts in turn. Unlike io.MultiReader's, its
// WriteTo needs no buffer: net/http calls it at the end of every request.
type bodyReader struct {
	parts [][]byte
}

func (r *bodyReader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 && len(r.parts[0]) == 0 {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	return n, nil
}

func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	var sum int64
	for len(r.parts) > 0 {
		n, err := w.Write(r.parts[0])
		sum += int64(n)
		r.parts[0] = r.parts[0][n:]
		if err != nil {
			return sum, err
		}
		r.parts = r.parts[1:]
	}
	return sum, nil
}

var messagesKey = []byte(`"messages":[`)

// body returns the body of req with msgs as its messages.
func (s *sent) body(req api.ChatRequest, msgs []protocol.Message) (body, error) {
	req.Messages = []api.Message{}
	frame, err := json.Marshal(req)
	if err != nil {
		return body{}, err
	}
	// The model's name comes before the messages, and as a JSON string it
	// cannot hold the key with its quotes unescaped.
	at := bytes.Index(frame, messagesKey)
	if at < 0 {
		return body{}, errors.New("encoding the request: no messages key")
	}
	at += len(messagesKey)

	s.mu.Lock()
	defer s.mu.Unlock()
	same := 0
	for same < len(s.msgs) && same < len(msgs) && s.msgs[same] == msgs[same] {
		same++
	}
	if same < len(s.msgs) {
		// The conversation went back: start a new buffer, so that a
		// request still being sent from the old one is not changed.
		keep := 0
		if same > 0 {
			keep = s.ends[same-1]
		}
		s.json = append([]byte(nil), s.json[:keep]...)
		s.msgs, s.ends = s.msgs[:same], s.ends[:same]
	}
	for _, m := range msgs[same:] {
		b, err := json.Marshal(api.Message{Role: string(m.Role), Content: m.Content})
		if err != nil {
			return body{}, err
		}
		if len(s.json) > 0 {
			s.json = append(s.json, ',')
		}
		s.json = append(s.json, b...)
		s.msgs, s.ends = append(s.msgs, m), append(s.ends, len(s.json))
	}
	// Later requests only append past this length, or start anew.
	return body{head: frame[:at], msgs: s.json[:len(s.json):len(s.json)], tail: frame[at:]}, nil
}
