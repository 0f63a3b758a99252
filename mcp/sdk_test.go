package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"harness/mcp"
	"harness/mcp/mcptest"
	"harness/protocol"
)

// The official Go SDK is the reference both sides are checked against:
// the harness's client against a server the SDK makes, and the test
// server against the SDK's client. It is a dependency of these tests
// only.

type sdkEcho struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

type sdkPick struct {
	Color string `json:"color" jsonschema:"a color,enum=red"`
	Count int    `json:"count,omitempty" jsonschema:"how many"`
}

// sdkServer is a server made with the SDK: echo; ping and roots, which
// ask the client something in the middle of a call; note, which sends
// notifications first; pick, with an enum and a bound.
func sdkServer(opts *sdk.ServerOptions) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "sdk-reference", Version: "1"}, opts)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Send the text back."}, func(_ context.Context, _ *sdk.CallToolRequest, in sdkEcho) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "ping", Description: "Ping the client."}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		if err := req.Session.Ping(ctx, nil); err != nil {
			return nil, nil, err
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "roots", Description: "Ask the client for its roots."}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		//lint:ignore SA1019 roots is deprecated in MCP's next version, and still a request a server may make of its client today
		_, err := req.Session.ListRoots(ctx, nil)
		if err == nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "the client has roots"}}}, nil, nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "refused"}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "note", Description: "Notify, then answer."}, func(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: "t", Progress: 1, Message: "half way"})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "noted"}}, StructuredContent: map[string]any{"ignored": true}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "pick", Description: "Pick a color.", InputSchema: json.RawMessage(`{"type":"object","properties":{"color":{"type":"string","enum":["red","blue"]},"count":{"type":"integer","minimum":1}},"required":["color"],"additionalProperties":false}`)},
		func(_ context.Context, _ *sdk.CallToolRequest, in sdkPick) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Color}}}, nil, nil
		})
	return s
}

// The harness's client against the SDK's server, over both transports:
// it starts, lists every page of tools, calls them, refuses the server's
// requests but ping, drops its notifications, and closes.
func TestClientWithSDKServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server func(*testing.T) mcp.Server
		// asks: the server can ask the client in the middle of a call;
		// one that answers calls with plain JSON has no way to.
		asks bool
	}{
		{"stdio", func(t *testing.T) mcp.Server {
			s := stdio(t, nil)
			s.Env["HARNESS_MCPTEST"] = "sdk"
			return s
		}, true},
		{"http", func(t *testing.T) mcp.Server {
			srv := sdkServer(&sdk.ServerOptions{PageSize: 2})
			ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
			t.Cleanup(ts.Close)
			return mcp.Server{Name: "t", URL: ts.URL}
		}, true},
		{"http-json", func(t *testing.T) mcp.Server {
			srv := sdkServer(&sdk.ServerOptions{PageSize: 3})
			ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
			t.Cleanup(ts.Close)
			return mcp.Server{Name: "t", URL: ts.URL}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.server(t)
			s.Timeout = 10 * time.Second
			ss, set := start(t, s)
			var names []string
			for _, spec := range ss.Status()[0].Tools {
				names = append(names, spec.Name)
			}
			if got := strings.Join(names, " "); got != "t.echo t.note t.pick t.ping t.roots" {
				t.Errorf("tools %s", got)
			}
			for _, tt := range []struct {
				call protocol.Call
				ok   bool
				body string
			}{
				{call("t.echo", `{"text":"hello\nworld"}`), true, "hello\nworld"},
				{call("t.ping", `{}`), tc.asks, map[bool]string{true: "pong", false: "calling \"ping\": rejected by transport"}[tc.asks]},
				{call("t.roots", `{}`), true, "refused"},
				{call("t.note", `{}`), true, "noted"},
				{call("t.pick", `{"color":"blue","count":2}`), true, "blue"},
			} {
				if err := ss.Check(t.Context(), tt.call); err != nil {
					t.Errorf("Check(%s) = %v", tt.call.Name, err)
				}
				res := set.Run(t.Context(), tt.call)
				if res.OK != tt.ok || !strings.HasPrefix(res.Body, tt.body) {
					t.Errorf("%s: OK %v, body %q; want %v, %q", tt.call.Name, res.OK, res.Body, tt.ok, tt.body)
				}
			}
			err := ss.Check(t.Context(), call("t.pick", `{"color":"green"}`))
			if err == nil || !strings.Contains(err.Error(), `at color: enum: "green" is not one of "red", "blue"`) {
				t.Errorf("Check of a color not in the enum: %v", err)
			}
			// The server checks too: what the harness lets through, the
			// server may refuse, and that is an ERROR result.
			res := set.Run(t.Context(), call("t.echo", `{"text":"x","more":1}`))
			if res.OK {
				t.Errorf("an argument the SDK's schema does not have: %+v", res)
			}
			if err := ss.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// The test server against the SDK's client, over both transports: it
// initializes, lists the same tools with the same schemas the SDK makes
// from Go types, and answers calls with the same results.
func TestTestServerWithSDKClient(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		transport func(*testing.T) sdk.Transport
	}{
		{"stdio", func(t *testing.T) sdk.Transport {
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "HARNESS_MCPTEST=1")
			return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
		}},
		{"http", func(t *testing.T) sdk.Transport {
			ts := httptest.NewServer(mcptest.New(mcptest.Options{Process: true, PageSize: 3}))
			t.Cleanup(ts.Close)
			return &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true}
		}},
		{"http-stream", func(t *testing.T) sdk.Transport {
			ts := httptest.NewServer(mcptest.New(mcptest.Options{Process: true, Stream: true}))
			t.Cleanup(ts.Close)
			return &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1, DisableStandaloneSSE: true}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: "sdk-client", Version: "1"}, nil)
			cs, err := client.Connect(ctx, tc.transport(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			var got []*sdk.Tool
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, tool)
			}
			want := referenceTools(t)
			if len(got) != len(want) {
				t.Fatalf("%d tools, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].Name != want[i].Name || got[i].Description != want[i].Description || !reflect.DeepEqual(got[i].InputSchema, want[i].InputSchema) {
					t.Errorf("tool %d:\n got %s %q %v\nwant %s %q %v", i, got[i].Name, got[i].Description, got[i].InputSchema, want[i].Name, want[i].Description, want[i].InputSchema)
				}
			}
			for _, tt := range []struct {
				name string
				args any
				want string
				err  bool
			}{
				{"echo", map[string]any{"text": "hi\nthere"}, `[{"type":"text","text":"hi\nthere"}]`, false},
				{"add", map[string]any{"a": 1.5, "b": 2}, `[{"type":"text","text":"3.5"}]`, false},
				{"join", map[string]any{"words": []string{"a", "b"}, "sep": "-"}, `[{"type":"text","text":"a-b"}]`, false},
				{"fail", map[string]any{"why": "no luck"}, `[{"type":"text","text":"no luck"}]`, true},
				{"picture", nil, `[{"type":"text","text":"a picture:"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgowMTIzNDU2Nzg5"}]`, false},
				{"wait", map[string]any{"seconds": 0.01}, `[{"type":"text","text":"waited"}]`, false},
			} {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.name, Arguments: tt.args})
				if err != nil {
					t.Errorf("%s: %v", tt.name, err)
					continue
				}
				content, _ := json.Marshal(res.Content)
				if string(content) != tt.want || res.IsError != tt.err {
					t.Errorf("%s: %s (isError %v), want %s (%v)", tt.name, content, res.IsError, tt.want, tt.err)
				}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2, "c": 3}})
			if err != nil || !res.IsError {
				t.Errorf("an argument the tool does not have: %+v, %v", res, err)
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope"}); err == nil {
				t.Errorf("a tool the server does not have: no error")
			}
			if err := cs.Ping(ctx, nil); err != nil {
				t.Errorf("ping: %v", err)
			}
		})
	}
}

