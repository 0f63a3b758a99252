// Package mcptest is a small MCP server for the tests: a few tools that
// show each kind of result a server gives, built with the same SDK the
// harness speaks MCP with.
//
//	echo(text)            the text back
//	add(a, b)             the sum of two numbers
//	join(words, sep?)     the words joined: an array argument
//	fail(why)             an error result (isError)
//	picture()             an image, which the harness describes in a line
//	wait(seconds)         waits, for the tests of a server that hangs
//	env()                 the names of the server's environment variables (only with Process)
//	exit(code)            the server exits at once (only with Process)
package mcptest

import (
	"context"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options choose what the server has beside its usual tools.
type Options struct {
	// Process adds the tools of a server that runs as a process of its
	// own: env, which names the variables of the process's environment,
	// and exit, which ends it.
	Process bool
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

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

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// New returns the server.
func New(opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "harness-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Send the text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."}, func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		return text(strconv.FormatFloat(in.A+in.B, 'g', -1, 64)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "join", Description: "Join words into one line."}, func(_ context.Context, _ *mcp.CallToolRequest, in joinIn) (*mcp.CallToolResult, any, error) {
		sep := in.Sep
		if sep == "" {
			sep = " "
		}
		return text(strings.Join(in.Words, sep)), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fail with the reason given."}, func(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
		res := text(in.Why)
		res.IsError = true
		return res, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Description: "Return a small picture."}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		png := []byte("\x89PNG\r\n\x1a\n0123456789")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a picture:"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait, then say so."}, func(ctx context.Context, _ *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			return text("waited"), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	})
	if opts.Process {
		mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Name the variables of the server's environment."}, func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			var names []string
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
			slices.Sort(names)
			return text(strings.Join(names, "\n")), nil, nil
		})
		mcp.AddTool(s, &mcp.Tool{Name: "exit", Description: "End the server at once."}, func(_ context.Context, _ *mcp.CallToolRequest, in exitIn) (*mcp.CallToolResult, any, error) {
			os.Stderr.WriteString("exiting as asked\n")
			os.Exit(in.Code)
			return nil, nil, nil
		})
	}
	return s
}

// Serve runs the server over standard input and output until the client
// closes its side or ctx ends.
func Serve(ctx context.Context, opts Options) error {
	return New(opts).Run(ctx, &mcp.StdioTransport{})
}

// Listen serves the server over streamable HTTP on loopback, at the path
// /mcp, until stop is called; it returns the server's address.
func Listen(opts Options) (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	server := New(opts)
	hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String() + "/mcp", func() { hs.Close() }, nil
}
