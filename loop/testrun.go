package loop

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"harness/protocol"
)

// testOutcome is what the result of a call that runs tests (Config.IsTest)
// says about the tests, for the turn report. Only passed and failed are a
// test run; the others verify nothing.
type testOutcome int

const (
	testsRefused testOutcome = iota // stopped before it began
	testsNone                       // ran, and found no test to run
	testsPassed
	testsFailed
)

// outcomeOf reads the result of a call that runs tests and that ran. A
// failure that changed nothing was a refusal (by the guard, say): the
// command never began. Otherwise the output says whether any test ran
// (ranNoTests), and the result's OK whether they passed.
func outcomeOf(res protocol.Result) testOutcome {
	switch {
	case !res.OK && !res.Wrote:
		return testsRefused
	case ranNoTests(res.Body):
		return testsNone
	case res.OK:
		return testsPassed
	}
	return testsFailed
}

// A testLine is a line of test output that tells whether tests ran. count,
// when set, is the submatch that holds how many; a count of 0 says none.
type testLine struct {
	re    *regexp.Regexp
	ran   bool // the line says tests ran (when count is set: if it is not 0)
	count int
}

// testLines are the lines of go test, cargo test, pytest and unittest
// that say whether a test ran. They are compiled when a test command's
// output is first read, not at every start.
var testLines = sync.OnceValue(func() []testLine {
	return []testLine{
		{re: regexp.MustCompile(`^\?\s+\S+\s+\[no test files\]`)},                                       // go: a package without tests
		{re: regexp.MustCompile(`^ok\s+\S+.*\[no tests to run\]`)},                                      // go: -run matched nothing
		{re: regexp.MustCompile(`^testing: warning: no tests to run`)},                                  // go -v
		{re: regexp.MustCompile(`^ok\s+\S+`), ran: true},                                                // go: a package passed
		{re: regexp.MustCompile(`^--- (PASS|FAIL|SKIP)\b`), ran: true},                                  // go -v: a test ended
		{re: regexp.MustCompile(`^FAIL\b`), ran: true},                                                  // go: a package failed, to build or to pass
		{re: regexp.MustCompile(`^running (\d+) tests?$`), ran: true, count: 1},                         // cargo, per test binary
		{re: regexp.MustCompile(`^Ran (\d+) tests? in`), ran: true, count: 1},                           // unittest
		{re: regexp.MustCompile(`(?i)\bno tests ran\b`)},                                                // pytest's exit 5, unittest 3.12
		{re: regexp.MustCompile(`^collected 0 items`)},                                                  // pytest
		{re: regexp.MustCompile(`\b(\d+) (passed|failed|errors?)\b.* in [\d.]+s`), ran: true, count: 1}, // pytest's summary
	}
})

// ranNoTests reports whether the output of a test command says that it
// found no test to run, and no line says that any did: a package without
// test files, a -run pattern that matched nothing, pytest collecting
// nothing.
func ranNoTests(body string) bool {
	none := false
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		for _, tl := range testLines() {
			m := tl.re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			ran := tl.ran
			if tl.count > 0 {
				n, _ := strconv.Atoi(m[tl.count])
				ran = n > 0
			}
			if ran {
				return false
			}
			none = true
			break
		}
	}
	return none
}
