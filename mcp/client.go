package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"harness/approve"
	"harness/protocol"
	"harness/tools"
)

// DefaultTimeout bounds a server's start, and each call of its tools, when
// its settings give no timeout.
const DefaultTimeout = time.Minute

// Server is what the harness needs to know to reach one MCP server: a
// program (Command, Args, Env) or an address (URL).
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string // the program's whole environment
	URL     string
	// Tools, when not nil, are the only tools of the server that are
	// offered.
	Tools   []string
	Timeout time.Duration // 0: DefaultTimeout
	// Dir is the folder the program starts in: the workspace.
	Dir string
}

// Where says how the server is reached, for the user: its command line
// or its address.
func (s Server) Where() string {
	if s.URL != "" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

func (s Server) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// Status is what became of one server.
type Status struct {
	Server Server
	// Err says why the server could not be used; nil when it started.
	Err error
	// Tools are the specs of the tools the model is given, sorted by name.
	Tools []protocol.ToolSpec
	// Left are the tools the server has that Server.Tools leaves out.
	Left []string
	// Unnamed are the tools the server has that were left out for their
	// names: one the protocol cannot carry, or one an earlier tool of the
	// server has.
	Unnamed []string
	// Missing are the tools Server.Tools names that the server does not
	// have.
	Missing []string
}

// Servers are the MCP servers of a run. A nil *Servers has none.
type Servers struct {
	clients []*client
	close   sync.Once
}

// Start starts and connects to each of servers, at once, and lists their
// tools. A server that cannot be started or listed is no error of Start's:
// its Status says why, and it gives no tools.
func Start(ctx context.Context, servers []Server) *Servers {
	ss := &Servers{clients: make([]*client, len(servers))}
	var wg sync.WaitGroup
	for i, s := range servers {
		c := &client{server: s}
		ss.clients[i] = c
		wg.Go(func() { c.start(ctx) })
	}
	wg.Wait()
	return ss
}

// Status says, in the order the servers were given, what became of each.
func (ss *Servers) Status() []Status {
	if ss == nil {
		return nil
	}
	out := make([]Status, len(ss.clients))
	for i, c := range ss.clients {
		out[i] = c.status
	}
	return out
}

// Tools are the tools of the servers that started, to add to a tool set,
// each saying what a call of it would do (tools.Set.Inspect): its
// arguments, and the refusal of arguments that do not fit its schema.
func (ss *Servers) Tools() []tools.Tool {
	if ss == nil {
		return nil
	}
	var out []tools.Tool
	for _, c := range ss.clients {
		for _, t := range c.tools {
			out = append(out, t.Inspected(ss.inspect))
		}
	}
	return out
}

// inspect says what a call of a server's tool would do, for the approval
// step: its arguments (Subject), refused before anyone is asked when they
// do not fit the tool's input schema (Check).
func (ss *Servers) inspect(ctx context.Context, call protocol.Call) approve.Inspection {
	return approve.Inspection{Refusal: ss.Check(ctx, call), Subject: ss.Subject(call)}
}

// Close ends every session and stops the programs the servers run as,
// and what they started, within a few seconds (doc.go says how). Closing
// again does nothing more. There is nothing it can fail at: the error,
// for io.Closer, is always nil.
func (ss *Servers) Close() error {
	if ss == nil {
		return nil
	}
	ss.close.Do(func() {
		var wg sync.WaitGroup
		for _, c := range ss.clients {
			if c.conn != nil {
				wg.Go(c.conn.close)
			}
		}
		wg.Wait()
	})
	return nil
}

// client is the harness's side of one server.
type client struct {
	server Server
	status Status
	conn   conn
	tools  []tools.Tool
	// resolved holds the validator of each tool's input schema, by the
	// tool's name as the model calls it; nil for a schema it cannot read.
	resolved map[string]*validator
	stderr   *tail
}

// start connects to the server and lists its tools, within its timeout.
func (c *client) start(ctx context.Context) {
	c.status.Server = c.server
	// One timeout bounds the whole start: connecting and listing.
	ctx, cancel := context.WithTimeout(ctx, c.server.timeout())
	defer cancel()
	if err := c.connect(ctx); err != nil {
		c.status.Err = err
		return
	}
	if err := c.list(ctx); err != nil {
		c.conn.close()
		c.conn = nil // closed: Close must not close it again
		c.status.Err = err
		c.tools, c.status.Tools, c.resolved = nil, nil, nil
		c.status.Left, c.status.Unnamed, c.status.Missing = nil, nil, nil
	}
}

// connect starts the server and initializes the session, within ctx's
// deadline: the harness asks for protocolVersion, takes the server's
// answer when it is one of versions, and says it is ready.
func (c *client) connect(ctx context.Context) error {
	if c.server.URL != "" {
		c.conn = dialHTTP(c.server.URL)
	} else {
		c.stderr = &tail{max: 2048}
		sc, err := startStdio(c.server, c.stderr)
		if err != nil {
			return fmt.Errorf("could not start: %w", err)
		}
		c.conn = sc
	}
	err := c.initialize(ctx)
	if err != nil {
		c.conn.close()
		if errors.Is(err, errEnded) {
			err = fmt.Errorf("it stopped (%s)", fold(c.conn.why()))
		}
		c.conn = nil
		return c.failure(ctx, "could not start", err)
	}
	return nil
}

func (c *client) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "harness", "version": "1"},
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := c.conn.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	if !slices.Contains(versions, res.ProtocolVersion) {
		return fmt.Errorf("the server speaks MCP %q, which the harness does not (it speaks %s)", res.ProtocolVersion, strings.Join(versions, ", "))
	}
	c.conn.agree(res.ProtocolVersion)
	return c.conn.notify(ctx, "notifications/initialized", nil)
}

