package loop

import (
	"testing"

	"harness/protocol"
)

func TestRanNoTests(t *testing.T) {
	tests := []struct {
		name string
		body string
		none bool
	}{
		{"go: no test files", "?   \texample.com/greet\t[no test files]\n[exit status 0]", true},
		{"go: -run matched nothing", "ok  \texample.com/greet\t0.002s [no tests to run]\n[exit status 0]", true},
		{"go -v: -run matched nothing", "testing: warning: no tests to run\nPASS\nok  \texample.com/greet\t0.002s [no tests to run]\n[exit status 0]", true},
		{"go: one package tested, one without tests", "?   \texample.com/greet/cmd\t[no test files]\nok  \texample.com/greet\t0.004s\n[exit status 0]", false},
		{"go: tests passed", "ok  \texample.com/greet\t0.004s\n[exit status 0]", false},
		{"go: cached pass", "ok  \texample.com/greet\t(cached)\n[exit status 0]", false},
		{"go: a test failed", "--- FAIL: TestGreet (0.00s)\n    greet_test.go:9: got wrold\nFAIL\nFAIL\texample.com/greet\t0.003s\n[exit status 1]", false},
		{"go: build failed", "# example.com/greet\n./main.go:3:1: syntax error\nFAIL\texample.com/greet [build failed]\n[exit status 1]", false},
		{"pytest: exit 5", "============================= test session starts ==============================\ncollected 0 items\n\n============================ no tests ran in 0.01s =============================\n[exit status 5]", true},
		{"pytest: passed", "collected 3 items\n\ntest_a.py ...                                                            [100%]\n\n============================== 3 passed in 0.02s ===============================\n[exit status 0]", false},
		{"pytest: failed", "=========================== 1 failed, 2 passed in 0.05s ===========================\n[exit status 1]", false},
		{"unittest: ran 0 tests", "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n[exit status 0]", true},
		{"unittest 3.12: no tests ran", "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n[exit status 5]", true},
		{"unittest: ran 2 tests", "..\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nOK\n[exit status 0]", false},
		{"cargo: no tests anywhere", "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n[exit status 0]", true},
		{"cargo: unit tests ran, doc tests none", "running 2 tests\ntest a ... ok\ntest b ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n[exit status 0]", false},
		{"output that says nothing about tests", "hello\n[exit status 0]", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ranNoTests(tt.body); got != tt.none {
				t.Errorf("ranNoTests = %v, want %v for\n%s", got, tt.none, tt.body)
			}
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		name string
		res  protocol.Result
		want testOutcome
	}{
		{"refused before it began", protocol.Result{Body: "the guard refused it"}, testsRefused},
		{"ran and found no test", protocol.Result{OK: true, Wrote: true, Body: "?   \texample.com/greet\t[no test files]\n[exit status 0]"}, testsNone},
		{"found no test and failed", protocol.Result{Wrote: true, Body: "collected 0 items\n[exit status 5]"}, testsNone},
		{"passed", protocol.Result{OK: true, Wrote: true, Body: "ok  \texample.com/greet\t0.004s\n[exit status 0]"}, testsPassed},
		{"failed", protocol.Result{Wrote: true, Body: "--- FAIL: TestGreet (0.00s)\nFAIL\n[exit status 1]"}, testsFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := outcomeOf(tt.res); got != tt.want {
				t.Errorf("outcomeOf = %v, want %v", got, tt.want)
			}
		})
	}
}
