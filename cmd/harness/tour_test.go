package main

import (
	"bytes"
	"context"
	"fmt"
	"harness/tour"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestTour runs every stage of the tour as a learner would, offline, and
// checks that it shows what its text says it shows: each line of the
// stage's want must match a line of the output, and the stage must end
// well, which it does only when the scripted model was sent what it
// expected at every step. The user's settings play no part.
func TestTour(t *testing.T) {
	t.Setenv("HARNESS_APPROVE", "all")
	t.Setenv("HARNESS_SANDBOX", "bwrap")
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	if err := os.MkdirAll(filepath.Join(config, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "harness", "SYSTEM.md"), []byte("The user's own instructions.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	tr, err := tour.Load()
	if err != nil {
		t.Fatal(err)
	}
	stages := tr.Stages
	if len(stages) < 10 {
		t.Fatalf("%d stages; the tour has at least 10", len(stages))
	}
	for i, s := range stages {
		t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
			if len(s.Want) == 0 {
				t.Fatal("the stage says nothing it must show (no want)")
			}
			var out bytes.Buffer
			code := execute(context.Background(), []string{"tour", fmt.Sprint(i + 1)}, strings.NewReader(""), &out, &out)
			if code != exitOK {
				t.Fatalf("exit code %d:\n%s", code, out.String())
			}
			if strings.Contains(out.String(), "own instructions") {
				t.Errorf("the stage read the user's SYSTEM.md:\n%s", out.String())
			}
			for _, w := range s.Want {
				if !regexp.MustCompile("(?m)" + w).MatchString(out.String()) {
					t.Errorf("no line matches %q in:\n%s", w, out.String())
				}
			}
			for _, part := range []string{s.Title, "What to notice", "harness --show-wire --fake model.fake -w ws"} {
				if !strings.Contains(out.String(), part) {
					t.Errorf("the output lacks %q", part)
				}
			}
		})
	}
	if left, _ := os.ReadDir(state); len(left) > 0 {
		t.Errorf("the tour left %d files in the user's state folder", len(left))
	}
}

// A stage whose harness strays from the scripted model fails, with the
// harness's exit code.
func TestTourStageStrays(t *testing.T) {
	tests := map[string]string{
		"expectation": "-- input --\nhello\n-- model.fake --\n>>> expect=\"something else\"\nhi\n",
		"exhausted":   "-- input --\nhello\nagain\n-- model.fake --\n>>>\nhi\n",
	}
	for name, archive := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := tour.ParseStage(txtar.Parse([]byte("title: t\n" + archive)))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			code, err := (&tour.Tour{Stages: []tour.Stage{s}}).Run(context.Background(), &out, 1, executeIn)
			if err != nil || code != exitError {
				t.Errorf("the stage ended with %d, %v:\n%s", code, err, out.String())
			}
		})
	}
}

func TestTourList(t *testing.T) {
	var out bytes.Buffer
	if code := execute(context.Background(), []string{"tour"}, nil, &out, &out); code != exitOK {
		t.Fatalf("exit code %d: %s", code, out.String())
	}
	for _, want := range []string{"harness tour N", "   1  Chat only\n", "   2  One tool, read strictly\n", "  10  The command guard, the sandbox and approvals\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the list lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := execute(context.Background(), []string{"tour", "99"}, nil, &out, &out); code != exitUsage || !strings.Contains(out.String(), "there is no stage 99") {
		t.Errorf("tour 99: exit %d, %s", code, out.String())
	}
}