// tool is a tool as tools/list describes it.
type tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}

// maxPages bounds the pages of tools/list the harness reads.
const maxPages = 100

// listTools lists the server's tools, page after page.
func (c *client) listTools(ctx context.Context) ([]tool, error) {
	var all []tool
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var page struct {
			Tools      []tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := c.conn.call(ctx, "tools/list", params, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Tools...)
		if page.NextCursor == "" || page.NextCursor == cursor {
			return all, nil
		}
		cursor = page.NextCursor
	}
	return nil, fmt.Errorf("more than %d pages of tools", maxPages)
}

// list lists the server's tools and makes the ones offered, within ctx's
// deadline.
func (c *client) list(ctx context.Context) error {
	listed := map[string]bool{} // by the server, offered or not
	c.resolved = map[string]*validator{}
	list, err := c.listTools(ctx)
	if err != nil {
		return c.failure(ctx, "could not list its tools", err)
	}
	for _, t := range list {
		if listed[t.Name] || !nameOK(t.Name) {
			listed[t.Name] = true
			c.status.Unnamed = append(c.status.Unnamed, t.Name)
			continue
		}
		listed[t.Name] = true
		if c.server.Tools != nil && !slices.Contains(c.server.Tools, t.Name) {
			c.status.Left = append(c.status.Left, t.Name)
			continue
		}
		spec := protocol.ToolSpec{
			Name:        c.server.Name + "." + t.Name,
			Description: cut(fold(t.Description)),
			Args:        args(t.InputSchema),
			Writes:      true,
		}
		if spec.Description == "" {
			spec.Description = "a tool of the MCP server " + c.server.Name
		}
		c.resolved[spec.Name] = resolve(t.InputSchema)
		c.tools = append(c.tools, tools.Described(spec, c.caller(t.Name)))
		c.status.Tools = append(c.status.Tools, spec)
	}
	for _, name := range c.server.Tools {
		if !listed[name] {
			c.status.Missing = append(c.status.Missing, name)
		}
	}
	slices.SortFunc(c.status.Tools, func(a, b protocol.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(c.status.Left)
	slices.Sort(c.status.Unnamed)
	return nil
}

// nameOK reports whether a tool's name can be carried by the protocol: a
// word of printable characters, since a result's header holds it.
func nameOK(name string) bool {
	return name != "" && len(name) <= 128 && !strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r == 0x7f || r == '"' || r == '\\' || r > 0x7e
	})
}

