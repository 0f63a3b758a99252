package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"harness/fence"
	"harness/gitdir"
)

// The profiles are written and read here on any system, not run: these
// tests read a profile as sandbox-exec would (sbplRead), and decide what
// it allows as Seatbelt does (sbplDecide): everything not allowed is
// denied, and of the rules that match an operation on a path, the last
// one wins.

// sbplRead reads SBPL: lists, symbols, strings ("...", with \" and \\)
// and regular expressions (#"..."), which come back as sbplRegex.
func sbplRead(t *testing.T, text string) []any {
	t.Helper()
	var stack [][]any
	top := []any{}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(':
			stack = append(stack, top)
			top = []any{}
			i++
		case c == ')':
			if len(stack) == 0 {
				t.Fatalf("unbalanced ) at %d", i)
			}
			done := top
			top = append(stack[len(stack)-1], done)
			stack = stack[:len(stack)-1]
			i++
		case c == '"' || strings.HasPrefix(text[i:], `#"`):
			regex := c == '#'
			if regex {
				i++
			}
			var b strings.Builder
			for i++; ; i++ {
				if i >= len(text) {
					t.Fatal("unterminated string")
				}
				if text[i] == '\\' && !regex {
					i++
					if text[i] != '\\' && text[i] != '"' {
						t.Fatalf("unknown escape \\%c at %d", text[i], i)
					}
				} else if text[i] == '"' {
					break
				}
				b.WriteByte(text[i])
			}
			i++
			if regex {
				top = append(top, sbplRegex(b.String()))
			} else {
				top = append(top, b.String())
			}
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \n\t()\";", rune(text[j])) {
				j++
			}
			top = append(top, sbplSymbol(text[i:j]))
			i = j
		}
	}
	if len(stack) != 0 {
		t.Fatal("unbalanced (")
	}
	return top
}

type (
	sbplSymbol string
	sbplRegex  string
)

// sbplDecide reports whether the profile allows op (such as
// "file-write-data" or "network-outbound") on path, as Seatbelt decides:
// the last rule whose operations include op and whose filters match wins;
// none denies. A rule without filters matches everything.
func sbplDecide(t *testing.T, profile []any, op, path string) bool {
	t.Helper()
	allowed := false
	for _, form := range profile {
		rule, ok := form.([]any)
		if !ok || len(rule) < 2 {
			t.Fatalf("not a rule: %v", form)
		}
		action := rule[0].(sbplSymbol)
		if action == "version" {
			continue
		}
		var ops []sbplSymbol
		var filters []any
		for _, x := range rule[1:] {
			if s, ok := x.(sbplSymbol); ok {
				ops = append(ops, s)
			} else {
				filters = append(filters, x)
			}
		}
		if !slices.ContainsFunc(ops, func(o sbplSymbol) bool { return opMatches(string(o), op) }) {
			continue
		}
		if len(filters) == 0 || slices.ContainsFunc(filters, func(f any) bool { return filterMatches(t, f, path) }) {
			allowed = action == "allow"
		}
	}
	return allowed
}

func opMatches(pattern, op string) bool {
	if pattern == "default" {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(op, prefix)
	}
	return pattern == op
}

func filterMatches(t *testing.T, f any, path string) bool {
	t.Helper()
	list, ok := f.([]any)
	if !ok || len(list) == 0 {
		t.Fatalf("not a filter: %v", f)
	}
	args := list[1:]
	switch list[0].(sbplSymbol) {
	case "subpath":
		return path == args[0].(string) || strings.HasPrefix(path, strings.TrimSuffix(args[0].(string), "/")+"/")
	case "literal":
		return path == args[0].(string)
	case "regex":
		return regexp.MustCompile(string(args[0].(sbplRegex))).MatchString(path)
	case "require-all":
		return !slices.ContainsFunc(args, func(a any) bool { return !filterMatches(t, a, path) })
	case "require-not":
		return !filterMatches(t, args[0], path)
	case "extension", "target", "sysctl-name", "sysctl-name-prefix", "global-name":
		return false // no path is any of these
	}
	t.Fatalf("unknown filter %v", list[0])
	return false
}

// skipWindowsPaths skips a test of profiles made from this system's
// folders where they are not Unix paths, as Seatbelt's are.
func skipWindowsPaths(t *testing.T) {
	if filepath.Separator != '/' {
		t.Skip("Seatbelt's paths are Unix paths")
	}
}

