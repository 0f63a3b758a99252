package sandbox

import (
	"fmt"
	"os"
	"testing"
)

// TestMain makes the test binary the launcher of commands under Landlock,
// as main does for the harness.
func TestMain(m *testing.M) {
	if err := Launch(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	os.Exit(m.Run())
}
