package ollama

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/ollama/ollama/api"
)

// chunk is what the adapter reads of each api.ChatResponse in a reply's
// stream, under the same names. Decoding the whole response at every chunk
// (its time stamp, its message twice over, as api.Message decodes itself)
// was most of the time the adapter spent reading.
type chunk struct {
	Message struct {
		Content  string `json:"content"`
		Thinking string `json:"thinking"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	api.Metrics
	Error string `json:"error"`
}

// readers are the buffers replies are read with: one for every reply
// being read, not a new one for every step.
var readers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// post sends a request to /api/chat and calls fn with each chunk of the streamed
// reply, reading the stream with a pooled reader of 4 KiB (a longer line is
// copied out of it). An HTTP error status is an api.StatusError, an error chunk
// in the stream a plain error, as api.Client reports them.
func (m *Model) post(ctx context.Context, b body, fn func(*chunk) error) error {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, m.chat, b.reader())
	if err != nil {
		return err
	}
	hreq.ContentLength = b.size()
	hreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(b.reader()), nil }
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/x-ndjson")
	resp, err := m.http.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	failed := resp.StatusCode >= http.StatusBadRequest
	done := false
	r := readers.Get().(*bufio.Reader)
	r.Reset(resp.Body)
	defer func() {
		r.Reset(nil)
		readers.Put(r)
	}()
	for {
		line, rerr := readLine(r)
		if line = bytes.TrimSpace(line); len(line) > 0 {
			if failed {
				return statusError(resp, line)
			}
			var c chunk
			if err := json.Unmarshal(line, &c); err != nil {
				return fmt.Errorf("reading the reply: %w", err)
			}
			if c.Error != "" {
				return errors.New(c.Error)
			}
			done = done || c.Done
			if err := fn(&c); err != nil {
				return err
			}
		}
		switch {
		case rerr == io.EOF && failed:
			return statusError(resp, nil)
		case rerr == io.EOF && !done:
			// A reply cut short in transit is not a reply: its calls
			// may be missing their ends.
			return ErrIncomplete
		case rerr == io.EOF:
			return nil
		case rerr != nil:
			return rerr
		}
	}
}

// readLine returns the next line of r, with its newline: a slice of r's
// buffer, good until the next read, when the line fits in it (as a
// reply's chunks do), else a copy.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	long := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = r.ReadSlice('\n')
		long = append(long, line...)
	}
	return long, err
}

// maxAnswer bounds how much of an answer other than a reply's stream is
// read.
const maxAnswer = 4 << 20

// get sends a request to /api/NAME, with body as JSON when it is not nil,
// and returns the body of the answer, up to maxAnswer. An HTTP error status
// is an api.StatusError.
func (m *Model) get(ctx context.Context, method, name string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, m.host.JoinPath("api", name).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := m.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= http.StatusBadRequest {
		return nil, statusError(resp, bytes.TrimSpace(data))
	}
	return data, nil
}

// statusError is the error for a reply with an HTTP error status: the
// server's {"error": ...} message, or the body as it is.
func statusError(resp *http.Response, body []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	msg := string(body)
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	return api.StatusError{StatusCode: resp.StatusCode, Status: resp.Status, ErrorMessage: msg}
}