// caller returns what runs the server's tool name.
func (c *client) caller(name string) func(context.Context, map[string]any) (string, error) {
	return func(ctx context.Context, args map[string]any) (string, error) {
		if c.stopped() {
			return "", c.stoppedError()
		}
		callCtx, cancel := context.WithTimeout(ctx, c.server.timeout())
		defer cancel()
		if args == nil {
			args = map[string]any{}
		}
		var res result
		err := c.conn.call(callCtx, "tools/call", map[string]any{"name": name, "arguments": args}, &res)
		// Once sent, a call may have acted whatever became of it: its
		// errors say so (tools.ErrMayHaveChanged), but for one the server
		// itself reports.
		switch {
		case err != nil && ctx.Err() != nil:
			return "", mayHaveActed{ctx.Err()}
		case err != nil && callCtx.Err() != nil:
			return "", mayHaveActed{fmt.Errorf("the MCP server %s did not answer within %s, so the call was given up; it may still have acted", c.server.Name, c.server.timeout())}
		case errors.Is(err, errEnded):
			return "", mayHaveActed{c.stoppedError()}
		case err != nil:
			return "", mayHaveActed{fmt.Errorf("the MCP server %s failed: %v", c.server.Name, err)}
		}
		text := bounded(res.body())
		if res.IsError {
			if strings.TrimSpace(text) == "" {
				text = "the tool reported an error and said nothing more"
			}
			return "", errors.New(text)
		}
		return text, nil
	}
}

// mayHaveActed is the error of a call that was sent and then failed: its
// text is err's, and it also wraps tools.ErrMayHaveChanged.
type mayHaveActed struct{ error }

func (e mayHaveActed) Unwrap() []error { return []error{e.error, tools.ErrMayHaveChanged} }

// stopped reports whether the session has ended: the program exited, or
// the connection closed.
func (c *client) stopped() bool {
	select {
	case <-c.conn.ended():
		return true
	default:
		return false
	}
}

// ErrStopped is wrapped by the error of a call of a server that stopped.
var ErrStopped = errors.New("the MCP server stopped")

func (c *client) stoppedError() error {
	msg := fmt.Sprintf("the MCP server %s stopped", c.server.Name)
	if why := fold(c.conn.why()); why != "" {
		msg += " (" + why + ")"
	}
	if last := c.lastWords(); last != "" {
		msg += "; its last words on stderr:\n" + last + "\n"
	} else {
		msg += "; "
	}
	return &stoppedErr{msg: msg + "its tools do not work for the rest of this run"}
}

type stoppedErr struct{ msg string }

func (e *stoppedErr) Error() string { return e.msg }
func (e *stoppedErr) Unwrap() error { return ErrStopped }

// failure is the error of a start that failed: why, with the timeout
// when it ran out and the last words of the program.
func (c *client) failure(ctx context.Context, what string, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("no answer within %s", c.server.timeout())
	}
	if last := c.lastWords(); last != "" {
		return fmt.Errorf("%s: %w; its last words on stderr: %s", what, err, fold(last))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// lastWords are the last lines the program wrote to stderr, each
// folded.
func (c *client) lastWords() string {
	if c.stderr == nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(c.stderr.String()), "\n")
	for i, l := range lines {
		lines[i] = fold(l)
	}
	return strings.Join(lines, "\n")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
		if i := bytes.IndexByte(t.buf, '\n'); i >= 0 {
			t.buf = t.buf[i+1:]
		}
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
