package ollama_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"harness/ollama"
	"harness/protocol"
)

// TestErrorsHidePassword: an address may carry a password (a server behind
// a proxy with basic auth); no error shows it, whatever failed.
func TestErrorsHidePassword(t *testing.T) {
	const password = "s3cretpw"
	withPassword := func(t *testing.T, addr string) *url.URL {
		t.Helper()
		u, err := url.Parse(addr)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword("u", password)
		return u
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := withPassword(t, "http://"+ln.Addr().String())
	ln.Close()
	fake, _ := serve(t, ">>>\nok\n")
	up := withPassword(t, fake.String())
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	garbled := withPassword(t, html.URL)

	ctx := context.Background()
	chat := func(m *ollama.Model) error {
		_, err := m.Chat(ctx, protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "hi"}}}, nil)
		return err
	}
	contextLength := func(m *ollama.Model) error { _, err := m.ContextLength(ctx); return err }
	models := func(m *ollama.Model) error { _, err := m.Models(ctx); return err }
	check := func(m *ollama.Model) error { return m.Check(ctx) }
	tests := []struct {
		name  string
		host  *url.URL
		model string
		call  func(*ollama.Model) error
		want  error // nil: any error
	}{
		{"chat, no server", down, "tiny", chat, ollama.ErrUnreachable},
		{"check, no server", down, "tiny", check, ollama.ErrUnreachable},
		{"models, no server", down, "tiny", models, ollama.ErrUnreachable},
		{"context length, no server", down, "tiny", contextLength, ollama.ErrUnreachable},
		{"chat, no model", up, "llama9", chat, ollama.ErrModelNotFound},
		{"check, no model", up, "llama9", check, ollama.ErrModelNotFound},
		{"context length, no model", up, "llama9", contextLength, ollama.ErrModelNotFound},
		{"models, not JSON", garbled, "m", models, nil},
		{"context length, not JSON", garbled, "m", contextLength, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(ollama.New(tt.host, tt.model, ollama.Options{NumCtx: 1024}))
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), password) {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}

	for _, addr := range []string{"ftp://u:" + password + "@host", "http://u:" + password + "@:80"} {
		if _, err := ollama.ParseHost(addr); err == nil || strings.Contains(err.Error(), password) {
			t.Errorf("ParseHost(%q) = %v, want an error without the password", addr, err)
		}
	}
}
