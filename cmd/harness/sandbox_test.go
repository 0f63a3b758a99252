package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"harness/sandbox"
)

// TestSandboxScript runs the scripts of testdata/sandbox, which prove what
// bubblewrap stops. Where bwrap cannot run they are skipped, saying why,
// unless HARNESS_REQUIRE_BWRAP is set, as CI sets it, so that a sandbox that
// stopped working fails the build instead of passing quietly.
func TestSandboxScript(t *testing.T) {
	tierScripts(t, sandbox.Bwrap, "sandbox", "HARNESS_REQUIRE_BWRAP", "bubblewrap")
}

// TestLandlockScript runs the scripts of testdata/landlock, which prove
// what Landlock stops. Where the kernel cannot run it they are skipped,
// saying why, unless HARNESS_REQUIRE_LANDLOCK is set, as CI sets it where
// the kernel has Landlock.
func TestLandlockScript(t *testing.T) {
	tierScripts(t, sandbox.Landlock, "landlock", "HARNESS_REQUIRE_LANDLOCK", "Landlock")
}

// tierScripts runs the scripts of testdata/dir when commands can run in
// mode here; otherwise it skips them, saying why, or fails when the
// variable require is set.
func tierScripts(t *testing.T, mode sandbox.Mode, dir, require, what string) {
	t.Parallel()
	if err := sandboxWorks(t, mode); err != nil {
		if os.Getenv(require) != "" {
			t.Fatalf("%s is set and %v", require, err)
		}
		t.Skipf("skipped: these scripts need %s, and %v", what, err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", dir),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setup,
		Condition:           condition,
	})
}

// sandboxWorks returns why commands cannot run in mode here, or nil.
func sandboxWorks(t *testing.T, mode sandbox.Mode) error {
	box, err := sandbox.New(sandbox.Config{Mode: mode, Dir: t.TempDir()})
	if err == nil {
		err = box.Start(context.Background())
	}
	return err
}

// landlockHere says, found out once, whether commands can run under
// Landlock on this machine.
var landlockHere = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "harness-landlock-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	box, err := sandbox.New(sandbox.Config{Mode: sandbox.Landlock, Dir: dir})
	return err == nil && box.Start(context.Background()) == nil
})

// condition adds [landlock] to the conditions of scripts: true where
// commands can run under Landlock.
func condition(cond string) (bool, error) {
	if cond == "landlock" {
		return landlockHere(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}
