package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"harness/protocol"
	"harness/tools"
)

// testServer is the test binary as the test server (see TestMain in
// mcp_test.go), as it runs when mode is the value of HARNESS_MCPTEST.
func testServer(t *testing.T, mode string) Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: "t", Command: exe, Env: map[string]string{"HARNESS_MCPTEST": mode}, Timeout: 10 * time.Second}
}

// Answers are matched with their calls by id, not by their order: a call
// that waits does not hold up, or take, the answer of one made after it.
func TestCallsMatchedByID(t *testing.T) {
	ss := Start(t.Context(), []Server{testServer(t, "1")})
	defer ss.Close()
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	set, err := tools.NewSet(ss.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args map[string]any) (string, error) {
		res := set.Run(t.Context(), protocol.Call{ID: "call_1", Name: name, Args: args})
		if !res.OK {
			return "", errors.New(res.Body)
		}
		return res.Body, nil
	}
	var wg sync.WaitGroup
	var slow string
	wg.Go(func() { slow, _ = run("t.wait", map[string]any{"seconds": 0.5}) })
	time.Sleep(100 * time.Millisecond)
	for i := range 5 {
		want := strings.Repeat("x", i+1)
		if got, err := run("t.echo", map[string]any{"text": want}); got != want || err != nil {
			t.Errorf("echo %q = %q, %v", want, got, err)
		}
	}
	wg.Wait()
	if slow != "waited" {
		t.Errorf("wait = %q", slow)
	}
}

// Close closes the program's input, and kills a program that does not
// end 2 seconds later.
func TestCloseKillsStubbornServer(t *testing.T) {
	ss := Start(t.Context(), []Server{testServer(t, "stubborn")})
	if err := ss.Status()[0].Err; err != nil {
		t.Fatal(err)
	}
	c := ss.clients[0].conn.(*stdioConn)
	begin := time.Now()
	if err := ss.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	took := time.Since(begin)
	select {
	case <-c.exited:
	default:
		t.Fatal("the program runs on after Close")
	}
	if took < stopWait || took > stopWait+3*time.Second {
		t.Errorf("Close took %s, want a little over %s", took, stopWait)
	}
	if !strings.Contains(c.why(), "killed") {
		t.Errorf("the program ended so: %s", c.why())
	}
}

// A program that quits before it answers did not start: the error says
// how it ended.
func TestQuitAtStart(t *testing.T) {
	s := testServer(t, "0")
	s.Args = []string{"-test.run=^$"}
	ss := Start(context.Background(), []Server{s})
	defer ss.Close()
	err := ss.Status()[0].Err
	if err == nil || !strings.Contains(err.Error(), "could not start: it stopped (exit status 0)") {
		t.Errorf("start: %v", err)
	}
}

// What a program writes: answers go to their calls by id, whether alone
// or in a batch; its requests are answered (ping) or refused; its
// notifications, answers to no call and lines that are no JSON are
// dropped.
func TestStdioMessages(t *testing.T) {
	c := &stdioConn{outbox: make(chan []byte, 16), pending: map[string]chan *message{}}
	ch1, ch2 := make(chan *message, 1), make(chan *message, 1)
	c.pending["1"], c.pending["2"] = ch1, ch2
	for _, line := range []string{
		`not json`,
		``,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
		`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`,
		`{"jsonrpc":"2.0","id":7,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":2,"result":{"b":1}}, {"jsonrpc":"2.0","id":1,"result":{"a":1}}]`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
	} {
		c.handle([]byte(line))
	}
	for want, ch := range map[string]chan *message{`{"a":1}`: ch1, `{"b":1}`: ch2} {
		select {
		case m := <-ch:
			if string(m.Result) != want {
				t.Errorf("got %s, want %s", m.Result, want)
			}
		default:
			t.Errorf("no answer %s", want)
		}
	}
	want := `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32601,"message":"the client offers no method roots/list"}}
{"jsonrpc":"2.0","id":7,"result":{}}
`
	var out bytes.Buffer
	for len(c.outbox) > 0 {
		out.Write(<-c.outbox)
	}
	if out.String() != want {
		t.Errorf("written back:\n%s\nwant:\n%s", out.String(), want)
	}
}

