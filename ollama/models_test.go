package ollama_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"harness/ollama"
)

func TestModels(t *testing.T) {
	host, _ := serve(t, ">>>\nok\n")
	names, err := ollama.New(host, "other", ollama.Options{NumCtx: 1}).Models(context.Background())
	if err != nil || fmt.Sprint(names) != "[tiny]" {
		t.Errorf("Models = %v, %v; want [tiny]", names, err)
	}

	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":"disk on fire"}`)
	}))
	defer hs.Close()
	broken, _ := url.Parse(hs.URL)
	_, err = ollama.New(broken, "m", ollama.Options{NumCtx: 1}).Models(context.Background())
	if !errors.Is(err, ollama.ErrRefused) || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("err = %v, want ErrRefused with the server's message", err)
	}

	gone, _ := ollama.ParseHost("127.0.0.1:1")
	_, err = ollama.New(gone, "m", ollama.Options{NumCtx: 1}).Models(context.Background())
	if !errors.Is(err, ollama.ErrUnreachable) {
		t.Errorf("err = %v, want ErrUnreachable", err)
	}
}
