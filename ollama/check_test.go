package ollama_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"testing"

	"harness/ollama"
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
	names, families := missing.Offered()
	if !missing.Certain() || !slices.Equal(names, []string{"tiny"}) || !slices.Equal(families, []string{"fake"}) {
		t.Errorf("certain %v, offered %v %v; want certain, tiny of family fake", missing.Certain(), names, families)
	}
	if got := missing.Remedy(); got != "get it with: ollama pull llama9" {
		t.Errorf("Remedy = %q", got)
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
