package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"harness/loop"
	"harness/record"
)

// cmdJSONLines checks that the last command's stdout is JSON lines, each
// an object with a type, and makes it the same from run to run for cmp:
// the value of each key named, a string or a number wherever it is,
// becomes "*". What it writes is the new stdout.
func cmdJSONLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("usage: jsonlines [KEY...]")
	}
	var keys []string
	for _, k := range args {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	value := regexp.MustCompile(`"(` + strings.Join(keys, "|") + `)":("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*)`)
	out := ts.ReadFile("stdout")
	for i, line := range strings.SplitAfter(out, "\n") {
		if line == "" {
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			ts.Fatalf("stdout line %d is not a JSON object: %v\n%s", i+1, err, line)
		}
		if t, _ := obj["type"].(string); t == "" {
			ts.Fatalf("stdout line %d has no type: %s", i+1, line)
		}
		if len(keys) > 0 {
			line = value.ReplaceAllString(line, `"$1":"*"`)
		}
		ts.Stdout().Write([]byte(line))
	}
}

// With --output json, stdout is JSON lines and nothing else, whatever ends
// the run, and the last line is the answer with the exit code the harness
// ends with, saying which limit ended the turn when one did.
func TestOutputJSONEndsWithTheAnswer(t *testing.T) {
	f := writeFakes(t, "hi\x1b[2J")
	dir, answer, loops, slow, empty, cancelled, terminated := f.dir, f.answer, f.loops, f.slow, f.empty, f.cancelled, f.terminated
	tests := []struct {
		name   string
		ctx    context.Context
		args   []string
		want   int
		answer string
		limit  string
	}{
		{"answer", context.Background(), []string{"--fake", answer}, exitOK, "hi\x1b[2J", ""},
		{"model error", context.Background(), []string{"--fake", empty}, exitError, "", ""},
		{"bad lie", context.Background(), []string{"--fake", answer, "--lie", "nope"}, exitUsage, "", ""},
		{"no room in the window", context.Background(), []string{"--fake", answer, "--num-ctx", "4096", "--max-tokens", "4096"}, exitUsage, "", ""},
		{"limit", context.Background(), []string{"--fake", loops, "--max-steps", "1"}, exitLimit, "", "max-steps"},
		{"interrupted", cancelled, []string{"--fake", slow}, exitInterrupt, "", ""},
		{"terminated", terminated, []string{"--fake", slow}, 128 + int(syscall.SIGTERM), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs strings.Builder
			args := append([]string{"-w", dir, "--no-session", "--output", "json", "-p", "hi"}, tt.args...)
			if got := execute(tt.ctx, args, nil, &out, &errs); got != tt.want {
				t.Errorf("exit code %d, want %d; stderr:\n%s", got, tt.want, errs.String())
			}
			if strings.Contains(out.String(), "\x1b") {
				t.Error("a terminal escape reached stdout")
			}
			lines := strings.SplitAfter(out.String(), "\n")
			if last := lines[len(lines)-1]; last != "" {
				t.Fatalf("stdout does not end with a whole line: %q", last)
			}
			var end record.Line
			for _, line := range lines[:len(lines)-1] {
				var obj struct {
					Type   string `json:"type"`
					Format int    `json:"format"`
				}
				if err := json.Unmarshal([]byte(line), &obj); err != nil || obj.Type == "" || obj.Format != record.Format {
					t.Fatalf("not a line of the output (%v): %s", err, line)
				}
				end = record.Line{}
				if err := json.Unmarshal([]byte(line), &end); err != nil {
					t.Fatal(err)
				}
			}
			if end.Type != "answer" || end.Exit == nil || *end.Exit != tt.want || *end.Answer != tt.answer || end.Limit != tt.limit {
				t.Fatalf("last line %+v, want an answer %q with exit %d and limit %q", end, tt.answer, tt.want, tt.limit)
			}
			if failed := *end.Error != ""; failed != (tt.want != exitOK) {
				t.Errorf("error %q with exit code %d", *end.Error, tt.want)
			}
		})
	}
}

// Every point of a turn that a run of -p passes writes a line of a type
// the README's schema lists (streamed pieces write none), and so do the
// start, the decisions and the end; every type it lists is written.
func TestOutputTypesAreDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### Scripting a run: `--output json`\n")
	if !ok {
		t.Fatal("the README has no section on --output json")
	}
	section, _, _ = strings.Cut(section, "\n#")
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented[m[1]] = true
	}
	if len(documented) == 0 {
		t.Fatal("the README's section on --output json has no table of types")
	}

	var buf bytes.Buffer
	out := record.NewOutput(&buf)
	written := map[string]bool{}
	take := func(what string, want int) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if buf.Len() == 0 {
			lines = nil
		}
		if len(lines) != want {
			t.Errorf("%s wrote %d lines, want %d: %q", what, len(lines), want, lines)
		}
		for _, line := range lines {
			var obj struct{ Type string }
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				t.Fatalf("%s: not JSON: %v", what, err)
			}
			if !documented[obj.Type] {
				t.Errorf("%s writes type %q, which the README does not list", what, obj.Type)
			}
			written[obj.Type] = true
		}
		buf.Reset()
	}
	out.Start(record.Start{Model: "m"})
	take("the start", 1)
	for k := loop.Kind(0); k.String() != "unknown"; k++ {
		out.Event(loop.Event{Kind: k, Turn: 1, Step: 1})
		want := 1
		if k == loop.Streamed {
			want = 0
		}
		take("event "+k.String(), want)
	}
	out.Approval(1, 1, "call_1", "bash", "run", "nobody")
	take("a decision", 1)
	out.End("", exitLimit, &loop.LimitError{Name: "max-steps"})
	take("the end", 1)
	for typ := range documented {
		if !written[typ] {
			t.Errorf("the README lists type %q, which no part of a run writes", typ)
		}
	}
}
