package sandbox

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestToolDirs(t *testing.T) {
	skipWindowsPaths(t)
	home := "/home/me"
	env := []string{
		"GOROOT=/usr/local/go",
		"GOPATH=" + home + "/src",
		"PATH=/usr/bin:" + home + "/.pyenv/shims:" + home + "/.local/bin:" + home + "/.config/tool/bin:" +
			home + "/miniconda3/bin:" + home + "/code/bin:" + home + "/.pulumi/bin:" + home + "/bin:" +
			"/home/other/.cargo/bin:/root/.pyenv/shims:" + home + ":/:bin:/run/current-system/sw/bin",
	}
	sdk := t.TempDir() // a toolchain the user names, which must exist
	got := newSandbox(t, Config{Mode: Bwrap, Dir: "/ws", Home: home, Env: env, Read: []string{sdk}}).toolDirs()
	for _, want := range []string{
		"/usr/local/go", "/usr/bin", "/run/current-system/sw/bin",
		home + "/.pyenv", home + "/miniconda3", // toolchains in their usual places
		home + "/.local/bin", home + "/.config/tool/bin", home + "/code/bin", home + "/.pulumi/bin", home + "/bin", // folders of PATH, each itself only
		home + "/.config/git/config",           // git's configuration, a file at a time
		home + "/go/pkg/mod", home + "/go/bin", // the usual places
		home + "/src/pkg/mod", home + "/src/bin", // of GOPATH, its modules and programs
		home + "/.cache/go-build",
		home + "/.m2/repository", home + "/.gradle/caches", // caches builds read offline
		sdk, // what the user named
	} {
		if !slices.Contains(got, filepath.FromSlash(want)) {
			t.Errorf("toolDirs lacks %s: %q", want, got)
		}
	}
	for _, bad := range []string{
		home, "/", "bin", "/home", home + "/.local", home + "/.config", home + "/.config/git", home + "/.config/tool",
		home + "/code", home + "/src", home + "/go", // sources, a sibling project's secrets among them
		home + "/.pulumi",                // an installer's folder, its credentials beside its programs
		home + "/.m2", home + "/.gradle", // which hold settings with credentials
		home + "/.pyenv/shims", home + "/miniconda3/bin", // opened through their toolchains already
		"/home/other/.cargo/bin", "/home/other/.cargo", "/root/.pyenv/shims", "/root/.pyenv",
	} {
		if slices.Contains(got, filepath.FromSlash(bad)) {
			t.Errorf("toolDirs holds %s: %q", bad, got)
		}
	}
}
