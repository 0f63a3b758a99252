package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A process of a command that allocates past MaxMemory fails, under every
// tier; one that allocates less does not.
func TestMemoryLimit(t *testing.T) {
	ws, _ := dirs(t)
	const big = `perl -e '$x = "a" x (256 << 20); print "allocated\n"'`
	const small = `perl -e '$x = "a" x (1 << 20); print "allocated\n"'`
	if res := run(t, newSandbox(t, Config{Mode: None, Dir: ws}), big); res.Output != "allocated\n" {
		t.Fatalf("with the default limit %q prints %q: the test proves nothing", big, res.Output)
	}
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			s := tiered(t, mode, Config{Dir: ws, MaxMemory: 64 << 20})
			if res := run(t, s, big); res.Exit == 0 || strings.Contains(res.Output, "allocated") {
				t.Errorf("256 MiB allocated past a limit of 64 MiB: exit %d, %q", res.Exit, res.Output)
			}
			if res := run(t, s, small); res.Output != "allocated\n" {
				t.Errorf("1 MiB under a limit of 64 MiB: exit %d, %q", res.Exit, res.Output)
			}
		})
	}
}

// forks starts up to 200 processes that sleep, and prints how many it
// started: perl's fork, unlike bash's, does not wait and try again when
// the kernel refuses. It stops at 200 whatever holds it, so that where
// nothing does the machine is not harmed.
const forks = `perl -e 'my $n = 0; for (1..200) { my $p = fork; last unless defined $p; if ($p == 0) { sleep 30; exit } $n++ } print "$n\n"'`

// A command that starts processes without end is held to MaxProcs, under
// every tier where something can hold it (see procLimit); its control
// group, where it has one, is gone once it has ended.
func TestProcessLimit(t *testing.T) {
	ws, _ := dirs(t)
	if res := run(t, newSandbox(t, Config{Mode: None, Dir: ws}), forks); res.Output != "200\n" {
		t.Fatalf("with the default limit %q prints %q: the test proves nothing", forks, res.Output)
	}
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		t.Run(string(mode), func(t *testing.T) {
			const limit = 32
			s := tiered(t, mode, Config{Dir: ws, MaxProcs: limit})
			if err := s.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			if s.procLimit() == "" {
				t.Skipf("skipped: nothing here holds the processes of a command under %s (see procLimit)", mode)
			}
			res := run(t, s, forks)
			n, err := strconv.Atoi(strings.TrimSpace(res.Output))
			if err != nil || n < 1 || n >= limit {
				t.Errorf("held by %s, a command of at most %d processes started %q more", s.procLimit(), limit, res.Output)
			}
			if s.groups != nil {
				left, _ := filepath.Glob(filepath.Join(s.groups.dir, "harness-"+strconv.Itoa(os.Getpid())+"-*"))
				if len(left) > 0 {
					t.Errorf("control groups left behind: %q", left)
				}
			}
		})
	}
}

func TestCgroupDir(t *testing.T) {
	const v1self = "9:name=systemd:/\n8:pids:/user/a b\n4:memory:/x\n0::/\n"
	const v2self = "0::/user.slice/app.scope\n"
	const mounts = "25 30 0:22 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
		"33 25 0:29 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n" +
		"34 25 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
		"35 25 0:31 / /sys/fs/cgroup/unified\\040v2 rw - cgroup2 cgroup2 rw\n" +
		"36 25 0:31 /nested /elsewhere rw - cgroup2 cgroup2 rw\n"
	tests := []struct {
		self, mounts string
		v2           bool
		want         string
	}{
		{v1self, mounts, false, "/sys/fs/cgroup/pids/user/a b"},
		{v1self, mounts, true, "/sys/fs/cgroup/unified v2"},
		{v2self, mounts, true, "/sys/fs/cgroup/unified v2/user.slice/app.scope"},
		{v2self, mounts, false, ""},                               // no pids hierarchy of v1 holds it
		{v1self, "", false, ""},                                   // none mounted
		{v2self, mounts[:strings.Index(mounts, "35 ")], true, ""}, // v2 not mounted
	}
	for _, tt := range tests {
		if got := cgroupDir(tt.self, tt.mounts, tt.v2); got != tt.want {
			t.Errorf("cgroupDir(%q, v2 %v) = %q, want %q", tt.self, tt.v2, got, tt.want)
		}
	}
}

// A group left behind by a killed harness whose process id this one got
// is taken over when empty, and passed by when still in use: making a
// group never fails for a name a dead process used.
func TestCgroupLeftovers(t *testing.T) {
	c := &cgroups{dir: t.TempDir()}
	name := func(n int) string {
		return filepath.Join(c.dir, "harness-"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(n))
	}
	if err := os.Mkdir(name(1), 0o755); err != nil { // empty: a leftover
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(name(2), "busy"), 0o755); err != nil { // not empty: in use
		t.Fatal(err)
	}
	if dir, err := c.mkdir(); err != nil || dir != name(1) {
		t.Fatalf("mkdir over an empty leftover = %q, %v; want %q", dir, err, name(1))
	}
	if dir, err := c.mkdir(); err != nil || dir != name(3) {
		t.Fatalf("mkdir over a group in use = %q, %v; want %q", dir, err, name(3))
	}
	if _, err := os.Stat(filepath.Join(name(2), "busy")); err != nil {
		t.Errorf("the group in use was touched: %v", err)
	}
}
