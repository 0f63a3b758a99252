package mcp

import (
	"context"
	"net/http/httptest"
	"testing"
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
