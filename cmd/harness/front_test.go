package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFront starts, for the rest of the script, a server in front of the
// script's fake server ($OLLAMA_HOST) for what the fake does not do:
// want an API key, and be busy. It sets VAR to its address (host:port).
//
//	front [-key KEY] [-status CODE] [-times N] VAR
//
// With -key, a request whose Authorization header is not "Bearer KEY"
// gets HTTP 401, its message quoting the key it was given, as some
// servers do. With -status, the first N (default 1) chat requests get
// that status, Retry-After-Ms 1 and a message quoting the Authorization
// header. Everything else goes to the fake server, so the script must
// ship an ollama.fake.
func cmdFront(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: front [-key KEY] [-status CODE] [-times N] VAR"
	fs := flag.NewFlagSet("front", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	key := fs.String("key", "", "")
	status := fs.Int("status", 0, "")
	times := fs.Int64("times", 1, "")
	if neg || fs.Parse(args) != nil || fs.NArg() != 1 {
		ts.Fatalf(usage)
	}
	fake, err := url.Parse("http://" + ts.Getenv("OLLAMA_HOST"))
	ts.Check(err)
	proxy := httputil.NewSingleHostReverseProxy(fake)
	var chats atomic.Int64
	fail := func(w http.ResponseWriter, code int, msg, errCode string) {
		body, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error", "code": errCode}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After-Ms", "1")
		w.WriteHeader(code)
		w.Write(body)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		if *key != "" && auth != "Bearer "+*key {
			fail(w, http.StatusUnauthorized, "Incorrect API key provided: "+strings.TrimPrefix(auth, "Bearer "), "invalid_api_key")
			return
		}
		if *status != 0 && strings.HasSuffix(r.URL.Path, "/chat/completions") && chats.Add(1) <= *times {
			fail(w, *status, "busy serving "+auth, "")
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv(fs.Arg(0), strings.TrimPrefix(srv.URL, "http://"))
}

// cmdExpand copies a file, replacing $VAR and ${VAR} in it by the script's
// environment: a settings file can then name the address of a server the
// script started.
//
//	expand SRC DST
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: expand SRC DST")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(os.Expand(string(data), ts.Getenv)), 0o644))
}
