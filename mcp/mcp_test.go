package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"harness/mcp"
	"harness/mcp/mcptest"
	"harness/protocol"
	"harness/tools"
)

// TestMain makes the test binary the test server when its environment
// says so: the stdio tests start it as a program.
func TestMain(m *testing.M) {
	if os.Getenv("HARNESS_MCPTEST") == "sdk" {
		if err := sdkServer(nil).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv("HARNESS_MCPTEST") == "stubborn" {
		// A server that does not end when its input does.
		mcptest.Serve(context.Background(), mcptest.Options{})
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	if os.Getenv("HARNESS_MCPTEST") == "1" {
		if err := mcptest.Serve(context.Background(), mcptest.Options{Process: true}); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stdio is the test server as a program, with the environment extra adds.
func stdio(t *testing.T, extra map[string]string) mcp.Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HARNESS_MCPTEST": "1"}
	for k, v := range extra {
		env[k] = v
	}
	return mcp.Server{Name: "t", Command: exe, Env: env, Dir: t.TempDir()}
}

// loopback serves the test server over streamable HTTP on loopback.
func loopback(t *testing.T) mcp.Server {
	ts := httptest.NewServer(mcptest.New(mcptest.Options{}))
	t.Cleanup(ts.Close)
	return mcp.Server{Name: "web", URL: ts.URL}
}

func start(t *testing.T, s mcp.Server) (*mcp.Servers, *tools.Set) {
	t.Helper()
	ss := mcp.Start(context.Background(), []mcp.Server{s})
	t.Cleanup(func() { ss.Close() })
	st := ss.Status()[0]
	if st.Err != nil {
		t.Fatalf("start: %v", st.Err)
	}
	set, err := tools.NewSet(ss.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	return ss, set
}

func call(name string, args string) protocol.Call {
	c := protocol.Call{ID: "call_1", Name: name}
	d := json.NewDecoder(strings.NewReader(args))
	d.UseNumber()
	if err := d.Decode(&c.Args); err != nil {
		panic(err)
	}
	return c
}

func TestTransports(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server func(*testing.T) mcp.Server
	}{
		{"stdio", func(t *testing.T) mcp.Server { return stdio(t, nil) }},
		{"http", loopback},
		{"http-stream-pages", func(t *testing.T) mcp.Server {
			ts := httptest.NewServer(mcptest.New(mcptest.Options{Stream: true, PageSize: 2}))
			t.Cleanup(ts.Close)
			return mcp.Server{Name: "web", URL: ts.URL}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.server(t)
			ss, set := start(t, s)
			p := s.Name + "."
			specs := set.Specs()
			if n := len(ss.Status()[0].Tools); n != 6 && n != 8 {
				t.Errorf("%d tools", n)
			}
			add := specs[0]
			if add.Name != p+"add" || !add.Writes || len(add.Args) != 2 || add.Args[0] != (protocol.Arg{Name: "a", Type: protocol.Number, Required: true, Description: "the first number"}) {
				t.Errorf("first spec %+v", add)
			}
			for _, tt := range []struct {
				call protocol.Call
				ok   bool
				body string
			}{
				{call(p+"echo", `{"text":"hello\nworld"}`), true, "hello\nworld"},
				{call(p+"add", `{"a":1.5,"b":2}`), true, "3.5"},
				{call(p+"join", `{"words":["a","b"],"sep":"-"}`), true, "a-b"},
				{call(p+"fail", `{"why":"no luck"}`), false, "no luck"},
				{call(p+"picture", `{}`), true, "a picture:\n[image: image/png, 18 bytes]"},
				{call(p+"add", `{"a":"one","b":2}`), false, `Nothing was run: argument "a" of ` + p + `add must be a number, not a string. Arguments of ` + p + `add: a (number, required), b (number, required)`},
			} {
				if err := ss.Check(context.Background(), tt.call); err != nil && !strings.HasPrefix(tt.body, "Nothing was run") {
					t.Errorf("Check(%s) = %v", tt.call.Name, err)
				}
				res := set.Run(context.Background(), tt.call)
				if res.OK != tt.ok || !strings.HasPrefix(res.Body, tt.body) {
					t.Errorf("%s: OK %v, body %q; want %v, %q", tt.call.Name, res.OK, res.Body, tt.ok, tt.body)
				}
			}
		})
	}
}

func TestCheckSchema(t *testing.T) {
	ss, _ := start(t, loopback(t))
	err := ss.Check(context.Background(), call("web.join", `{"words":["a",2]}`))
	if err == nil || !strings.HasPrefix(err.Error(), "Nothing was run: the arguments do not fit the input schema of web.join: ") || !strings.Contains(err.Error(), "Arguments of web.join: words (array, required)") {
		t.Errorf("Check = %v", err)
	}
	if err := ss.Check(context.Background(), call("read_file", `{"path":1}`)); err != nil {
		t.Errorf("Check of another tool = %v, want nil", err)
	}
}

func TestSubject(t *testing.T) {
	ss, _ := start(t, loopback(t))
	for _, tt := range []struct {
		call protocol.Call
		want string
	}{
		{call("web.add", `{"b":2,"a":1}`), `{"a":1,"b":2}`},
		{call("web.echo", `{"text":"two\nlines"}`), "text: two\nlines\n"},
		{call("web.picture", `{}`), "{}"},
		{call("bash", `{"command":"ls"}`), ""},
	} {
		if got := ss.Subject(tt.call); got != tt.want {
			t.Errorf("Subject(%s) = %q, want %q", tt.call.Name, got, tt.want)
		}
	}
}

// A server's tools say of their calls what Check and Subject say, through
// the tool set, for the approval step.
func TestInspect(t *testing.T) {
	_, set := start(t, loopback(t))
	in := set.Inspect(t.Context(), call("web.join", `{"words":["a",2]}`))
	if in.Refusal == nil || !strings.Contains(in.Refusal.Error(), "do not fit the input schema of web.join") || in.Subject != `{"words":["a",2]}` {
		t.Errorf("a call that does not fit: %+v", in)
	}
	in = set.Inspect(t.Context(), call("web.echo", `{"text":"two\nlines"}`))
	if in.Refusal != nil || in.Subject != "text: two\nlines\n" || in.Edits || in.Reads != nil {
		t.Errorf("a call that fits: %+v", in)
	}
}

func TestAllowList(t *testing.T) {
	s := loopback(t)
	s.Tools = []string{"echo", "nope"}
	ss := mcp.Start(context.Background(), []mcp.Server{s})
	defer ss.Close()
	st := ss.Status()[0]
	if len(st.Tools) != 1 || st.Tools[0].Name != "web.echo" || strings.Join(st.Missing, ",") != "nope" || strings.Join(st.Left, ",") != "add,fail,join,picture,wait" {
		t.Errorf("status %+v", st)
	}
}

func TestHangAndDeath(t *testing.T) {
	s := stdio(t, nil)
	s.Timeout = 2 * time.Second
	_, set := start(t, s)
	res := set.Run(context.Background(), call("t.wait", `{"seconds":30}`))
	if res.OK || !strings.Contains(res.Body, "did not answer within 2s") || !res.Wrote {
		t.Errorf("hang: %+v", res)
	}
	res = set.Run(context.Background(), call("t.exit", `{"code":3}`))
	if res.OK || !strings.Contains(res.Body, "the MCP server t stopped") || !strings.Contains(res.Body, "exiting as asked") || !res.Wrote {
		t.Errorf("exit: %+v", res)
	}
	res = set.Run(context.Background(), call("t.echo", `{"text":"hi"}`))
	if res.OK || !strings.Contains(res.Body, "do not work for the rest of this run") || res.Wrote {
		t.Errorf("after exit: %+v", res)
	}
}

func TestStartFailures(t *testing.T) {
	missing := mcp.Server{Name: "gone", Command: "/nonexistent/mcp-server"}
	mute := mcp.Server{Name: "mute", Command: "sleep", Args: []string{"30"}, Timeout: 500 * time.Millisecond}
	quits := stdio(t, nil)
	quits.Env["HARNESS_MCPTEST"] = "0" // the test binary runs its tests instead, and quits
	quits.Args = []string{"-test.run=^$"}
	quits.Timeout = 5 * time.Second
	begin := time.Now()
	ss := mcp.Start(context.Background(), []mcp.Server{missing, quits, mute})
	defer ss.Close()
	if took := time.Since(begin); took > 10*time.Second {
		t.Errorf("the start took %s: a server that never answers is bounded by its timeout", took)
	}
	if err := ss.Status()[2].Err; err == nil || !strings.Contains(err.Error(), "no answer within 500ms") {
		t.Errorf("mute: %v", err)
	}
	for _, st := range ss.Status() {
		if st.Err == nil || len(st.Tools) != 0 {
			t.Errorf("%s: status %+v, want an error", st.Server.Name, st)
		}
	}
	if len(ss.Tools()) != 0 {
		t.Errorf("tools %v", ss.Tools())
	}
}

func TestEnvironmentIsOnlyTheSettings(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-not-for-servers")
	t.Setenv("HARNESS_VISIBLE", "no")
	_, set := start(t, stdio(t, map[string]string{"ONLY": "this"}))
	res := set.Run(context.Background(), call("t.env", `{}`))
	if !res.OK || res.Body != "HARNESS_MCPTEST\nONLY" {
		t.Errorf("the server's environment: %+v", res)
	}
}

// A server over HTTP that forgets the session has stopped, for the rest
// of the run.
func TestSessionEnded(t *testing.T) {
	srv := mcptest.New(mcptest.Options{})
	var session string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if id := w.Header().Get("Mcp-Session-Id"); id != "" {
			session = id
		}
	}))
	t.Cleanup(ts.Close)
	_, set := start(t, mcp.Server{Name: "web", URL: ts.URL})
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	res := set.Run(t.Context(), call("web.echo", `{"text":"hi"}`))
	if res.OK || !strings.Contains(res.Body, "the MCP server web stopped (it ended the session: 404 Not Found") || !res.Wrote {
		t.Errorf("after the session ended: %+v", res)
	}
	res = set.Run(t.Context(), call("web.echo", `{"text":"hi"}`))
	if res.OK || !strings.Contains(res.Body, "do not work for the rest of this run") || res.Wrote {
		t.Errorf("later: %+v", res)
	}
}