// The reader answers a server's pings without waiting for a program that
// reads none of them: an answer that finds the queue full is dropped, and
// the answers to the harness's calls are still read.
func TestPingsDoNotHoldUpReading(t *testing.T) {
	c := &stdioConn{outbox: make(chan []byte, 16), pending: map[string]chan *message{}}
	ch := make(chan *message, 1)
	c.pending["1"] = ch
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			c.handle(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
		}
		c.handle([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reading stopped at the pings")
	}
	if len(ch) != 1 {
		t.Error("the answer to the call was not read")
	}
}

// A call given up on is followed by notifications/cancelled, but for
// initialize, which the protocol says must never be cancelled.
func TestCancelled(t *testing.T) {
	for _, method := range []string{"tools/call", "initialize"} {
		t.Run(method, func(t *testing.T) {
			// stdio: what the program would be sent.
			c := &stdioConn{outbox: make(chan []byte, 16), pending: map[string]chan *message{}}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
			defer cancel()
			if err := c.call(ctx, method, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("stdio call: %v", err)
			}
			var sent []string
			for len(c.outbox) > 0 {
				var m struct{ Method string }
				json.Unmarshal(<-c.outbox, &m)
				sent = append(sent, m.Method)
			}
			// HTTP: what the server is sent.
			var mu sync.Mutex
			var posted []string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var m struct{ Method string }
				json.NewDecoder(r.Body).Decode(&m)
				mu.Lock()
				posted = append(posted, m.Method)
				mu.Unlock()
				if m.Method == method {
					<-r.Context().Done()
				}
				w.WriteHeader(http.StatusAccepted)
			}))
			defer ts.Close()
			hc := dialHTTP(ts.URL)
			ctx, cancel = context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			if err := hc.call(ctx, method, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("HTTP call: %v", err)
			}
			// The cancel is sent in the background: wait a while for it.
			for range 20 {
				mu.Lock()
				n := len(posted)
				mu.Unlock()
				if n > 1 {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			hc.close()
			mu.Lock()
			defer mu.Unlock()
			want := []string{method, "notifications/cancelled"}
			if method == "initialize" {
				want = want[:1]
			}
			if !slices.Equal(sent, want) || !slices.Equal(posted, want) {
				t.Errorf("sent over stdio %q and over HTTP %q, want %q", sent, posted, want)
			}
		})
	}
}

// endless is an endless run of one byte.
type endless byte

func (b endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// A message longer than maxMessage is refused, not read into memory
// without end: a line over stdio, an event over HTTP.
func TestMessageTooLong(t *testing.T) {
	r := bufio.NewReader(io.MultiReader(strings.NewReader("{}\n"), endless('x')))
	if line, err := readLine(r); string(line) != "{}" || err != nil {
		t.Fatalf("the first line: %q, %v", line, err)
	}
	if _, err := readLine(r); !errors.Is(err, errTooLong) {
		t.Errorf("a line without end: %v", err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: ")
		io.Copy(w, io.LimitReader(endless('x'), maxMessage+1))
	}))
	defer ts.Close()
	c := dialHTTP(ts.URL)
	defer c.close()
	if err := c.call(t.Context(), "tools/call", nil, nil); !errors.Is(err, errTooLong) {
		t.Errorf("an event without end: %v", err)
	}
}

// pager is a connection to a server whose tools/list never ends: every
// page has a new cursor.
type pager struct{ pages int }

func (p *pager) call(_ context.Context, method string, params, result any) error {
	p.pages++
	return json.Unmarshal(fmt.Appendf(nil, `{"tools":[],"nextCursor":"%d"}`, p.pages), result)
}
func (p *pager) notify(context.Context, string, any) error { return nil }
func (p *pager) agree(string)                              {}
func (p *pager) ended() <-chan struct{}                    { return nil }
func (p *pager) why() string                               { return "" }
func (p *pager) close()                                    {}

// The harness reads at most maxPages pages of tools.
func TestMaxPages(t *testing.T) {
	p := &pager{}
	c := &client{conn: p}
	if _, err := c.listTools(t.Context()); err == nil || p.pages != maxPages {
		t.Errorf("after %d pages: %v", p.pages, err)
	}
}

// Close stops the servers at once, not one after another: two that do
// not end take one grace period, not two.
func TestCloseAllAtOnce(t *testing.T) {
	ss := Start(t.Context(), []Server{testServer(t, "stubborn"), testServer(t, "stubborn")})
	for _, st := range ss.Status() {
		if st.Err != nil {
			t.Fatal(st.Err)
		}
	}
	begin := time.Now()
	ss.Close()
	if took := time.Since(begin); took > 2*stopWait {
		t.Errorf("Close took %s, want a little over %s", took, stopWait)
	}
}
