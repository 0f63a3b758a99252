package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"harness/mcp/mcptest"
)

// httpServer serves the test server over streamable HTTP on loopback.
func httpServer(t *testing.T, opts mcptest.Options) Server {
	ts := httptest.NewServer(mcptest.New(opts))
	t.Cleanup(ts.Close)
	return Server{Name: "web", URL: ts.URL, Timeout: 30 * time.Second}
}

// Close ends a call over HTTP that is still waiting for its answer.
func TestHTTPCloseEndsCalls(t *testing.T) {
	ss := Start(context.Background(), []Server{httpServer(t, mcptest.Options{})})
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	run := ss.clients[0].caller("wait")
	done := make(chan error, 1)
	go func() {
		_, err := run(context.Background(), map[string]any{"seconds": 20})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	ss.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the call succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call runs on after Close")
	}
}

// The requests a server makes in the stream of an answer are answered one
// at a time, before the call returns: a stream full of them opens no
// flood of connections.
func TestHTTPServerRequestsOneAtATime(t *testing.T) {
	var now, most, answered atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		if m.Method == "" { // the harness's answer to a ping
			n := now.Add(1)
			for old := most.Load(); n > old && !most.CompareAndSwap(old, n); old = most.Load() {
			}
			time.Sleep(10 * time.Millisecond)
			now.Add(-1)
			answered.Add(1)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 50 {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}\n\n", i)
		}
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
	}))
	defer ts.Close()
	c := dialHTTP(ts.URL)
	defer c.close()
	if err := c.call(t.Context(), "tools/call", nil, nil); err != nil {
		t.Fatal(err)
	}
	if most.Load() > 1 || answered.Load() != 50 {
		t.Errorf("%d pings answered by the call's end, at most %d at once; want 50, one at a time", answered.Load(), most.Load())
	}
}

// The harness does not resume a stream that breaks, which MCP 2025-11-25
// lets a server ask of its client: it asks for 2025-06-18, and refuses a
// server that speaks only the newer version.
func TestNoVersionThatResumes(t *testing.T) {
	var asked atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		if m.Method != "initialize" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		asked.Store(m.Params.ProtocolVersion)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`, m.ID)
	}))
	defer ts.Close()
	ss := Start(t.Context(), []Server{{Name: "new", URL: ts.URL, Timeout: 5 * time.Second}})
	defer ss.Close()
	err := ss.Status()[0].Err
	if asked.Load() != "2025-06-18" || err == nil || !strings.Contains(err.Error(), `speaks MCP "2025-11-25"`) {
		t.Errorf("asked for %v; start: %v", asked.Load(), err)
	}
}

// An event stream's lines may end in CR, LF or CRLF, and an event's data
// may hold a batch of messages, as a JSON body may.
func TestHTTPEventStreams(t *testing.T) {
	for name, stream := range map[string]string{
		"LF":    "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}\n\n",
		"CRLF":  "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}\r\n\r\n",
		"CR":    "event: message\rdata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"ok\":0}}\r\rdata: {\"jsonrpc\":\"2.0\",\r\rdata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}\r\r",
		"batch": "data: [{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"},\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}]\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, stream)
			}))
			defer ts.Close()
			c := dialHTTP(ts.URL)
			defer c.close()
			var got struct{ OK int }
			if err := c.call(t.Context(), "tools/call", nil, &got); err != nil || got.OK != 1 {
				t.Errorf("got %+v, %v; want the answer with ok 1", got, err)
			}
		})
	}
}

// Lines end in CR, LF or CRLF, however the stream is cut into reads.
func TestEventLines(t *testing.T) {
	for _, r := range []io.Reader{strings.NewReader("a\rb\r\nc\n\rd"), iotest.OneByteReader(strings.NewReader("a\rb\r\nc\n\rd"))} {
		sc := bufio.NewScanner(r)
		sc.Split(eventLines())
		var got []string
		for sc.Scan() {
			got = append(got, sc.Text())
		}
		if want := []string{"a", "b", "c", "", "d"}; !slices.Equal(got, want) {
			t.Errorf("lines %q, want %q", got, want)
		}
	}
}

// A result's text is kept up to maxResult bytes, and says it was cut.
func TestLongResultCut(t *testing.T) {
	ss := Start(t.Context(), []Server{httpServer(t, mcptest.Options{})})
	defer ss.Close()
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	got, err := ss.clients[0].caller("echo")(t.Context(), map[string]any{"text": strings.Repeat("é", maxResult)})
	if err != nil || len(got) > maxResult+200 || !strings.HasSuffix(got, fmt.Sprintf("[cut here: the result held %d bytes; the harness keeps the first %d]", 2*maxResult, maxResult)) {
		t.Errorf("a result of %d bytes ending %q, %v", len(got), got[max(0, len(got)-100):], err)
	}
}
