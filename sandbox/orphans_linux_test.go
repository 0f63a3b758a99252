package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// plant leaves a process in a session of its own (setsid) that writes
// planted.txt once the command has ended, as one could plant git
// configuration after the check that follows a command. The command
// waits a little, so that the process is in its session before the
// command's group is killed.
const plant = "setsid sh -c 'sleep 0.5; echo planted > planted.txt' </dev/null >/dev/null 2>&1 & sleep 0.1"

// The planted process is killed when the command ends, in the tiers whose
// processes bwrap's namespaces do not hold. Run by bash alone it writes
// its file: the test can fail.
func TestOrphanInOwnSessionKilled(t *testing.T) {
	plain, _ := dirs(t)
	cmd := exec.Command("bash", "-c", plant)
	cmd.Dir = plain
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(filepath.Join(plain, "planted.txt")); err != nil {
		t.Fatalf("run by bash alone, the process did not write its file (%v): the test proves nothing", err)
	}
	for _, tier := range []struct {
		name string
		box  func(*testing.T, Config) *Sandbox
	}{
		{"none", func(t *testing.T, cfg Config) *Sandbox { cfg.Mode = None; return newSandbox(t, cfg) }},
		{"landlock", landlocked},
	} {
		t.Run(tier.name, func(t *testing.T) {
			ws, _ := dirs(t)
			run(t, tier.box(t, Config{Dir: ws}), plant)
			time.Sleep(time.Second)
			if _, err := os.Stat(filepath.Join(ws, "planted.txt")); err == nil {
				t.Error("a process in a session of its own outlived the command and wrote planted.txt")
			}
		})
	}
}

// A chain of processes, each in a session of its own and each the parent
// of the next, comes back to the harness a process at a time as each
// above it is killed: the sweep goes on until none comes back.
func TestOrphanChainKilled(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("skipped: needs perl")
	}
	ws, _ := dirs(t)
	chain := `perl -e 'use POSIX qw(setsid); setsid(); $n=0; while ($n<20) { my $p=fork(); last if $p; setsid(); $n++ } sleep 1; if ($n==20) { open F,">planted.txt"; print F "x"; close F }' </dev/null >/dev/null 2>&1 & sleep 0.3`
	run(t, newSandbox(t, Config{Mode: None, Dir: ws}), chain)
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(ws, "planted.txt")); err == nil {
		t.Error("the last of a chain of processes in sessions of their own outlived the command and wrote planted.txt")
	}
}

// What a command still running left behind stays, even in a session of
// its own, when another command ends meanwhile: it is that command's until
// it ends.
func TestOrphanOfRunningCommandKept(t *testing.T) {
	ws, _ := dirs(t)
	s := newSandbox(t, Config{Mode: None, Dir: ws})
	var wg sync.WaitGroup
	wg.Go(func() {
		// It waits for what it left (up to 10 s, so that a busy machine
		// does not end it first, sweeping its own).
		run(t, s, "(setsid sh -c 'sleep 0.3; echo kept > kept.txt' </dev/null >/dev/null 2>&1 &); i=0; while [ ! -s kept.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done")
	})
	time.Sleep(100 * time.Millisecond)
	run(t, s, "true") // ends, and sweeps, while the first runs
	wg.Wait()
	if b, err := os.ReadFile(filepath.Join(ws, "kept.txt")); err != nil || strings.TrimSpace(string(b)) != "kept" {
		t.Errorf("the running command's own process was killed: %v", err)
	}
}
