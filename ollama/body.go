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
// each step of a long session, and of the memory it used. Each message's
// JSON is kept as json.Marshal made it, not copied into one buffer: a
// buffer that grows by doubling leaves behind copies of the conversation
// as large as itself.
type sent struct {
	mu   sync.Mutex
	msgs []protocol.Message // the messages encoded, in order
	json [][]byte           // the JSON of each one
	size int                // the bytes of their JSON, with a comma between each two
}

// body is a request's body: the JSON of an api.ChatRequest, byte for byte
// what json.Marshal makes of it: head, the messages' JSON separated by
// commas, and tail.
type body struct {
	head, tail []byte
	msgs       [][]byte
	msgsSize   int
}

func (b body) size() int64 { return int64(len(b.head) + b.msgsSize + len(b.tail)) }

func (b body) reader() io.Reader { return &bodyReader{b: b} }

var comma = []byte{','}

// piece returns the body's piece i: head, the messages with a comma
// between each two, then tail; false past the end.
func (b body) piece(i int) ([]byte, bool) {
	n := len(b.msgs)
	switch {
	case i == 0:
		return b.head, true
	case i < 2*n && i%2 == 1:
		return b.msgs[i/2], true
	case i < 2*n:
		return comma, true
	case i == max(2*n, 1): // with no messages, the tail follows the head
		return b.tail, true
	}
	return nil, false
}

// bodyReader reads a body's pieces in turn. Each Read fills as much of
// its buffer as the body has, whatever the pieces: net/http writes the
// body to the connection a Read at a time. Its WriteTo needs no buffer.
type bodyReader struct {
	b    body
	next int    // the piece after cur
	cur  []byte // what is left of the piece being read
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(r.cur) == 0 {
			piece, ok := r.b.piece(r.next)
			if !ok {
				break
			}
			r.cur, r.next = piece, r.next+1
			continue
		}
		k := copy(p[n:], r.cur)
		r.cur = r.cur[k:]
		n += k
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	var sum int64
	for {
		if len(r.cur) == 0 {
			piece, ok := r.b.piece(r.next)
			if !ok {
				return sum, nil
			}
			r.cur, r.next = piece, r.next+1
			continue
		}
		n, err := w.Write(r.cur)
		sum += int64(n)
		r.cur = r.cur[n:]
		if err != nil {
			return sum, err
		}
	}
}

var messagesKey = []byte(`"messages":[`)

// frameOf is the JSON of req without its messages (see framed).
func frameOf(req api.ChatRequest) ([]byte, error) {
	req.Messages = []api.Message{}
	return json.Marshal(req)
}

// framed returns the body of the request whose JSON without its messages
// is frame, as frameOf makes it, with msgs as its messages. It keeps
// slices of frame: frame must not change after.
func (s *sent) framed(frame []byte, msgs []protocol.Message) (body, error) {
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
		// The conversation went back: start new lists, so that a request
		// still being sent from the old ones is not changed.
		s.json = append([][]byte(nil), s.json[:same]...)
		s.msgs = s.msgs[:same]
		s.size = 0
		for i, j := range s.json {
			s.size += len(j) + min(i, 1)
		}
	}
	for _, m := range msgs[same:] {
		b, err := json.Marshal(api.Message{Role: string(m.Role), Content: m.Content})
		if err != nil {
			return body{}, err
		}
		s.size += len(b) + min(len(s.json), 1)
		s.msgs, s.json = append(s.msgs, m), append(s.json, b)
	}
	// Later requests only append past this length, or start anew.
	return body{head: frame[:at], msgs: s.json[:len(s.json):len(s.json)], msgsSize: s.size, tail: frame[at:]}, nil
}
