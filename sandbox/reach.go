package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"harness/fence"
)

// What a command may read is an allowlist where a sandbox can grant one:
// the system's folders, the toolchains, the workspace and the paths the
// user named. Home folders, and the folders where services keep their
// sockets, are shut off, but for the toolchains and the files of git's
// configuration in them, since a denylist of the places that hold secrets
// misses the ones nobody listed (a token cache, a shell history, the
// harness's own sessions).

// toolVars name folders of toolchains and their caches that commands may
// read; homeTools are where toolchains, and the caches of packages that
// builds read offline, are by default under the home folder, with the
// files of git's own configuration (its credentials file, in the same
// folder, stays out). The secret places among them (~/.gem/credentials)
// stay hidden.
var (
	toolVars  = []string{"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "CARGO_HOME", "RUSTUP_HOME", "PYENV_ROOT", "VIRTUAL_ENV", "JAVA_HOME"}
	homeTools = []string{
		"go/pkg/mod", "go/bin", ".cache/go-build", "Library/Caches/go-build", ".cargo", ".rustup", ".pyenv", ".rbenv", ".nvm", ".volta", ".asdf",
		".sdkman", ".bun", ".deno", ".dotnet", ".conda", ".julia", ".elan", ".ghcup", ".cabal", ".stack", ".opam", ".gem",
		"miniconda3", "anaconda3", "miniforge3", "mambaforge",
		".m2/repository", ".gradle/caches", ".gradle/wrapper", ".npm", ".yarn", ".nuget/packages",
		".cache/pip", ".cache/uv", ".cache/yarn", ".cache/deno",
		".local/bin", ".local/lib", ".local/share/pipx", ".local/share/uv", ".local/share/pnpm",
		".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
	}
)

// privateDirs are the folders, besides the home folder, whose contents
// bwrap shuts off: every user's home, root's, where services keep their
// sockets (a command that reaches the container engine's or an agent's
// socket acts as the user), and where other disks are mounted.
var privateDirs = []string{"/home", "/root", "/run", "/var/run", "/srv", "/mnt", "/media"}

// homesDirs hold the home folders of users: a toolchain in another's home
// is not opened.
var homesDirs = []string{"/home", "/root", "/Users", "/var/root"}

// toolDirs returns the paths of toolchains that commands may read: those
// the environment names (of GOPATH, only its module cache and programs,
// not the sources it may hold), their usual places in the home folder,
// the folders of PATH, each only itself (the folder it lies in may hold
// anything: ~/code for ~/code/bin, credentials beside an installer's
// ~/.tool/bin; a toolchain whose programs need what is beside them, and
// is not in its usual place, is named with Config.Read), and the paths of
// Config.Read. Never home itself, a folder it lies in, the root, nor a
// path in another user's home folder, unless Config.Read names it.
func (s *Sandbox) toolDirs() []string {
	s.reach.Do(s.findReach)
	return s.tools
}

// findReach finds, once for the sandbox's life, the toolchains (see
// toolDirs) and the private folders (see private): they depend on its
// Config alone.
func (s *Sandbox) findReach() {
	s.tools, s.privates = s.findToolDirs(), s.findPrivate()
}

func (s *Sandbox) findToolDirs() []string {
	home := s.cfg.Home
	env := make(map[string]string)
	for _, kv := range s.baseEnv() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	var dirs []string
	for _, k := range toolVars {
		for _, d := range filepath.SplitList(env[k]) {
			if k == "GOPATH" && d != "" {
				dirs = append(dirs, filepath.Join(d, "pkg", "mod"), filepath.Join(d, "bin"))
				continue
			}
			dirs = append(dirs, d)
		}
	}
	if home != "" {
		for _, rel := range homeTools {
			dirs = append(dirs, filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	known := slices.Clone(dirs) // a folder of PATH in one of them adds nothing
	for _, d := range filepath.SplitList(env["PATH"]) {
		if !filepath.IsAbs(d) || !within(known, filepath.Clean(d)) {
			dirs = append(dirs, d)
		}
	}
	var out []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if d == "/" || home != "" && fence.Within(d, home) || slices.Contains(out, d) {
			continue
		}
		if within(homesDirs, d) && (home == "" || !fence.Within(home, d)) {
			continue // another user's
		}
		out = append(out, d)
	}
	for _, d := range s.cfg.Read { // what the user named, whatever it is
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// private returns the folders that bwrap shuts off: the home folder and
// privateDirs, those that exist, resolved, and none inside another.
func (s *Sandbox) private() []string {
	s.reach.Do(s.findReach)
	return s.privates
}

func (s *Sandbox) findPrivate() []string {
	var all []string
	for _, p := range append([]string{s.cfg.Home}, privateDirs...) {
		if p == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || real == "/" {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.IsDir() {
			all = append(all, real)
		}
	}
	slices.Sort(all) // a folder before what is inside it
	var out []string
	for _, p := range all {
		if !within(out, p) {
			out = append(out, p)
		}
	}
	return out
}
