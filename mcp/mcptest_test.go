package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"harness/mcp/mcptest"
)

// The test server holds its clients to the protocol, so that the tests
// of this client fail when it breaks it: over HTTP, every message after
// initialize must carry the version agreed (MCP-Protocol-Version); over
// either transport, no request but ping may come before
// notifications/initialized.
func TestTestServerIsStrict(t *testing.T) {
	const (
		initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		list        = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	)
	t.Run("http", func(t *testing.T) {
		ts := httptest.NewServer(mcptest.New(mcptest.Options{}))
		defer ts.Close()
		session := ""
		post := func(body string, version string) (int, string) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
			}
			if version != "" {
				req.Header.Set("Mcp-Protocol-Version", version)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if session == "" {
				session = resp.Header.Get("Mcp-Session-Id")
			}
			return resp.StatusCode, string(data)
		}
		post(initialize, "")
		if code, _ := post(list, "2025-06-18"); code != http.StatusOK {
			t.Errorf("tools/list before initialized: %d", code)
		} else if _, body := post(list, "2025-06-18"); !strings.Contains(body, `"error"`) {
			t.Errorf("tools/list before initialized: %s, want an error", body)
		}
		if code, _ := post(initialized, ""); code != http.StatusBadRequest {
			t.Errorf("no version: %d, want 400", code)
		}
		if code, _ := post(initialized, "2025-03-26"); code != http.StatusBadRequest {
			t.Errorf("another version: %d, want 400", code)
		}
		post(initialized, "2025-06-18")
		if _, body := post(list, "2025-06-18"); !strings.Contains(body, `"tools"`) {
			t.Errorf("tools/list: %s", body)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		var out bytes.Buffer
		in := strings.NewReader(strings.Join([]string{initialize, list, initialized, strings.Replace(list, `"id":2`, `"id":3`, 1)}, "\n") + "\n")
		if err := mcptest.New(mcptest.Options{}).ServeStdio(ctx, in, &out); err != nil {
			t.Fatal(err)
		}
		answers := map[string]json.RawMessage{}
		for line := range strings.Lines(out.String()) {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			json.Unmarshal([]byte(line), &m)
			answers[string(m.ID)] = m.Result
		}
		if answers["2"] != nil || answers["3"] == nil {
			t.Errorf("answers: %s", out.String())
		}
	})
}
