package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"harness/fence"
)

// BenchmarkRun measures what one command costs, `true` being nearly free:
// the shell alone, the shell inside bwrap, and the shell started by the
// Landlock launcher (this test binary started again). The difference is
// each sandbox's price per command.
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	for _, mode := range []Mode{None, Bwrap, Landlock} {
		b.Run(string(mode), func(b *testing.B) {
			s, err := New(Config{Mode: mode, Dir: dir, Env: Env(os.Environ(), dir)})
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Start(context.Background()); err != nil {
				b.Skipf("skipped: %v", err)
			}
			for b.Loop() {
				if res, err := s.Run(context.Background(), Command{Script: "true"}); err != nil || res.Exit != 0 {
					b.Fatalf("exit %d, %v", res.Exit, err)
				}
			}
		})
	}
}

// BenchmarkMakeCaches is what making the caches folder costs each start:
// checking it against the places commands may not see (those of a home,
// about thirty), and making its subfolders, which exist after the first.
func BenchmarkMakeCaches(b *testing.B) {
	home := b.TempDir()
	caches := filepath.Join(b.TempDir(), "state", "caches")
	hide := fence.SecretPlaces(home)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := makeCaches(caches, hide); err != nil {
			b.Fatal(err)
		}
	}
}