// seatbeltHome makes a home folder holding every secret place that
// fence.SecretPlaces names there, and returns it resolved.
func seatbeltHome(t *testing.T) string {
	t.Helper()
	// Not in /tmp, which the profile hides as a shared folder: a home
	// folder is elsewhere.
	_, outside := dirs(t)
	home := filepath.Join(outside, "home")
	for _, p := range fence.SecretPlaces(home) {
		if !fence.Within(home, p) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// The profile of a command lets it read the system and the workspace,
// write only the workspace, its private temporary folder and the paths
// the user named, never the git directory, as gitdir.Find lays it out
// (even where there is none yet), nor read or write a secret place, a
// secret file of the workspace or another program's temporary files, nor
// rename the folder that holds a secret file; and it uses no network.
func TestSeatbeltProfile(t *testing.T) {
	skipWindowsPaths(t)
	ws, outside := dirs(t)
	home := seatbeltHome(t)
	cache := filepath.Join(outside, "cache")
	for _, d := range []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "config", "deep"), cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(ws, "config", "deep", ".env")
	if err := os.WriteFile(secret, []byte("KEY=x"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:" + filepath.Join(home, ".local", "bin")}
	s := newSandbox(t, Config{Mode: Seatbelt, Dir: ws, Home: home, Write: []string{cache}, Env: env})
	tmp := filepath.Join(outside, "private-tmp")
	layout := gitdir.Find(ws)
	text, err := (seatbelt{}).policy(s, Command{Script: "true", Hide: []string{secret}, ReadOnly: layout.Paths()}, tmp).Profile()
	if err != nil {
		t.Fatal(err)
	}
	profile := sbplRead(t, text)
	shared := realOrClean(os.TempDir())
	checks := []struct {
		op, path string
		want     bool
	}{
		{"file-read-data", "/usr/bin/env", true},
		{"file-read-data", filepath.Join(ws, "main.go"), true},
		{"file-write-data", filepath.Join(ws, "main.go"), true},
		{"file-write-create", filepath.Join(ws, "new", "file"), true},
		{"file-write-unlink", filepath.Join(ws, "old.txt"), true},
		{"file-write-data", filepath.Join(tmp, "x"), true},
		{"file-write-data", filepath.Join(cache, "x"), true},
		{"file-write-data", ws + "x", false}, // a sibling whose name starts with the workspace's
		{"file-write-data", filepath.Join(outside, "x"), false},
		{"file-write-data", filepath.Join(home, "x"), false},
		{"file-write-data", "/etc/passwd", false},
		{"file-write-data", filepath.Join(ws, ".git", "config"), false},
		{"file-write-create", filepath.Join(ws, ".git", "hooks", "pre-commit"), false},
		{"file-write-unlink", filepath.Join(ws, ".git"), false},
		{"file-read-data", filepath.Join(ws, ".git", "config"), true},
		{"file-read-data", secret, false},
		{"file-write-data", secret, false},
		{"file-write-unlink", secret, false},
		{"file-write-unlink", filepath.Join(ws, "config"), false}, // mv config c2; cat c2/deep/.env
		{"file-write-unlink", filepath.Join(ws, "config", "deep"), false},
		{"file-write-data", filepath.Join(ws, "config", "deep", "other"), true},
		{"file-read-data", filepath.Join(shared, "other-program"), false},
		{"file-read-data", "/tmp/other-program", false},
		{"file-read-data", filepath.Join(home, ".bash_history"), false}, // the home folder is private
		{"file-read-data", filepath.Join(home, ".config", "x", "token"), false},
		{"file-read-metadata", filepath.Join(home, ".config"), true}, // a path through it resolves
		{"file-read-data", filepath.Join(home, "go", "bin", "tool"), true},
		{"file-read-data", filepath.Join(home, ".config", "git", "config"), true},
		{"file-read-data", filepath.Join(home, ".config", "git", "credentials"), false},
		{"file-read-data", filepath.Join(home, ".local", "bin", "helper"), true},
		{"file-read-data", filepath.Join(home, ".local", "state", "harness", "s1"), false},
		{"file-read-data", "/dev/ttys003", false}, // another terminal of the user
		{"file-read-data", "/dev/tty", false},
		{"file-write-data", "/dev/null", true},
		{"file-write-data", "/dev/fd/1", true},
		{"network-outbound", "", false},
		{"network-bind", "", false},
		{"mach-lookup", "", false},
	}
	for _, p := range fence.SecretPlaces(home) {
		if _, err := os.Lstat(p); err != nil {
			continue // the system's places, where this system has none
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		checks = append(checks, struct {
			op, path string
			want     bool
		}{"file-read-data", filepath.Join(real, "x"), false}, struct {
			op, path string
			want     bool
		}{"file-read-data", real, false})
	}
	for _, c := range checks {
		if got := sbplDecide(t, profile, c.op, c.path); got != c.want {
			t.Errorf("%s %s: allowed %v, want %v", c.op, c.path, got, c.want)
		}
	}
	if t.Failed() {
		t.Logf("profile:\n%s", text)
	}
}

// No service that reaches the network or the user's secrets can be
// asked for: DNS, the keychain, the clipboard, launching apps.
func TestSeatbeltServices(t *testing.T) {
	text, err := Policy{Write: []string{"/ws"}}.Profile()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var walk func(x any, inLookup bool)
	walk = func(x any, inLookup bool) {
		list, ok := x.([]any)
		if !ok {
			return
		}
		if len(list) == 2 && list[0] == sbplSymbol("global-name") && inLookup {
			names = append(names, list[1].(string))
		}
		for _, y := range list {
			walk(y, inLookup || len(list) > 1 && list[1] == sbplSymbol("mach-lookup"))
		}
	}
	for _, rule := range sbplRead(t, text) {
		walk(rule, false)
	}
	if len(names) == 0 {
		t.Fatal("no mach-lookup allowed at all: programs cannot look up users")
	}
	for _, name := range names {
		for _, bad := range []string{"mDNSResponder", "dnssd", "Security", "securityd", "pasteboard", "launchservices", "trustd", "cfprefsd"} {
			if strings.Contains(name, bad) {
				t.Errorf("the profile lets commands reach %s", name)
			}
		}
	}
}

// Paths are quoted so that the profile holds them exactly, whatever
// quotes and backslashes they hold; a path SBPL cannot hold is an error,
// never a rule left out.
func TestSeatbeltQuoting(t *testing.T) {
	odd := []string{`/ws/a "quoted" name`, `/ws/back\slash`, `/ws/"); (allow default) ("`, `/ws/ünïcödé`, `/ws/\"`}
	text, err := Policy{Write: []string{"/ws"}, Hide: odd}.Profile()
	if err != nil {
		t.Fatal(err)
	}
	profile := sbplRead(t, text)
	for _, p := range odd {
		if sbplDecide(t, profile, "file-read-data", p) {
			t.Errorf("%q is readable", p)
		}
		if !sbplDecide(t, profile, "file-write-data", p+"x") {
			t.Errorf("%q is not writable", p+"x")
		}
	}
	if sbplDecide(t, profile, "network-outbound", "") || sbplDecide(t, profile, "file-write-data", "/etc/x") {
		t.Error("an odd path opened more than itself")
	}
	for _, bad := range []string{"/ws/new\nline", "/ws/tab\there", "/ws/\x7f", "/ws/\xff", "/" + strings.Repeat("x", 1001)} {
		for _, p := range []Policy{{Write: []string{bad}}, {Write: []string{"/ws"}, Hide: []string{bad}}, {Write: []string{"/ws"}, ReadOnly: []string{bad}}} {
			if _, err := p.Profile(); !errors.Is(err, errUnquotable) {
				t.Errorf("Profile with %q: err = %v, want errUnquotable", bad, err)
			}
		}
	}
}

func TestQuoteSBPL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/ws", `"/ws"`},
		{`/a"b`, `"/a\"b"`},
		{`/a\b`, `"/a\\b"`},
		{`\"`, `"\\\""`},
		{"/é", `"/é"`},
		{"", `""`},
	}
	for _, tt := range tests {
		got, err := quoteSBPL(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("quoteSBPL(%q) = %s, %v, want %s", tt.in, got, err, tt.want)
		}
	}
}

// The private temporary folder, the workspace and the paths the user
// named are writable as they are reached, symlinks resolved; a read-only
// path that does not exist yet is still kept from being made.
func TestSeatbeltPolicyPaths(t *testing.T) {
	skipWindowsPaths(t)
	ws, outside := dirs(t)
	link := filepath.Join(outside, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Config{Mode: Seatbelt, Dir: ws, Home: seatbeltHome(t), Write: []string{link}})
	p := (seatbelt{}).policy(s, Command{ReadOnly: []string{filepath.Join(link, ".git")}}, filepath.Join(outside, "tmp"))
	if !slices.Equal(p.Write, []string{ws, filepath.Join(outside, "tmp")}) {
		t.Errorf("Write = %q", p.Write)
	}
	if !slices.Equal(p.ReadOnly, []string{filepath.Join(ws, ".git")}) {
		t.Errorf("ReadOnly = %q", p.ReadOnly)
	}
	if len(p.Hide) == 0 || len(p.Shared) == 0 {
		t.Errorf("nothing hidden: %+v", p)
	}
}

// Mode Seatbelt is macOS's: elsewhere it is a clear error, and Auto
// never picks it.
func TestSeatbeltOnlyOnMacOS(t *testing.T) {
	if Preferred() == Seatbelt {
		t.Skip("this is macOS")
	}
	ws, _ := dirs(t)
	err := newSandbox(t, Config{Mode: Seatbelt, Dir: ws}).Start(t.Context())
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "macOS") {
		t.Errorf("mode seatbelt here: %v", err)
	}
	if _, _, err := (seatbelt{}).command(t.Context(), &Sandbox{cfg: Config{Dir: ws}}, Command{}); err == nil {
		t.Error("a Seatbelt command was made here")
	}
}
