package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"harness/sandbox"
)

// TestSandboxScript runs the scripts of testdata/sandbox, which prove what
// bubblewrap stops. Where bwrap cannot run they are skipped, saying why,
// unless HARNESS_REQUIRE_BWRAP is set, as CI sets it, so that a sandbox that
// stopped working fails the build instead of passing quietly.
func TestSandboxScript(t *testing.T) {
	t.Parallel()
	box, err := sandbox.New(sandbox.Config{Mode: sandbox.Bwrap, Dir: t.TempDir()})
	if err == nil {
		err = box.Start(context.Background())
	}
	if err != nil {
		if os.Getenv("HARNESS_REQUIRE_BWRAP") != "" {
			t.Fatalf("HARNESS_REQUIRE_BWRAP is set and %v", err)
		}
		t.Skipf("skipped: these scripts need bubblewrap, and %v", err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "sandbox"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setup,
	})
}
