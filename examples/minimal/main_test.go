package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/fakemodel"
)

// TestMinimal runs the program offline, against the fake Ollama server
// with a scripted model: one turn that reads a file, then an empty line.
func TestMinimal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("Hello, world!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := fakemodel.Parse("minimal.fake", []byte(`>>> expect="what does hello.txt say?"
TOOL_CALL {"name":"read_file","arguments":{"path":"hello.txt"}}
>>> expect="TOOL_RESULT call_1 read_file SUCCESS\nHello, world!"
It says hello to the world.
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := fakemodel.NewServer(script, fakemodel.WithModelName("tiny"))
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	var out bytes.Buffer
	in := strings.NewReader("what does hello.txt say?\n\n")
	if err := run(context.Background(), []string{"-w", dir, "-host", hs.URL, "-model", "tiny"}, in, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"<step 1: 2 messages to the model>",
		"tool-call: read_file map[path:hello.txt]",
		"tool-ok: Hello, world!\n",
		"<step 2: 4 messages to the model>",
		"Assistant: It says hello to the world.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q:\n%s", want, out.String())
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d replies of the script were never asked for", srv.Remaining())
	}
}
