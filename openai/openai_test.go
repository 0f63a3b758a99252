package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"harness/fakemodel"
	"harness/loop"
	"harness/openai"
	"harness/protocol"
)

var _ loop.Model = (*openai.Model)(nil)

// fake serves script with the fake model server, its model named "tiny",
// and returns the API's base URL and the server. The requests' bodies, as
// sent, go to log, and their Authorization headers to auth.
type fake struct {
	base *url.URL
	srv  *fakemodel.Server
	log  bytes.Buffer

	mu   sync.Mutex
	auth []string
}

func serve(t *testing.T, script string) *fake {
	t.Helper()
	s, err := fakemodel.Parse("test.fake", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{}
	f.srv = fakemodel.NewServer(s, fakemodel.WithModelName("tiny"), fakemodel.WithLog(&f.log))
	h := f.srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	f.base = mustBase(t, hs.URL+"/v1")
	return f
}

// body returns the raw JSON of the request the fake server received.
func (f *fake) body(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(f.log.Bytes(), &m); err != nil {
		t.Fatalf("request log %q: %v", f.log.String(), err)
	}
	return m
}

func mustBase(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := openai.ParseBaseURL(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func conversation(last string) protocol.Request {
	return protocol.Request{Messages: []protocol.Message{{Role: protocol.System, Content: "sys"}, {Role: protocol.User, Content: last}}}
}

func TestChatStreamsAndReports(t *testing.T) {
	f := serve(t, ">>> expect=hi think=\"let me see\"\nline one\nline two\n")
	temp, seed := 0.5, 7
	m := openai.New(f.base, "tiny", openai.Options{APIKey: "sk-test", KeyVar: "TEST_KEY", MaxTokens: 99, Temperature: &temp, Seed: &seed})
	var streamed, thought strings.Builder
	deltas := 0
	req := conversation("hi")
	req.Stop = []string{"\nSTOP"}
	reply, err := m.Chat(context.Background(), req, func(d protocol.Delta) {
		deltas++
		streamed.WriteString(d.Content)
		thought.WriteString(d.Thinking)
	})
	if err != nil {
		t.Fatal(err)
	}
	if reply.Content != "line one\nline two" || streamed.String() != reply.Content || deltas < 3 {
		t.Errorf("content %q, streamed %q in %d deltas", reply.Content, streamed.String(), deltas)
	}
	if reply.Thinking != "let me see" || thought.String() != "let me see" {
		t.Errorf("thinking %q, streamed %q", reply.Thinking, thought.String())
	}
	if reply.DoneReason != protocol.DoneStop || !reply.Usage.Known || reply.Usage.OutputTokens == 0 || reply.Usage.PromptTokens == 0 {
		t.Errorf("done %q usage %+v", reply.DoneReason, reply.Usage)
	}
	if len(f.auth) != 1 || f.auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization %q, want the key as a bearer token", f.auth)
	}
	body := f.body(t)
	for key, want := range map[string]any{"model": "tiny", "stream": true, "max_tokens": 99.0, "temperature": 0.5, "seed": 7.0} {
		if got := body[key]; got != want {
			t.Errorf("%s = %v (%T), want %v", key, got, got, want)
		}
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage", body["stream_options"])
	}
	if stop, _ := body["stop"].([]any); len(stop) != 1 || stop[0] != "\nSTOP" {
		t.Errorf("stop = %v", body["stop"])
	}
	if _, ok := body["tools"]; ok {
		t.Error("the request carried tools")
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" || msgs[1].(map[string]any)["content"] != "hi" {
		t.Errorf("messages %v", msgs)
	}
}

func TestChatUnsetOptionsAreNotSent(t *testing.T) {
	f := serve(t, ">>>\nok\n")
	if _, err := openai.New(f.base, "tiny", openai.Options{}).Chat(context.Background(), conversation("x"), nil); err != nil {
		t.Fatal(err)
	}
	body := f.body(t)
	for _, key := range []string{"max_tokens", "temperature", "seed", "stop", "tools"} {
		if _, ok := body[key]; ok {
			t.Errorf("%s sent though unset", key)
		}
	}
	if f.auth[0] != "" {
		t.Errorf("Authorization %q sent without a key", f.auth[0])
	}
}

func TestChatStopSequence(t *testing.T) {
	f := serve(t, ">>>\nTOOL_CALL {}\nTOOL_RESULT made up\n")
	req := conversation("go")
	req.Stop = protocol.StopSequences()
	reply, err := openai.New(f.base, "tiny", openai.Options{}).Chat(context.Background(), req, nil)
	if err != nil || reply.Content != "TOOL_CALL {}" || reply.DoneReason != protocol.DoneStop {
		t.Fatalf("reply %+v, err %v: the server did not get the stop sequence", reply, err)
	}
}

func TestChatLength(t *testing.T) {
	f := serve(t, ">>> done=length\nTOOL_CALL {\"name\"\n")
	reply, err := openai.New(f.base, "tiny", openai.Options{}).Chat(context.Background(), conversation("x"), nil)
	if err != nil || reply.DoneReason != protocol.DoneLength {
		t.Fatalf("reply %+v, err %v", reply, err)
	}
}

// TestChatThinkTag: a <think> span in the content stays in the content,
// where the protocol parser runs none of its calls.
func TestChatThinkTag(t *testing.T) {
	f := serve(t, ">>>\n<think>\nTOOL_CALL {\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}\n</think>\nNothing to do.\n")
	reply, err := openai.New(f.base, "tiny", openai.Options{}).Chat(context.Background(), conversation("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(reply.Content, "<think>\nTOOL_CALL") {
		t.Errorf("content %q", reply.Content)
	}
	if p := protocol.Parse(reply.Content); len(p.Calls) != 0 || strings.TrimSpace(p.Text) != "Nothing to do." {
		t.Errorf("parsed %+v: a call inside <think> was read", p)
	}
}

func TestChatModelNotFound(t *testing.T) {
	f := serve(t, ">>>\nok\n")
	_, err := openai.New(f.base, "llama9", openai.Options{}).Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrModelNotFound) || !strings.Contains(err.Error(), `"llama9"`) || !strings.Contains(err.Error(), "tiny:latest") {
		t.Errorf("err = %v, want ErrModelNotFound listing tiny:latest", err)
	}
	var status *openai.StatusError
	if !errors.As(err, &status) || status.StatusCode != http.StatusNotFound {
		t.Errorf("err = %v, want a *StatusError with 404", err)
	}
}

func TestModels(t *testing.T) {
	f := serve(t, "")
	names, err := openai.New(f.base, "tiny", openai.Options{}).Models(context.Background())
	if err != nil || len(names) != 1 || names[0] != "tiny:latest" {
		t.Errorf("Models = %q, %v", names, err)
	}
}

func TestChatUnreachable(t *testing.T) {
	// A port that was just free has nobody listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := mustBase(t, "http://"+addr+"/v1")
	_, err = openai.New(base, "m", openai.Options{}).Chat(context.Background(), conversation("x"), nil)
	if !errors.Is(err, openai.ErrUnreachable) || !strings.Contains(err.Error(), "http://"+addr+"/v1") {
		t.Errorf("err = %v, want ErrUnreachable naming the URL", err)
	}
}

func TestChatInterrupted(t *testing.T) {
	f := serve(t, ">>> delay=10s\nslow\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := openai.New(f.base, "tiny", openai.Options{}).Chat(ctx, conversation("x"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
}

func TestParseBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "https://api.openai.com/v1"},
		{"http://127.0.0.1:1234/v1", "http://127.0.0.1:1234/v1"},
		{"http://127.0.0.1:1234/v1/", "http://127.0.0.1:1234/v1"},
		{"http://127.0.0.1:1234", "http://127.0.0.1:1234/v1"},
		{"localhost:8080", "http://localhost:8080/v1"},
		{"https://example.com/api/openai/v1", "https://example.com/api/openai/v1"},
		{" https://example.com ", "https://example.com/v1"},
	}
	for _, tt := range tests {
		u, err := openai.ParseBaseURL(tt.in)
		if err != nil || u.String() != tt.want {
			t.Errorf("ParseBaseURL(%q) = %v, %v; want %s", tt.in, u, err, tt.want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "://", "http://[::1"} {
		if _, err := openai.ParseBaseURL(bad); err == nil {
			t.Errorf("ParseBaseURL(%q) accepted", bad)
		}
	}
}

// Describe reports the options every request carries, by the protocol's
// names, and neither the key nor num_ctx, which the API cannot send.
func TestDescribe(t *testing.T) {
	temp, seed := 0.5, 7
	wire := map[string]protocol.Setting{"max_tokens": protocol.NumPredict, "temperature": protocol.Temperature, "seed": protocol.Seed, "stop": protocol.Stop}
	for _, opts := range []openai.Options{
		{},
		{APIKey: "sk-SECRET", KeyVar: "K", MaxTokens: 99, Temperature: &temp, Seed: &seed},
	} {
		f := serve(t, ">>>\nok\n")
		m := openai.New(f.base, "tiny", opts)
		req := conversation("x")
		req.Stop = []string{"\nSTOP"}
		if _, err := m.Chat(context.Background(), req, nil); err != nil {
			t.Fatal(err)
		}
		b := m.Describe()
		if b.Name != "openai" || b.Model != "tiny" || b.Honours(protocol.NumCtx) {
			t.Errorf("described as %+v", b)
		}
		sent := f.body(t)
		described := 0
		for key, setting := range wire {
			v, ok := sent[key]
			if !ok {
				continue
			}
			if !b.Honours(setting) {
				t.Errorf("sent %s, which Describe does not honour", key)
			}
			if setting == protocol.Stop {
				continue
			}
			described++
			if got, ok := b.Options[string(setting)]; !ok || fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("option %s: described %v, sent %v", setting, got, v)
			}
		}
		if len(b.Options) != described {
			t.Errorf("described %v, sent %v", b.Options, sent)
		}
		if strings.Contains(fmt.Sprintf("%#v", b), "SECRET") {
			t.Errorf("the key is in the description: %#v", b)
		}
	}
}

// TestCheck: the model is served when the list names it, as NAME or
// NAME:latest; a name it does not list is ErrModelNotFound, naming those
// it does; a server with no list is not asked further.
func TestCheck(t *testing.T) {
	f := serve(t, "")
	if err := openai.New(f.base, "tiny", openai.Options{}).Check(context.Background()); err != nil {
		t.Errorf("Check(tiny) = %v", err)
	}
	if err := openai.New(f.base, "tiny:latest", openai.Options{}).Check(context.Background()); err != nil {
		t.Errorf("Check(tiny:latest) = %v", err)
	}
	err := openai.New(f.base, "llama9", openai.Options{}).Check(context.Background())
	if !errors.Is(err, openai.ErrModelNotFound) || !strings.Contains(err.Error(), `"llama9" is not among the models`) || !strings.Contains(err.Error(), "tiny:latest") {
		t.Errorf("Check(llama9) = %v, want ErrModelNotFound listing tiny:latest", err)
	}
	var unlisted *openai.UnlistedError
	if !errors.As(err, &unlisted) || unlisted.Model != "llama9" || unlisted.Certain() {
		t.Errorf("Check(llama9) = %#v, want an *UnlistedError for llama9, not certain", err)
	}
	bare := httptest.NewServer(http.NotFoundHandler())
	defer bare.Close()
	if err := openai.New(mustBase(t, bare.URL+"/v1"), "any", openai.Options{}).Check(context.Background()); err != nil {
		t.Errorf("Check against a server without a list = %v, want nil", err)
	}
}
