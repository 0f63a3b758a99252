package ollama_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"testing"

	"harness/ollama"
	"harness/protocol"
)

func TestCheck(t *testing.T) {
	host, _ := serve(t, ">>> expect=hi\nhello\n")
	ctx := context.Background()
	if err := ollama.New(host, "tiny", ollama.Options{NumCtx: 1024}).Check(ctx); err != nil {
		t.Errorf("Check of a model the server has: %v", err)
	}
	err := ollama.New(host, "llama9", ollama.Options{NumCtx: 1024}).Check(ctx)
	var missing *ollama.MissingError
	if !errors.As(err, &missing) || !errors.Is(err, ollama.ErrModelNotFound) {
		t.Fatalf("Check of a missing model: %v, want a *MissingError", err)
	}
	if want := []ollama.Available{{Name: "tiny", Family: "fake"}}; missing.Model != "llama9" || !slices.Equal(missing.Have, want) {
		t.Errorf("missing %+v, want llama9 with %v", missing, want)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	ln.Close()
	if err := ollama.New(down, "tiny", ollama.Options{NumCtx: 1024}).Check(ctx); !errors.Is(err, ollama.ErrUnreachable) {
		t.Errorf("Check with no server: %v, want ErrUnreachable", err)
	}
}

// TestNamed: a renamed model asks for its own name, and the original keeps
// its name.
func TestNamed(t *testing.T) {
	host, _ := serve(t, ">>> expect=hi\nhello\n")
	orig := ollama.New(host, "other", ollama.Options{NumCtx: 1024})
	renamed := orig.Named("tiny")
	if got := renamed.Describe().Model; got != "tiny" {
		t.Errorf("renamed model describes itself as %q", got)
	}
	if got := orig.Describe().Model; got != "other" {
		t.Errorf("the original became %q", got)
	}
	req := protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "hi"}}}
	if reply, err := renamed.Chat(context.Background(), req, nil); err != nil || reply.Content != "hello" {
		t.Errorf("chat with the renamed model: %+v, %v", reply, err)
	}
}
