package loop

import (
	"fmt"
	"harness/plural"
	"slices"
	"strings"
)

// Report says what a turn did, built from the calls that ran and their
// results, never from what the model said about them.
type Report struct {
	Turn      int `json:"turn"`
	Steps     int `json:"steps"` // replies received
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"` // including calls refused before running
	// Changed lists what the calls that wrote, or may have, acted on, in
	// order, each once (see Config.Target).
	Changed []string `json:"changed"`
	// Tested is true when a call that runs tests ran and found tests to
	// run; TestsPassed says how the last such run ended.
	Tested      bool `json:"tested"`
	TestsPassed bool `json:"tests_passed"`
	// EmptyTestRuns counts the test commands that ran and found no test
	// to run; they are no test run.
	EmptyTestRuns int `json:"empty_test_runs,omitempty"`
	// Unverified lists what changed after the last test run.
	Unverified  []string `json:"unverified"`
	Interrupted bool     `json:"interrupted"`
	// Unreported counts the replies whose token use the backend did not
	// report: unknown, not zero, so a limit on output tokens
	// (Budget.OutputTokens) cannot count them.
	Unreported int   `json:"unreported,omitempty"`
	Err        error `json:"-"`
}

// Verdict says in a few words whether the turn's changes were tested: one of
// the four kinds of done a report can tell apart.
func (r *Report) Verdict() string {
	switch {
	case !r.Tested && r.EmptyTestRuns > 0:
		return "no tests ran (the test command found no test to run)"
	case !r.Tested:
		return "no tests ran"
	case len(r.Unverified) > 0:
		return "edits after the last test run: " + strings.Join(r.Unverified, ", ")
	case !r.TestsPassed:
		return "the last test run failed"
	case len(r.Changed) == 0:
		return "tests passed"
	}
	return "verified after last edit"
}

func (r *Report) add(j *job, cfg Config) {
	if j.res.OK {
		r.Succeeded++
	} else {
		r.Failed++
	}
	if !j.run {
		return
	}
	if cfg.IsTest != nil && cfg.IsTest(j.call) {
		// A test command that was refused (by the guard, or the user)
		// never ran, and one that found no test tested nothing: neither
		// verifies anything.
		switch o := outcomeOf(j.res); o {
		case testsPassed, testsFailed:
			r.Tested, r.TestsPassed, r.Unverified = true, o == testsPassed, nil
		case testsNone:
			r.EmptyTestRuns++
		}
		// What a test run was seen to change beside (test code that
		// rewrote .gitignore) is listed, but is no edit its tests missed.
		for _, c := range j.res.Changed {
			r.Changed = appendNew(r.Changed, c)
		}
		return
	}
	if !j.res.Wrote {
		return
	}
	c := j.call.Name
	if cfg.Target != nil {
		c = cfg.Target(j.call)
	}
	for _, c := range append([]string{c}, j.res.Changed...) {
		r.Changed, r.Unverified = appendNew(r.Changed, c), appendNew(r.Unverified, c)
	}
}

// appendNew appends s to list unless list holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Summary is the report in one line, e.g. "3 steps, 2 calls (2 succeeded,
// 0 failed); changed: a.go; verified after last edit", and, when the
// backend did not report the token use of some replies, how many.
func (r *Report) Summary() string {
	var b strings.Builder
	if r.Interrupted {
		b.WriteString("interrupted; ")
	}
	calls := r.Succeeded + r.Failed
	b.WriteString(plural.Count(r.Steps, "step") + ", " + plural.Count(calls, "call"))
	if calls > 0 {
		fmt.Fprintf(&b, " (%d succeeded, %d failed)", r.Succeeded, r.Failed)
	}
	if len(r.Changed) > 0 {
		b.WriteString("; changed: " + strings.Join(r.Changed, ", "))
	} else {
		b.WriteString("; nothing changed")
	}
	b.WriteString("; " + r.Verdict())
	if r.Unreported > 0 {
		fmt.Fprintf(&b, "; no token count for %d of the replies", r.Unreported)
	}
	return b.String()
}
