package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestTour runs every stage of the tour as a learner would, offline, and
// checks that it shows what its text says it shows: each line of the
// stage's want must match a line of the output, and the scripted model
// must have been sent what it expected at every step.
func TestTour(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // each stage points it elsewhere and puts this back
	stages, _, err := loadTour()
	if err != nil {
		t.Fatal(err)
	}
	if len(stages) < 10 {
		t.Fatalf("%d stages; the tour has at least 10", len(stages))
	}
	for i, s := range stages {
		t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) {
			if len(s.want) == 0 {
				t.Fatal("the stage says nothing it must show (no want)")
			}
			var out bytes.Buffer
			before := os.Getenv("XDG_STATE_HOME")
			code := run(context.Background(), []string{"tour", fmt.Sprint(i + 1)}, strings.NewReader(""), &out, &out)
			if code != exitOK {
				t.Fatalf("exit code %d:\n%s", code, out.String())
			}
			if state := os.Getenv("XDG_STATE_HOME"); state != before {
				t.Errorf("the stage left XDG_STATE_HOME at %q", state)
			}
			if strings.Contains(out.String(), "fakemodel:") {
				t.Errorf("the harness did not send what the script expects:\n%s", out.String())
			}
			for _, w := range s.want {
				if !regexp.MustCompile("(?m)" + w).MatchString(out.String()) {
					t.Errorf("no line matches %q in:\n%s", w, out.String())
				}
			}
			for _, part := range []string{s.title, "What to notice", "harness --show-wire --fake model.fake -w ws"} {
				if !strings.Contains(out.String(), part) {
					t.Errorf("the output lacks %q", part)
				}
			}
		})
	}
}

func TestTourList(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"tour"}, nil, &out, &out); code != exitOK {
		t.Fatalf("exit code %d: %s", code, out.String())
	}
	for _, want := range []string{"harness tour N", "   1  Chat only\n", "   2  One tool, read strictly\n", "  10  The command guard, the sandbox and approvals\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the list lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := run(context.Background(), []string{"tour", "99"}, nil, &out, &out); code != exitUsage || !strings.Contains(out.String(), "there is no stage 99") {
		t.Errorf("tour 99: exit %d, %s", code, out.String())
	}
}
