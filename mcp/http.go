package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// httpConn speaks streamable HTTP: each message is POSTed to the server's
// address, and the answer to a request comes back as the response's body,
// either one JSON message or a stream of server-sent events that carries
// it. The harness asks for no stream of its own (GET): it has nothing to
// hear from a server between its calls.
type httpConn struct {
	url    string
	client *http.Client
	next   atomic.Int64

	mu      sync.Mutex
	session string // the Mcp-Session-Id the server gave at initialize
	version string // the protocol version agreed at initialize
	reason  string // why the session ended, once it has

	// base is the context of every request, which close cancels, so
	// that no call outlives the connection.
	base       context.Context
	cancelBase context.CancelFunc
	end        sync.Once
	done       chan struct{}
}

func dialHTTP(url string) *httpConn {
	base, cancel := context.WithCancel(context.Background())
	return &httpConn{url: url, client: &http.Client{}, base: base, cancelBase: cancel, done: make(chan struct{})}
}

// within is ctx, ended also when the connection ends.
func (c *httpConn) within(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(c.base, cancel)
	return ctx, func() { unhook(); cancel() }
}

// post sends one message, with the session's headers.
func (c *httpConn) post(ctx context.Context, v any) (*http.Response, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.headers(req)
	return c.client.Do(req)
}

func (c *httpConn) headers(req *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
}

// refused is the error of a response whose status is not a success,
// with the start of what it says; a 404 in a session means the server
// ended the session, and ends the connection.
func (c *httpConn) refused(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	msg := resp.Status
	if s := fold(string(body)); s != "" {
		msg += ": " + s
	}
	c.mu.Lock()
	inSession := c.session != ""
	c.mu.Unlock()
	if resp.StatusCode == http.StatusNotFound && inSession {
		c.stop("it ended the session: " + msg)
		return errEnded
	}
	return fmt.Errorf("HTTP %s", msg)
}

func (c *httpConn) stop(why string) {
	c.end.Do(func() {
		c.mu.Lock()
		c.reason = why
		c.mu.Unlock()
		close(c.done)
		c.cancelBase()
	})
}

func (c *httpConn) call(ctx context.Context, method string, params, result any) error {
	select {
	case <-c.done:
		return errEnded
	default:
	}
	id := c.next.Add(1)
	rctx, stop := c.within(ctx)
	defer stop()
	resp, err := c.post(rctx, request{JSONRPC: "2.0", ID: &id, Method: method, Params: params})
	if err != nil {
		return c.failed(ctx, method, id, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.refused(resp)
	}
	if method == "initialize" {
		c.mu.Lock()
		c.session = resp.Header.Get("Mcp-Session-Id")
		c.mu.Unlock()
	}
	m, err := c.answer(rctx, resp, strconv.FormatInt(id, 10))
	if err != nil {
		return c.failed(ctx, method, id, err)
	}
	return m.decode(result)
}

// failed is the error of the call id, which got no answer: errEnded when
// the connection ended, and ctx's error when ctx did, once the server is
// told (but of initialize, which must never be cancelled).
func (c *httpConn) failed(ctx context.Context, method string, id int64, err error) error {
	select {
	case <-c.done:
		return errEnded
	default:
	}
	if ctx.Err() != nil {
		if method != "initialize" {
			c.cancel(ctx, id)
		}
		return ctx.Err()
	}
	return err
}

// cancel tells the server that the harness gave up on request id, in the
// background and without waiting long.
func (c *httpConn) cancel(ctx context.Context, id int64) {
	why := context.Cause(ctx).Error()
	go func() {
		ctx, stop := context.WithTimeout(context.Background(), stopWait)
		defer stop()
		c.notify(ctx, "notifications/cancelled", cancelled{RequestID: id, Reason: why})
	}()
}

// answer finds the response to the request id in resp's body: the body
// itself, or one of the events of its stream. Requests of the server's
// on the way are answered.
func (c *httpConn) answer(ctx context.Context, resp *http.Response, id string) (*message, error) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage+1))
		if err != nil {
			return nil, err
		}
		if len(data) > maxMessage {
			return nil, errTooLong
		}
		batch, err := messages(data)
		if err != nil {
			return nil, fmt.Errorf("an answer the harness cannot read: %w", err)
		}
		for i := range batch {
			if m := c.take(ctx, &batch[i], id); m != nil {
				return m, nil
			}
		}
		return nil, errors.New("the server's answer holds no response to the request")
	case "text/event-stream":
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), maxMessage+len("data: \r\n"))
		sc.Split(eventLines())
		var data []byte
		for {
			if !sc.Scan() {
				err := sc.Err()
				switch {
				case err == nil:
					err = errors.New("the server's stream ended before it answered")
				case errors.Is(err, bufio.ErrTooLong):
					err = errTooLong
				}
				return nil, err
			}
			line := sc.Bytes()
			switch field, value, _ := strings.Cut(string(line), ":"); {
			case len(line) == 0: // the end of an event
				batch, _ := messages(data)
				for i := range batch {
					if m := c.take(ctx, &batch[i], id); m != nil {
						return m, nil
					}
				}
				data = data[:0]
			case field == "data":
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(value, " ")...)
				if len(data) > maxMessage {
					return nil, errTooLong
				}
			}
		}
	}
	return nil, fmt.Errorf("an answer of type %q, neither JSON nor an event stream", resp.Header.Get("Content-Type"))
}