// A tool whose name a call cannot carry, and a second tool of a name, are
// left out for their names, whatever the tools setting says, and the
// status says so, not that the setting left them out.
func TestToolsLeftOutForTheirNames(t *testing.T) {
	ts := httptest.NewServer(mcptest.New(mcptest.Options{Odd: true}))
	t.Cleanup(ts.Close)
	// The setting names both, or neither, or leaves echo out: its
	// second tool is still left out for its name, not by the setting.
	for _, allow := range [][]string{nil, {"echo", "two words"}, {"picture"}} {
		ss := mcp.Start(context.Background(), []mcp.Server{{Name: "web", URL: ts.URL, Tools: allow}})
		st := ss.Status()[0]
		ss.Close()
		if st.Err != nil {
			t.Fatal(st.Err)
		}
		if got := strings.Join(st.Unnamed, ","); got != "echo,two words" {
			t.Errorf("tools %q: left out for their names %q", allow, got)
		}
		if slices.Contains(st.Left, "two words") || len(st.Left) != len(slices.Compact(slices.Clone(st.Left))) {
			t.Errorf("tools %q: left out by the setting %q", allow, st.Left)
		}
		if len(st.Missing) > 0 { // offered, if under a name no call can carry
			t.Errorf("tools %q: named but not offered %q", allow, st.Missing)
		}
		var b strings.Builder
		if err := st.Write(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `left out for their names, which a call cannot carry or an earlier tool has: "echo", "two words"`) {
			t.Errorf("tools %q: status\n%s", allow, b.String())
		}
		if note := st.StartNote(); !strings.Contains(note, "2 tools left out for their names") {
			t.Errorf("tools %q: start note %q", allow, note)
		}
	}
}
