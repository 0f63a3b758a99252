package fence

import (
	"slices"
	"strings"
)

// HomeSetting reports whether path lies in the home folder home, both
// absolute, in a place where programs keep what they act on when they
// start, as this system (Host) spells paths; see System.HomeSetting.
func HomeSetting(home, path string) bool { return Host.HomeSetting(home, path) }

// HomeSetting reports whether path, absolute, is or lies in one of the
// places of the home folder home where programs keep what they read and
// act on when they start: an entry of home whose name starts with a dot
// (~/.config, ~/.cargo, ~/.local, ~/.bashrc, whatever program it
// belongs to), ~/bin, which the login files of Debian, Ubuntu, Fedora
// and Git for Windows put in PATH when it exists, and the folder of the
// user's settings the system has: Library on macOS (its LaunchAgents
// run at login), AppData on Windows (its Startup folder). What is
// written there runs when the user next starts git, a shell, go, cargo,
// python or a session, outside any sandbox. A rule, not a list of
// programs' files, so that a program no list names is covered as well,
// and so is a place that does not exist yet. The home folder itself is
// not one of them, nor is anything outside it; names compare as
// System.Within compares them, after cleaning.
func (s System) HomeSetting(home, path string) bool {
	_, h, ok := s.split(home)
	if !ok || !s.Within(home, path) {
		return false
	}
	_, p, _ := s.split(path)
	if len(p) == len(h) {
		return false
	}
	first := p[len(h)]
	return strings.HasPrefix(first, ".") || slices.ContainsFunc(s.settingsFolders(), func(n string) bool { return s.same(n, first) })
}

// settingsFolders are the names, besides those starting with a dot, of
// the entries of the home folder that HomeSetting covers on s.
func (s System) settingsFolders() []string {
	switch s {
	case MacOS:
		return []string{"bin", "Library"}
	case Windows:
		return []string{"bin", "AppData"}
	}
	return []string{"bin"}
}