// referenceTools are the test server's tools as the SDK makes them from
// the Go types the test server had when it was written with the SDK.
func referenceTools(t *testing.T) []*sdk.Tool {
	type addIn struct {
		A float64 `json:"a" jsonschema:"the first number"`
		B float64 `json:"b" jsonschema:"the second number"`
	}
	type joinIn struct {
		Words []string `json:"words" jsonschema:"the words to join"`
		Sep   string   `json:"sep,omitempty" jsonschema:"what goes between them"`
	}
	type failIn struct {
		Why string `json:"why" jsonschema:"what the error says"`
	}
	type waitIn struct {
		Seconds float64 `json:"seconds" jsonschema:"how long to wait"`
	}
	type exitIn struct {
		Code int `json:"code" jsonschema:"the exit status"`
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "reference", Version: "1"}, nil)
	none := func(context.Context, *sdk.CallToolRequest, any) (*sdk.CallToolResult, any, error) {
		return nil, nil, nil
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Send the text back."}, func(ctx context.Context, r *sdk.CallToolRequest, _ sdkEcho) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."}, func(ctx context.Context, r *sdk.CallToolRequest, _ addIn) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "join", Description: "Join words into one line."}, func(ctx context.Context, r *sdk.CallToolRequest, _ joinIn) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail with the reason given."}, func(ctx context.Context, r *sdk.CallToolRequest, _ failIn) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "picture", Description: "Return a small picture."}, func(ctx context.Context, r *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Wait, then say so."}, func(ctx context.Context, r *sdk.CallToolRequest, _ waitIn) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Name the variables of the server's environment."}, func(ctx context.Context, r *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	sdk.AddTool(s, &sdk.Tool{Name: "exit", Description: "End the server at once."}, func(ctx context.Context, r *sdk.CallToolRequest, _ exitIn) (*sdk.CallToolResult, any, error) {
		return none(ctx, r, nil)
	})
	ct, st := sdk.NewInMemoryTransports()
	go s.Run(t.Context(), st)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out []*sdk.Tool
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool)
	}
	return out
}
