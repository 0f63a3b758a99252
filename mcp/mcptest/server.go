// Package mcptest is a small MCP server for the tests and the tour: a few
// tools that show each kind of result a server gives, served over
// standard input and output or over streamable HTTP. It is written
// without an MCP library, in a few hundred lines, and is checked against
// the official SDK's client in package mcp's tests.
//
//	echo(text)            the text back
//	add(a, b)             the sum of two numbers
//	join(words, sep?)     the words joined: an array argument
//	fail(why)             an error result (isError)
//	picture()             an image, which the harness describes in a line
//	wait(seconds)         waits, for the tests of a server that hangs
//	env()                 the names of the server's environment variables (only with Process)
//	exit(code)            the server exits at once (only with Process)
//
// Arguments are read as JSON into the tool's fields: a property the tool
// does not have, a missing required one or a value of the wrong type is
// an error result that says so.
//
// The server holds its client to the protocol where a lax server would
// hide the client's mistakes: a request other than ping before
// notifications/initialized gets an error, and over HTTP a message after
// initialize without the agreed version in MCP-Protocol-Version gets 400
// Bad Request.
package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options choose what the server has beside its usual tools.
type Options struct {
	// Process adds the tools of a server that runs as a process of its
	// own: env, which names the variables of the process's environment,
	// and exit, which ends it.
	Process bool
	// PageSize, when above 0, is how many tools each page of tools/list
	// holds; the next page is asked for with the nextCursor of the one
	// before.
	PageSize int
	// Stream answers each tools/call over HTTP with a stream of
	// server-sent events, which first asks the client for its roots (a
	// request the client must refuse) and then carries the result, as
	// servers that report progress do; other answers are plain JSON.
	Stream bool
	// Odd adds tools whose names the harness cannot offer: one with a
	// space in its name, and a second echo.
	Odd bool
}

// versions are the protocol versions the server speaks, newest first.
var versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Server is the test server. It is an http.Handler for streamable HTTP.
type Server struct {
	opts  Options
	tools []tool

	mu       sync.Mutex
	sessions map[string]*session
}

// session is what the server knows of one client's session.
type session struct {
	mu      sync.Mutex
	version string // agreed at initialize
	ready   bool   // notifications/initialized came
}

func (ses *session) agreed() (version string, ready bool) {
	ses.mu.Lock()
	defer ses.mu.Unlock()
	return ses.version, ses.ready
}

// take notes what m changes of the session.
func (ses *session) take(m *message, version string) {
	ses.mu.Lock()
	defer ses.mu.Unlock()
	switch m.Method {
	case "initialize":
		ses.version = version
	case "notifications/initialized":
		ses.ready = true
	}
}

// early is the error of a request that comes before
// notifications/initialized and may not; nil for one that may.
func (ses *session) early(m *message) *rpcError {
	if _, ready := ses.agreed(); ready || m.Method == "initialize" || m.Method == "ping" {
		return nil
	}
	return &rpcError{Code: -32600, Message: m.Method + " before notifications/initialized"}
}

// tool is one tool: what tools/list says of it, and what runs it.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	run         func(ctx context.Context, args json.RawMessage) (*result, error)
}

// result is a tool's result, as tools/call answers it.
type result struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

type content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
}

func text(s string) *result { return &result{Content: []content{{Type: "text", Text: s}}} }

// prop is one property of an input schema.
type prop struct {
	name, typ, description string
	items                  string // the type of an array's items
	optional               bool
}

// schema is the input schema of a tool whose arguments are props.
func schema(props ...prop) map[string]any {
	s := map[string]any{"type": "object", "additionalProperties": false}
	if len(props) == 0 {
		return s
	}
	ps := map[string]any{}
	required := []string{}
	for _, p := range props {
		ps[p.name] = map[string]any{"type": p.typ, "description": p.description}
		if p.items != "" {
			ps[p.name] = map[string]any{"type": []string{"null", p.typ}, "items": map[string]any{"type": p.items}, "description": p.description}
		}
		if !p.optional {
			required = append(required, p.name)
		}
	}
	s["properties"], s["required"] = ps, required
	return s
}

// add adds a tool whose arguments are read into a new In.
func add[In any](s *Server, name, description string, props []prop, run func(context.Context, In) (*result, error)) {
	var required []string
	for _, p := range props {
		if !p.optional {
			required = append(required, p.name)
		}
	}
	s.tools = append(s.tools, tool{Name: name, Description: description, InputSchema: schema(props...),
		run: func(ctx context.Context, raw json.RawMessage) (*result, error) {
			var in In
			if err := arguments(raw, required, &in); err != nil {
				res := text("invalid arguments: " + err.Error())
				res.IsError = true
				return res, nil
			}
			return run(ctx, in)
		}})
}

