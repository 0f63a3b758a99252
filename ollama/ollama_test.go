package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"harness/fakemodel"
	"harness/loop"
	"harness/ollama"
	"harness/protocol"
)

var _ loop.Model = (*ollama.Model)(nil)

// serve starts a fake Ollama for script and returns its address and a
// function that returns the chat requests it has received.
func serve(t *testing.T, script string) (*url.URL, func() []api.ChatRequest) {
	t.Helper()
	s, err := fakemodel.Parse("test.fake", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	srv := fakemodel.NewServer(s, fakemodel.WithModelName("tiny"), fakemodel.WithLog(&log))
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	u, err := url.Parse(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u, func() []api.ChatRequest {
		t.Helper()
		reqs, err := fakemodel.ReadLog(bytes.NewReader(log.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return reqs
	}
}

func TestChatStreamsAndReports(t *testing.T) {
	host, requests := serve(t, ">>> expect=hi think=\"let me see\"\nline one\nline two\n")
	temp, seed := 0.5, 7
	m := ollama.New(host, "tiny", ollama.Options{NumCtx: 4096, NumPredict: 99, Temperature: &temp, Seed: &seed})
	var streamed, thought strings.Builder
	reply, err := m.Chat(context.Background(), protocol.Request{
		Messages: []protocol.Message{{Role: protocol.System, Content: "sys"}, {Role: protocol.User, Content: "hi"}},
		Stop:     []string{"\nSTOP"},
	}, func(d protocol.Delta) {
		streamed.WriteString(d.Content)
		thought.WriteString(d.Thinking)
	})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "line one\nline two" || streamed.String() != reply.Content {
		t.Errorf("content %q, streamed %q", reply.Content, streamed.String())
	}
	if reply.Thinking != "let me see" || thought.String() != "let me see" {
		t.Errorf("thinking %q, streamed %q", reply.Thinking, thought.String())
	}
	if reply.DoneReason != protocol.DoneStop || !reply.Usage.Known || reply.Usage.OutputTokens == 0 {
		t.Errorf("done %q usage %+v", reply.DoneReason, reply.Usage)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if len(r.Tools) != 0 {
		t.Error("the request carried native tools")
	}
	if r.Truncate == nil || *r.Truncate {
		t.Error("truncate is not false: an over-long conversation would be cut silently")
	}
	if r.Shift == nil || *r.Shift {
		t.Error("shift is not false: a reply running into the context limit would shift it silently")
	}
	if r.Messages[0].Role != "system" || r.Messages[1].Content != "hi" {
		t.Errorf("messages %+v", r.Messages)
	}
	for key, want := range map[string]any{"num_ctx": 4096.0, "num_predict": 99.0, "temperature": 0.5, "seed": 7.0} {
		if got := r.Options[key]; got != want {
			t.Errorf("option %s = %v (%T), want %v", key, got, got, want)
		}
	}
	if stop, _ := r.Options["stop"].([]any); len(stop) != 1 || stop[0] != "\nSTOP" {
		t.Errorf("stop = %v", r.Options["stop"])
	}
}

func TestChatUnsetOptionsAreNotSent(t *testing.T) {
	host, requests := serve(t, ">>>\nok\n")
	m := ollama.New(host, "tiny", ollama.Options{NumCtx: 2048})
	if _, err := m.Chat(context.Background(), protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	opts := requests()[0].Options
	for _, key := range []string{"num_predict", "temperature", "seed", "stop"} {
		if _, ok := opts[key]; ok {
			t.Errorf("option %s sent though unset", key)
		}
	}
}

func TestChatLength(t *testing.T) {
	host, _ := serve(t, ">>> done=length\nTOOL_CALL {\"name\"\n")
	reply, err := ollama.New(host, "tiny", ollama.Options{NumCtx: 2048}).Chat(context.Background(), protocol.Request{}, nil)
	if err != nil || reply.DoneReason != protocol.DoneLength {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
}

func TestChatErrors(t *testing.T) {
	host, _ := serve(t, ">>>\nok\n")
	_, err := ollama.New(host, "llama9", ollama.Options{NumCtx: 2048}).Chat(context.Background(), protocol.Request{}, nil)
	var missing *ollama.MissingError
	if !errors.Is(err, ollama.ErrModelNotFound) || !errors.As(err, &missing) || missing.Model != "llama9" || len(missing.Have) != 1 || missing.Have[0].Name != "tiny" {
		t.Errorf("missing model: %v, want a *MissingError that lists the server's tiny", err)
	}

	// A port that was just free has nobody listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	down, _ := ollama.ParseHost(addr)
	_, err = ollama.New(down, "tiny", ollama.Options{NumCtx: 2048}).Chat(context.Background(), protocol.Request{}, nil)
	if !errors.Is(err, ollama.ErrUnreachable) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("server down: %v", err)
	}

	empty, _ := serve(t, "")
	_, err = ollama.New(empty, "tiny", ollama.Options{NumCtx: 2048}).Chat(context.Background(), protocol.Request{}, nil)
	if !errors.Is(err, ollama.ErrRefused) {
		t.Errorf("server error: %v", err)
	}
}

func TestChatInterrupted(t *testing.T) {
	host, _ := serve(t, ">>> delay=10s\nslow\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ollama.New(host, "tiny", ollama.Options{NumCtx: 2048}).Chat(ctx, protocol.Request{}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
}

func TestParseHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"10.0.0.5:8080", "http://10.0.0.5:8080"},
		{"http://example.com", "http://example.com"},
		{"https://example.com:444/base", "https://example.com:444/base"},
		{"[::1]", "http://[::1]:11434"},
	}
	for _, tt := range tests {
		u, err := ollama.ParseHost(tt.in)
		if err != nil || u.String() != tt.want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "://"} {
		if _, err := ollama.ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) accepted", bad)
		}
	}
}

// TestChatServerFailures covers what the fake server never does: an error
// in the middle of a stream, an error status with a body that is not JSON,
// and a stream that is not JSON.
func TestChatServerFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
		status  int
	}{
		{name: "error chunk", want: "model runner crashed", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":{"role":"assistant","content":"par"}}`+"\n"+`{"error":"model runner crashed"}`+"\n")
		}},
		{name: "plain error status", want: "bad gateway here", status: http.StatusBadGateway, handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			io.WriteString(w, "bad gateway here\n")
		}},
		{name: "empty error status", status: http.StatusServiceUnavailable, want: "503", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}},
		{name: "cut before done", want: "ended before the server finished", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"message":{"role":"assistant","content":"TOOL_CALL {}"}}`+"\n")
		}},
		{name: "not json", want: "reading the reply", handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<html>\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(tt.handler)
			defer hs.Close()
			host, _ := url.Parse(hs.URL)
			reply, err := ollama.New(host, "m", ollama.Options{NumCtx: 1}).Chat(context.Background(), protocol.Request{}, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
			if tt.status != 0 && !errors.Is(err, ollama.ErrRefused) {
				t.Errorf("an HTTP %d is not ErrRefused: %v", tt.status, err)
			}
			if tt.name == "error chunk" && reply.Content != "par" {
				t.Errorf("the part that arrived was lost: %q", reply.Content)
			}
		})
	}
}

// Describe reports the options every request carries, and honours every
// option a request may carry.
func TestDescribe(t *testing.T) {
	temp, seed := 0.5, 7
	for _, opts := range []ollama.Options{
		{NumCtx: 2048},
		{NumCtx: 4096, NumPredict: 99, Temperature: &temp, Seed: &seed},
	} {
		host, requests := serve(t, ">>>\nok\n")
		m := ollama.New(host, "tiny", opts)
		if _, err := m.Chat(context.Background(), protocol.Request{
			Messages: []protocol.Message{{Role: protocol.User, Content: "x"}},
			Stop:     []string{"\nSTOP"},
		}, nil); err != nil {
			t.Fatal(err)
		}
		sent := requests()[0].Options
		b := m.Describe()
		if b.Name != "ollama" || b.Model != "tiny" {
			t.Errorf("described as %s model %s", b.Name, b.Model)
		}
		for key, v := range sent {
			if !b.Honours(protocol.Setting(key)) {
				t.Errorf("sent %s, which Describe does not honour", key)
			}
			if key == string(protocol.Stop) {
				continue
			}
			if got, ok := b.Options[key]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("option %s: described %v, sent %v", key, got, v)
			}
		}
		if len(b.Options) != len(sent)-1 {
			t.Errorf("described %v, sent %v", b.Options, sent)
		}
	}
}

// TestChatLongChunks: a reply whose chunks are longer than the buffer
// they are read with, or end without a newline, comes whole.
func TestChatLongChunks(t *testing.T) {
	long := strings.Repeat("0123456789", 10000)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		enc := json.NewEncoder(w)
		enc.Encode(api.ChatResponse{Message: api.Message{Role: "assistant", Content: long}})
		enc.Encode(api.ChatResponse{Message: api.Message{Role: "assistant", Content: "short"}})
		b, _ := json.Marshal(api.ChatResponse{Message: api.Message{Role: "assistant", Content: long}, Done: true, DoneReason: "stop"})
		w.Write(b) // the last line without its newline
	}))
	defer hs.Close()
	host, err := url.Parse(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := ollama.New(host, "tiny", ollama.Options{NumCtx: 4096})
	reply, err := m.Chat(context.Background(), protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := long + "short" + long; reply.Content != want || reply.DoneReason != protocol.DoneStop {
		t.Errorf("reply of %d bytes (done %q), want %d", len(reply.Content), reply.DoneReason, len(want))
	}
}

// A request's JSON without its messages is made once for its stop
// sequences: a request with others carries its own.
func TestChatStopSequencesPerRequest(t *testing.T) {
	host, requests := serve(t, ">>>\none\n>>>\ntwo\n>>>\nthree\n")
	m := ollama.New(host, "tiny", ollama.Options{NumCtx: 2048})
	stops := [][]string{{"\nA"}, {"\nA"}, {"\nB", "\nC"}}
	msgs := []protocol.Message{{Role: protocol.User, Content: "x"}}
	for _, stop := range stops {
		if _, err := m.Chat(context.Background(), protocol.Request{Messages: msgs, Stop: stop}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, req := range requests() {
		if got := fmt.Sprint(req.Options[string(protocol.Stop)]); got != fmt.Sprint(stops[i]) {
			t.Errorf("request %d: stop %s, want %q", i, got, stops[i])
		}
	}
}