// eventLines splits an event stream into lines, which end in CR, LF or
// CRLF. It remembers how far into a line it has looked, so that a long
// line is searched once, not once for each read.
func eventLines() bufio.SplitFunc {
	seen := 0 // the bytes at the start of data that hold no line end
	return func(data []byte, atEOF bool) (advance int, token []byte, err error) {
		i := bytes.IndexAny(data[seen:], "\r\n")
		if i < 0 {
			seen = len(data)
			if atEOF && len(data) > 0 {
				seen = 0
				return len(data), data, nil
			}
			return 0, nil, nil // read more
		}
		i += seen
		seen = 0
		switch {
		case data[i] == '\n':
			return i + 1, data[:i], nil
		case i+1 < len(data) && data[i+1] == '\n':
			return i + 2, data[:i], nil
		case i+1 < len(data) || atEOF:
			return i + 1, data[:i], nil
		}
		seen = i // a CR at the end: is an LF next?
		return 0, nil, nil
	}
}

// take returns m when it is the response to id; a request of the
// server's gets its answer there and then, within stopWait, so that a
// stream of requests is answered one at a time.
func (c *httpConn) take(ctx context.Context, m *message, id string) *message {
	switch {
	case m.isRequest():
		ctx, cancel := context.WithTimeout(ctx, stopWait)
		defer cancel()
		resp, err := c.post(ctx, answer(m))
		if err == nil {
			resp.Body.Close()
		}
	case m.Method == "" && key(m.ID) == id:
		return m
	}
	return nil
}

func (c *httpConn) notify(ctx context.Context, method string, params any) error {
	ctx, stop := c.within(ctx)
	defer stop()
	resp, err := c.post(ctx, request{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.refused(resp)
	}
	return nil
}

// agree keeps the version for the Mcp-Protocol-Version header of every
// later message.
func (c *httpConn) agree(version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version = version
}

func (c *httpConn) ended() <-chan struct{} { return c.done }

func (c *httpConn) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// close ends the session: the server is told with a DELETE, which it may
// refuse.
func (c *httpConn) close() {
	c.mu.Lock()
	session := c.session
	c.mu.Unlock()
	c.stop("the harness closed it")
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	c.headers(req)
	if resp, err := c.client.Do(req); err == nil {
		resp.Body.Close()
	}
	c.client.CloseIdleConnections()
}
