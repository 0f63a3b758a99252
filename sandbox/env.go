package sandbox

import (
	"path/filepath"
	"strings"
)

// keepVars are the variables of the user's environment that commands get:
// where programs, caches and toolchains are, and the locale. Nothing else
// passes, so API keys and tokens stay behind.
var keepVars = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
	"GOPATH": true, "GOROOT": true, "GOCACHE": true, "GOMODCACHE": true, "GOFLAGS": true, "GOPROXY": true,
	"GONOPROXY": true, "GONOSUMDB": true, "GOPRIVATE": true, "GOSUMDB": true, "GOTOOLCHAIN": true, "GOTELEMETRY": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "RUSTUP_TOOLCHAIN": true,
	"VIRTUAL_ENV": true, "PYENV_ROOT": true, "PYENV_VERSION": true, "JAVA_HOME": true,
	"XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// secretWords mark a variable name as holding a secret even when it would
// otherwise be kept.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"}

// fixedVars keep tools from waiting for a terminal, and keep git from
// running hooks or a file-system monitor that a repository's configuration
// names.
var fixedVars = []string{
	"TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
	"GIT_CONFIG_COUNT=2",
	"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
	"GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null",
}

// Env returns the environment commands run with, made from environ (as
// os.Environ gives it): the variables in a short list of harmless ones,
// none whose name suggests a secret nor whose value carries a password in
// a URL, a PATH without relative entries or entries inside dir (where a
// command could plant a program named like an allowed one), and settings
// that keep tools from waiting for a terminal.
func Env(environ []string, dir string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !keep(name) || hasUserinfo(value) {
			continue
		}
		if name == "PATH" {
			value = cleanPath(value, dir)
		}
		out = append(out, name+"="+value)
	}
	return append(out, fixedVars...)
}

func keep(name string) bool {
	if !keepVars[name] && !strings.HasPrefix(name, "LC_") {
		return false
	}
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return false
		}
	}
	return true
}

// hasUserinfo reports whether value holds a URL with a password in it, as
// in https://user:pass@proxy.
func hasUserinfo(value string) bool {
	i := strings.Index(value, "://")
	if i < 0 {
		return false
	}
	rest := value[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	return strings.Contains(rest, "@")
}

func cleanPath(path, dir string) string {
	var keep []string
	for _, p := range filepath.SplitList(path) {
		if p == "" || !filepath.IsAbs(p) || within(dir, filepath.Clean(p)) {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}
