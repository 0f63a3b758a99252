package sandbox

import (
	"strings"

	"harness/fence"
)

// keepVars are the variables of the user's environment that commands get:
// where programs, caches and toolchains are, and the locale. Nothing else
// passes, so API keys and tokens stay behind. The locale categories are
// named one by one: ssh passes on any LC_ variable, and people use that to
// send their own, tokens included.
var keepVars = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true,
	"LC_ALL": true, "LC_CTYPE": true, "LC_COLLATE": true, "LC_MESSAGES": true, "LC_MONETARY": true, "LC_NUMERIC": true,
	"LC_TIME": true, "LC_ADDRESS": true, "LC_IDENTIFICATION": true, "LC_MEASUREMENT": true, "LC_NAME": true,
	"LC_PAPER": true, "LC_TELEPHONE": true,
	"GOPATH": true, "GOROOT": true, "GOCACHE": true, "GOMODCACHE": true, "GOFLAGS": true, "GOPROXY": true,
	"GONOPROXY": true, "GONOSUMDB": true, "GOPRIVATE": true, "GOSUMDB": true, "GOTOOLCHAIN": true, "GOTELEMETRY": true,
	"CARGO_HOME": true, "RUSTUP_HOME": true, "RUSTUP_TOOLCHAIN": true,
	"VIRTUAL_ENV": true, "PYENV_ROOT": true, "PYENV_VERSION": true, "JAVA_HOME": true,
	"XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// windowsVars are the variables of Windows that programs need to run at all
// (SystemRoot, ComSpec, PATHEXT), or to find the user's folders, kept on
// Windows only. There a variable's name has no case: Path is PATH.
var windowsVars = map[string]bool{
	"SYSTEMROOT": true, "SYSTEMDRIVE": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"TEMP": true, "TMP": true, "USERPROFILE": true, "HOMEDRIVE": true, "HOMEPATH": true, "USERNAME": true,
	"APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true, "PROGRAMFILES": true, "PROGRAMFILES(X86)": true,
	"PROGRAMW6432": true, "COMMONPROGRAMFILES": true, "COMMONPROGRAMFILES(X86)": true, "COMMONPROGRAMW6432": true,
	"NUMBER_OF_PROCESSORS": true, "PROCESSOR_ARCHITECTURE": true, "OS": true,
	"MSYSTEM": true, // which environment Git for Windows' bash is
}

// fixedVars keep tools from waiting for a terminal, keep git from
// running hooks or a file-system monitor that a repository's configuration
// names, and from taking a folder shaped like a git directory for a
// repository (safe.bareRepository=explicit: a bare repository is used
// only when named, which GIT_DIR does for the workspace's own; see
// Command.Git), and from reaching a repository by its path, however a
// remote names it (protocol.file.allow=never).
var fixedVars = []string{
	"TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
	"GIT_CONFIG_COUNT=4",
	"GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false",
	"GIT_CONFIG_KEY_1=core.hooksPath", "GIT_CONFIG_VALUE_1=/dev/null",
	"GIT_CONFIG_KEY_2=safe.bareRepository", "GIT_CONFIG_VALUE_2=explicit",
	"GIT_CONFIG_KEY_3=protocol.file.allow", "GIT_CONFIG_VALUE_3=never",
}

// Env returns the environment commands run with, made from environ (as
// os.Environ gives it): the variables in a short list of harmless ones,
// none whose name suggests a secret (fence.SecretVar) nor whose value holds
// one (a URL with a user name or password in it, fence.URLUserinfo, or
// text shaped like a key, a token or a password assignment, fence.Leak, as
// a token in GOFLAGS' -ldflags or in GOPROXY's query is), a PATH without
// relative entries or entries inside dir (where a command could plant a
// program named like an allowed one), and settings that keep tools from
// waiting for a terminal. On Windows, names are taken without case, and
// the variables Windows programs need are kept too (windowsVars).
func Env(environ []string, dir string) []string {
	return env(environ, dir, fence.Host)
}

// env is Env on system sys, whose paths PATH holds.
func env(environ []string, dir string, sys fence.System) []string {
	windows := sys&fence.WindowsPaths != 0
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		canon := name
		if windows {
			canon = strings.ToUpper(name)
		}
		if !ok || !keepVars[canon] && !(windows && windowsVars[canon]) || fence.SecretVar(name) {
			continue
		}
		if user, _ := fence.URLUserinfo(value); user || fence.Leak(value) != "" {
			continue
		}
		if canon == "PATH" {
			value = cleanPath(value, dir, sys)
		}
		out = append(out, name+"="+value)
	}
	return append(out, fixedVars...)
}

// cleanPath returns path, a list of folders as PATH holds them on sys,
// without the relative ones and those inside dir.
func cleanPath(path, dir string, sys fence.System) string {
	sep, windows := ":", sys&fence.WindowsPaths != 0
	if windows {
		sep = ";"
	}
	var keep []string
	for _, p := range strings.Split(path, sep) {
		if windows {
			p = strings.Trim(p, `"`) // C:\a;"C:\Program Files\x";...
		}
		// A path is absolute when it is within itself.
		if p == "" || !sys.Within(p, p) || sys.Within(dir, p) {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, sep)
}