// arguments reads raw into in: every name of required must be there, and
// no property in has not.
func arguments(raw json.RawMessage, required []string, in any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var names map[string]json.RawMessage
	if err := json.Unmarshal(raw, &names); err != nil {
		return err
	}
	for _, r := range required {
		if _, ok := names[r]; !ok {
			return fmt.Errorf("missing property %q", r)
		}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(in)
}

type echoIn struct {
	Text string `json:"text"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type joinIn struct {
	Words []string `json:"words"`
	Sep   string   `json:"sep"`
}

type failIn struct {
	Why string `json:"why"`
}

type waitIn struct {
	Seconds float64 `json:"seconds"`
}

type exitIn struct {
	Code int `json:"code"`
}

// New returns the server.
func New(opts Options) *Server {
	s := &Server{opts: opts, sessions: map[string]*session{}}
	add(s, "add", "Add two numbers.", []prop{{name: "a", typ: "number", description: "the first number"}, {name: "b", typ: "number", description: "the second number"}},
		func(_ context.Context, in addIn) (*result, error) {
			return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil
		})
	add(s, "echo", "Send the text back.", []prop{{name: "text", typ: "string", description: "the text to send back"}},
		func(_ context.Context, in echoIn) (*result, error) { return text(in.Text), nil })
	if opts.Process {
		add(s, "env", "Name the variables of the server's environment.", nil, func(context.Context, struct{}) (*result, error) {
			var names []string
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
			slices.Sort(names)
			return text(strings.Join(names, "\n")), nil
		})
		add(s, "exit", "End the server at once.", []prop{{name: "code", typ: "integer", description: "the exit status"}}, func(_ context.Context, in exitIn) (*result, error) {
			os.Stderr.WriteString("exiting as asked\n")
			os.Exit(in.Code)
			return nil, nil
		})
	}
	add(s, "fail", "Fail with the reason given.", []prop{{name: "why", typ: "string", description: "what the error says"}},
		func(_ context.Context, in failIn) (*result, error) {
			res := text(in.Why)
			res.IsError = true
			return res, nil
		})
	add(s, "join", "Join words into one line.", []prop{{name: "sep", typ: "string", description: "what goes between them", optional: true}, {name: "words", typ: "array", items: "string", description: "the words to join"}},
		func(_ context.Context, in joinIn) (*result, error) {
			sep := in.Sep
			if sep == "" {
				sep = " "
			}
			return text(strings.Join(in.Words, sep)), nil
		})
	add(s, "picture", "Return a small picture.", nil, func(context.Context, struct{}) (*result, error) {
		png := []byte("\x89PNG\r\n\x1a\n0123456789")
		return &result{Content: []content{{Type: "text", Text: "a picture:"}, {Type: "image", MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(png)}}}, nil
	})
	if opts.Odd {
		add(s, "two words", "A tool whose name has a space.", nil, func(context.Context, struct{}) (*result, error) { return text("odd"), nil })
		add(s, "echo", "A second tool of the same name.", nil, func(context.Context, struct{}) (*result, error) { return text("second"), nil })
	}
	add(s, "wait", "Wait, then say so.", []prop{{name: "seconds", typ: "number", description: "how long to wait"}}, func(ctx context.Context, in waitIn) (*result, error) {
		select {
		case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			return text("waited"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	return s
}

// message is a JSON-RPC message, either way.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

func (m *message) isCall() bool { return m.Method != "" && len(m.ID) > 0 }

// answer is the server's response to the request m, in session ses.
func (s *Server) answer(ctx context.Context, ses *session, m *message) *message {
	res, err := s.respond(ctx, m)
	if v, ok := res.(initialized); ok {
		ses.take(m, v.ProtocolVersion)
	}
	out := &message{JSONRPC: "2.0", ID: m.ID}
	var re *rpcError
	switch {
	case errors.As(err, &re):
		out.Error = re
	case err != nil:
		out.Error = &rpcError{Code: -32603, Message: err.Error()}
	default:
		out.Result = res
	}
	return out
}

func (s *Server) respond(ctx context.Context, m *message) (any, error) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(m.Params, &p)
		v := p.ProtocolVersion
		if !slices.Contains(versions, v) {
			v = versions[0]
		}
		return initialized{
			ProtocolVersion: v,
			Capabilities:    map[string]any{"tools": map[string]any{}},
			ServerInfo:      map[string]string{"name": "harness-test", "version": "1"},
		}, nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.list(m.Params)
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &rpcError{Code: -32602, Message: err.Error()}
		}
		i := slices.IndexFunc(s.tools, func(t tool) bool { return t.Name == p.Name })
		if i < 0 {
			return nil, &rpcError{Code: -32602, Message: fmt.Sprintf("unknown tool %q", p.Name)}
		}
		return s.tools[i].run(ctx, p.Arguments)
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + m.Method}
}

// initialized is the result of initialize.
type initialized struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Capabilities    map[string]any    `json:"capabilities"`
	ServerInfo      map[string]string `json:"serverInfo"`
}

// list is a page of tools/list: all the tools, or PageSize of them from
// the cursor on.
func (s *Server) list(params json.RawMessage) (any, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(params, &p)
	from, to := 0, len(s.tools)
	if s.opts.PageSize > 0 {
		if p.Cursor != "" {
			n, err := strconv.Atoi(p.Cursor)
			if err != nil || n < 0 || n > len(s.tools) {
				return nil, &rpcError{Code: -32602, Message: "invalid cursor"}
			}
			from = n
		}
		to = min(from+s.opts.PageSize, len(s.tools))
	}
	page := map[string]any{"tools": s.tools[from:to]}
	if to < len(s.tools) {
		page["nextCursor"] = strconv.Itoa(to)
	}
	return page, nil
}

// Serve runs the server over standard input and output until the client
// closes its side or ctx ends.
func Serve(ctx context.Context, opts Options) error {
	return New(opts).ServeStdio(ctx, os.Stdin, os.Stdout)
}

// ServeStdio serves the messages of r, one a line, answering on w, until
// r ends, and the requests running then are answered, or ctx ends. Each
// request runs by itself, so that one that waits holds up no other;
// notifications/cancelled cancels the request it names.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	ses := &session{}
	var calls sync.WaitGroup
	var wmu sync.Mutex
	write := func(m *message) {
		data, err := json.Marshal(m)
		if err != nil {
			return
		}
		wmu.Lock()
		defer wmu.Unlock()
		w.Write(append(data, '\n'))
	}
	var mu sync.Mutex
	running := map[string]context.CancelFunc{}
	lines := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			select {
			case lines <- slices.Clone(sc.Bytes()):
			case <-ctx.Done():
				return
			}
		}
		errc <- sc.Err()
	}()
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			calls.Wait()
			return err
		case line = <-lines:
		}
		var m message
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &m); err != nil {
			write(&message{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32700, Message: "parse error"}})
			continue
		}
		switch {
		case m.isCall() && ses.early(&m) != nil:
			write(&message{JSONRPC: "2.0", ID: m.ID, Error: ses.early(&m)})
		case m.isCall():
			id := string(m.ID)
			callCtx, cancel := context.WithCancel(ctx)
			mu.Lock()
			running[id] = cancel
			mu.Unlock()
			calls.Go(func() {
				out := s.answer(callCtx, ses, &m)
				mu.Lock()
				delete(running, id)
				mu.Unlock()
				cancel()
				write(out)
			})
		case m.Method == "notifications/initialized":
			ses.take(&m, "")
		case m.Method == "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			mu.Lock()
			if cancel := running[string(p.RequestID)]; cancel != nil {
				cancel()
			}
			mu.Unlock()
		}
	}
}

// ServeHTTP serves streamable HTTP: each POST carries one message; a
// request is answered in the response (JSON, or with Stream an event
// stream), anything else with 202 Accepted. Initialize starts a session,
// whose id every later message must carry; DELETE ends it. There is no
// stream of the server's own (GET).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		s.mu.Lock()
		known := s.sessions[sid] != nil
		delete(s.sessions, sid)
		s.mu.Unlock()
		if !known {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "only POST and DELETE", http.StatusMethodNotAllowed)
		return
	}
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		http.Error(w, "Accept must name application/json and text/event-stream", http.StatusNotAcceptable)
		return
	}
	var m message
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&m); err != nil {
		http.Error(w, "a body that is no JSON-RPC message: "+err.Error(), http.StatusBadRequest)
		return
	}
	var ses *session
	if m.Method == "initialize" {
		id := rand.Text()
		ses = &session{}
		s.mu.Lock()
		s.sessions[id] = ses
		s.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
	} else {
		s.mu.Lock()
		ses = s.sessions[sid]
		s.mu.Unlock()
		if ses == nil {
			http.Error(w, "no such session", http.StatusNotFound)
			return
		}
		if version, _ := ses.agreed(); r.Header.Get("Mcp-Protocol-Version") != version {
			http.Error(w, "MCP-Protocol-Version must be "+version+", the version agreed at initialize", http.StatusBadRequest)
			return
		}
	}
	if !m.isCall() {
		ses.take(&m, "")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := &message{JSONRPC: "2.0", ID: m.ID, Error: ses.early(&m)}
	if out.Error == nil {
		out = s.answer(r.Context(), ses, &m)
	}
	if !s.opts.Stream || m.Method != "tools/call" {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ask, _ := json.Marshal(message{JSONRPC: "2.0", ID: json.RawMessage(`"roots-1"`), Method: "roots/list"})
	data, _ := json.Marshal(out)
	fmt.Fprintf(w, ": a comment, which the client skips\n\nid: 1\ndata:\n\nevent: message\nid: 2\ndata: %s\n\nid: 3\ndata: %s\n\n", ask, data)
}

// Listen serves the server over streamable HTTP on loopback, at the path
// /mcp, until stop is called; it returns the server's address.
func Listen(opts Options) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", New(opts))
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String() + "/mcp", func() { hs.Close() }, nil
}
