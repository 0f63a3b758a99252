package fence

import (
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithin(t *testing.T) {
	tests := []struct {
		root, path string
		want       bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/", true},
		{"/a/b/", "/a/b", true},
		{"/a/b/", "/a/b/c", true},
		{"/a/b", "/a/b/c/d.txt", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a/b.c", false},
		{"/a/b", "/a", false},
		{"/a/b", "/", false},
		{"/a/b", "/x/a/b", false},
		{"/a/b", "/a/b/..", false},
		{"/a/b", "/a/b/../bc", false},
		{"/a/b", "/a/b/c/../../b/d", true},
		{"/a/b", "/a/b/c/../../../etc", false},
		{"/a/b", "/a/b/..c", true}, // a name that starts with two dots
		{"/a/b", "/a/b/...", true},
		{"/a/b", "/a/./b//c", true},
		{"/a/b/c/..", "/a/b/x", true},
		{"/a/b/c/..", "/a/bx", false},
		{"/", "/", true},
		{"/", "/etc/passwd", true},
		{"//", "/x", true},
		{"/a/B", "/a/b/c", false}, // bytes, not case
		{"/a/b", "/a/B/c", false},
		{"/a/b", "b/c", false}, // relative paths are inside nothing
		{"/a/b", "", false},
		{"/a/b", ".", false},
		{"a", "a/b", false},
		{"", "/a", false},
		{".", "x", false},
		{"/a/b", "/a/b/\x00", true},
		{"/a/b", "/a/b/c:d", true}, // a colon is part of a name
		{"/a/b", "/a/b./c", false}, // and so are trailing dots
		{"/a/b", `/a/b\c`, false},  // and backslashes
	}
	for _, tt := range tests {
		if got := Unix.Within(tt.root, tt.path); got != tt.want {
			t.Errorf("Unix.Within(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
		if Within(tt.root, tt.path) != Host.Within(tt.root, tt.path) {
			t.Errorf("Within(%q, %q) is not Host.Within", tt.root, tt.path)
		}
	}
}

// On macOS, names are compared without case: the default file system
// ignores it, so /Users/me/PROJ/.GIT is the workspace's .git.
func TestWithinMacOS(t *testing.T) {
	tests := []struct {
		root, path string
		want       bool
	}{
		{"/Users/me/proj", "/Users/me/proj/x", true},
		{"/Users/me/proj", "/users/ME/PROJ/x", true},
		{"/Users/me/proj/.git", "/Users/me/proj/.GIT/config", true},
		{"/Users/me/proj/.git", "/Users/me/proj/.Git/hooks/pre-commit", true},
		{"/Users/me/.ssh", "/Users/me/.SSH/id_rsa", true},
		{"/k", "/\u212a/x", true}, // the Kelvin sign is a K
		{"/Users/me/proj", "/Users/me/project", false},
		{"/Users/me/proj", "/Users/me/proj/../other", false},
		{"/Users/me/proj", "Users/me/proj", false},
		{"/Users/me/proj", "/Users/me/proj./x", false},
	}
	for _, tt := range tests {
		if got := MacOS.Within(tt.root, tt.path); got != tt.want {
			t.Errorf("MacOS.Within(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

// On Windows, a path's volume (a drive or a share) must match, in any
// case, either separator may be used, verbatim and device prefixes are
// taken off, and names are taken as Windows opens them: without case,
// streams, or the trailing dots and spaces it drops.
func TestWithinWindows(t *testing.T) {
	tests := []struct {
		root, path string
		want       bool
	}{
		{`C:\ws`, `C:\ws`, true},
		{`C:\ws`, `C:\ws\`, true},
		{`C:\ws\`, `C:\ws`, true},
		{`C:\ws`, `C:\ws\src\main.go`, true},
		{`C:\ws`, `c:\WS\Src\main.go`, true},
		{`C:\ws`, `C:/ws/src/main.go`, true},
		{`C:/ws`, `C:\ws\src`, true},
		{`C:\ws`, `C:\ws\a\..\b`, true},
		{`C:\ws`, `C:\ws\..\other`, false},
		{`C:\ws`, `C:\ws\a\..\..\other`, false},
		{`C:\ws`, `C:\..\ws\x`, true}, // ".." stops at the root
		{`C:\ws`, `C:\wsx\y`, false},
		{`C:\ws`, `D:\ws\x`, false},
		{`C:\`, `C:\anything`, true},
		{`C:\`, `D:\anything`, false},
		// verbatim and device paths
		{`C:\ws`, `\\?\C:\ws\x`, true},
		{`\\?\C:\ws`, `C:\ws\x`, true},
		{`C:\ws`, `\\.\C:\ws\x`, true},
		{`C:\ws`, `\??\C:\ws\x`, true},
		{`C:\ws`, `\\?\D:\ws\x`, false},
		{`\\server\share\ws`, `\\?\UNC\server\share\ws\x`, true},
		{`\\server\share\ws`, `\\?\unc\SERVER\Share\ws\x`, true},
		{`\\?\Volume{1234}\ws`, `\\?\volume{1234}\ws\x`, true},
		{`\\?\Volume{1234}\ws`, `C:\ws\x`, false},
		// shares
		{`\\server\share`, `\\server\share\x`, true},
		{`\\server\share\ws`, `\\server\share\wsx`, false},
		{`\\server\share`, `\\server\other\x`, false},
		{`\\server\share`, `\\other\share\x`, false},
		{`\\server`, `\\server\share`, false}, // no share: no volume
		{`C:\ws`, `\\server\share\ws`, false},
		// names as Windows opens them
		{`C:\ws\.git`, `C:\ws\.git.\config`, true},
		{`C:\ws\.git`, `C:\ws\.git. . \config`, true},
		{`C:\ws\.git`, `C:\ws\.GIT\config`, true},
		{`C:\ws\.git`, `C:\ws\.git::$INDEX_ALLOCATION\config`, true},
		{`C:\ws\.env`, `C:\ws\.env:secret`, true},
		{`C:\ws\.git`, `\\?\C:\ws\.git.\config`, false}, // verbatim: ".git." is another name
		{`C:\ws`, `C:\ws\.. \x`, false},                 // dots and spaces: inside nothing
		{`C:\ws`, `C:\ws\...\x`, false},
		{`C:\ws`, `C:\ws\ \x`, false},
		// not absolute
		{`C:\ws`, `ws\x`, false},
		{`C:\ws`, `\ws\x`, false},  // the current drive's root
		{`C:\ws`, `C:ws\x`, false}, // the drive's current folder
		{`C:`, `C:\x`, false},
		{`\ws`, `\ws\x`, false},
		{`C:\ws`, ``, false},
		{`/ws`, `/ws/x`, false}, // a Unix path has no volume
	}
	for _, tt := range tests {
		if got := Windows.Within(tt.root, tt.path); got != tt.want {
			t.Errorf("Windows.Within(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

// FuzzWithin checks Unix.Within against its definition, and against
// filepath.Rel, which the sandbox and the guard used before, where paths
// are Unix paths; and checks that Windows.Within ignores case and which
// separator is used.
func FuzzWithin(f *testing.F) {
	for _, s := range [][2]string{{"/a/b", "/a/bc"}, {"/a/b", "/a/b/../c"}, {"/", "/x"}, {"/a/", "/a"}, {"/a", "a"}, {"/a/b", "/a/b/..c"}, {`C:\a`, `c:/A/b`}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, p string) {
		got := Unix.Within(root, p)
		abs := path.IsAbs(root) && path.IsAbs(p)
		r, c := path.Clean(root), path.Clean(p)
		def := abs && (c == r || strings.HasPrefix(c, strings.TrimSuffix(r, "/")+"/"))
		if got != def {
			t.Fatalf("Unix.Within(%q, %q) = %v, but cleaned %q starts with %q+/ or equals it: %v", root, p, got, c, r, def)
		}
		if filepath.Separator == '/' {
			rel, err := filepath.Rel(root, p)
			old := abs && err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
			if got != old {
				t.Fatalf("Unix.Within(%q, %q) = %v, filepath.Rel gives %q, %v", root, p, got, rel, err)
			}
		}
		if got && !Unix.Within(p, p) {
			t.Fatalf("Unix.Within(%q, %q) but a path is not within itself", root, p)
		}
		win := Windows.Within(root, p)
		if other := Windows.Within(strings.ToUpper(root), strings.ReplaceAll(strings.ToLower(p), `\`, "/")); other != win {
			t.Fatalf("Windows.Within(%q, %q) = %v, but %v with case and separators changed", root, p, win, other)
		}
		if win && !Windows.Within(p, p) {
			t.Fatalf("Windows.Within(%q, %q) but a path is not within itself", root, p)
		}
	})
}

func TestSecretName(t *testing.T) {
	tests := []struct {
		name, pattern string
	}{
		{".env", ".env*"},
		{".env.local", ".env*"},
		{".env.production", ".env*"},
		{".envrc", ".env*"},
		{"server.pem", "*.pem"},
		{".pem", "*.pem"},
		{"deploy.key", "*.key"},
		{"id_rsa", "id_rsa*"},
		{"id_rsa.pub", "id_rsa*"}, // a public key, but its name is the private one's
		{"id_dsa", "id_dsa*"},
		{"id_ecdsa", "id_ecdsa*"},
		{"id_ed25519", "id_ed25519*"},
		{"id_ed25519_sk", "id_ed25519*"},
		{".netrc", ".netrc"},
		{".git-credentials", ".git-credentials"},
		{".npmrc", ".npmrc"},
		{".pypirc", ".pypirc"},
		{".vault-token", ".vault-token"},
		{".ssh", ".ssh"},
		{".gnupg", ".gnupg"},
		{".aws", ".aws"},
		{".password-store", ".password-store"},
		// not secrets
		{"env", ""},
		{"x.env", ""},
		{".ENV", ".env*"}, // case does not count, on any system
		{".Env.Local", ".env*"},
		{"SERVER.PEM", "*.pem"},
		{"ID_RSA", "id_rsa*"},
		{".SSH", ".ssh"},
		{".NetRC", ".netrc"},
		{"deploy.\u212aey", "*.key"}, // the Kelvin sign is a K
		{".\u017fsh", ".ssh"},        // the long s is an s
		{".env.", ".env*"},           // what Windows opens: trailing dots and spaces go
		{".netrc.", ".netrc"},
		{".ssh ", ".ssh"},
		{"server.pem:stream", "*.pem"}, // and a stream is its file's
		{".aws::$DATA", ".aws"},
		{"server.pem.txt", ""},
		{"keys", ""},
		{"key", ""},
		{"monkey", ""},
		{"rsa_id", ""},
		{"id_generator.go", ""},
		{".netrc.example", ""},
		{".docker", ""}, // a project's Dockerfiles; hidden only under home
		{".kube", ""},
		{".yarnrc", ""},
		{".git", ""},   // the git folder is protected by tools, for what it is
		{"a/.env", ""}, // a path, not a name
		{"", ""},
	}
	for _, tt := range tests {
		pattern, ok := SecretName(tt.name)
		if pattern != tt.pattern || ok != (tt.pattern != "") {
			t.Errorf("SecretName(%q) = %q, %v, want %q", tt.name, pattern, ok, tt.pattern)
		}
	}
}

// FuzzPlainName: a name plainName answers for quickly is one the whole
// check finds no secret in.
func FuzzPlainName(f *testing.F) {
	for _, seed := range []string{"main.go", "id_rsa", "x.PEM", "server.pem ", ".env", "deploy.\u212aey", "a.key.", "k:ey", "ID_x", "notes"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if pattern, ok := matchSecretName(name); plainName(name) && ok {
			t.Errorf("plainName(%q), but it matches %s", name, pattern)
		}
	})
}

// SecretPlaces lists every place the sandbox hid before the names moved
// here, and the literal secret names under home.
func TestSecretPlaces(t *testing.T) {
	want := []string{
		"/h/.ssh", "/h/.gnupg", "/h/.aws", "/h/.azure", "/h/.config/gcloud", "/h/.kube", "/h/.docker",
		"/h/.netrc", "/h/.git-credentials", "/h/.config/gh", "/h/.config/hub", "/h/.npmrc", "/h/.yarnrc",
		"/h/.pypirc", "/h/.cargo/credentials", "/h/.cargo/credentials.toml", "/h/.gem/credentials",
		"/h/.password-store", "/h/.local/share/keyrings", "/h/.vault-token", "/h/.terraform.d",
		"/h/.config/op", "/h/.m2/settings.xml", "/h/.gradle/gradle.properties", "/h/Library/Keychains",
		"/etc/shadow", "/etc/gshadow", "/etc/ssh", "/root",
	}
	got := SecretPlaces("/h")
	set := make(map[string]bool)
	for _, p := range got {
		set[p] = true
		if strings.ContainsAny(p, "*?[") {
			t.Errorf("SecretPlaces holds the pattern %q", p)
		}
	}
	for _, p := range want {
		if !set[p] {
			t.Errorf("SecretPlaces(/h) lacks %s", p)
		}
	}
	if len(got) != len(want) {
		t.Errorf("SecretPlaces(/h) = %d places, want %d:\n%q", len(got), len(want), got)
	}
	for _, p := range SecretPlaces("/root") {
		if p == "/root" {
			t.Errorf("SecretPlaces(/root) hides home itself")
		}
	}
	if got := SecretPlaces(""); len(got) != 4 || got[0] != "/etc/shadow" {
		t.Errorf("SecretPlaces(\"\") = %q, want the system places and /root", got)
	}
}

func TestSecretVar(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"GITHUB_TOKEN", true},
		{"DB_PASSWORD", true},
		{"db_password", true},
		{"MYSQL_PASSWD", true},
		{"AWS_SECRET_ACCESS_KEY", true},
		{"AWS_ACCESS_KEY_ID", true},
		{"OPENAI_API_KEY", true},
		{"apiKey", true},
		{"PRIVATE_KEY", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", true},
		{"NPM_AUTH", true},
		{"LC_SESSION_TOKEN", true},
		{"SESSION_ID", true},
		{"COOKIE_JAR", true},
		{"PATH", false},
		{"HOME", false},
		{"LC_ALL", false},
		{"GOPROXY", false},
		{"KEY", false},
		{"SORT_KEYS", false},
		{"KEYBOARD", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := SecretVar(tt.name); got != tt.want {
			t.Errorf("SecretVar(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	words := SecretWords()
	words[0] = "changed"
	if SecretWords()[0] == "changed" {
		t.Error("SecretWords returned its own slice: a caller can change the vocabulary")
	}
}

func TestURLUserinfo(t *testing.T) {
	tests := []struct {
		s              string
		user, password bool
	}{
		{"https://user:pass@proxy.example", true, true},
		{"postgres://admin:s3cret@db:5432/app", true, true},
		{"https://x-access-token:ghp_abc@github.com/o/r.git", true, true},
		{"https://TOKEN@github.com/o/r.git", true, false},
		{"ssh://git@github.com/o/r.git", true, false},
		{"https://u:@host", true, true},
		{"https://u:p@ss@host", true, true},   // an unescaped @ in the password
		{"https://u:p?ss#w@host", true, true}, // careless passwords end nothing
		{"see https://go.dev/doc and https://u:pw@h/x", true, true},
		{"first https://go.dev then postgres://a:b@db", true, true},
		{"https://go.dev/doc", false, false},
		{"https://host:8080/path", false, false},
		{"https://host/path?mail=a:b@c", false, false},
		{"https://host/~user@x", false, false},
		{"git@github.com:o/r.git", false, false}, // no scheme: not a URL with user information
		{"mail me: a@b.org", false, false},
		{"visit https://example.com and mail me@x.org", false, false},
		{`{"url":"https://x.org","email":"admin@x.org"}`, true, true}, // no quote ends a password
		{`"https://u:pa"ss@host"`, true, true},
		{`"https://go.dev","me@x.org"`, true, false},
		{`"https://go.dev", "me@x.org"`, false, false},
		{"https://x.org\u00a0a:b@c", false, false},
		{"://", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		user, password := URLUserinfo(tt.s)
		if user != tt.user || password != tt.password {
			t.Errorf("URLUserinfo(%q) = %v, %v, want %v, %v", tt.s, user, password, tt.user, tt.password)
		}
	}
}

func TestStripUserinfo(t *testing.T) {
	tests := []struct{ s, want string }{
		{"https://user:pass@proxy.example", "https://proxy.example"},
		{"url = https://x-access-token:ghp_abc@github.com/o/r.git", "url = https://github.com/o/r.git"},
		{"https://TOKEN@github.com/o/r.git", "https://github.com/o/r.git"},
		{"https://u:p@ss@host/x", "https://host/x"}, // everything to the last @ goes
		{"a https://u:1@h b postgres://a:b@db/x c", "a https://h b postgres://db/x c"},
		{`{"url":"https://x.org","mail":"a@x.org"}`, `{"url":"https://x.org"}`}, // as URLUserinfo reads it
		{"https://go.dev/doc", "https://go.dev/doc"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := StripUserinfo(tt.s); got != tt.want {
			t.Errorf("StripUserinfo(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// FuzzStripUserinfo: what StripUserinfo returns holds no user
// information, and text without any comes back unchanged.
func FuzzStripUserinfo(f *testing.F) {
	for _, s := range []string{"https://u:p@h/x", "a://b@c://d@e/f", "https://go.dev", "://@", "x://@@/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := StripUserinfo(s)
		if user, _ := URLUserinfo(got); user {
			t.Errorf("StripUserinfo(%q) = %q, which still holds user information", s, got)
		}
		if user, _ := URLUserinfo(s); !user && got != s {
			t.Errorf("StripUserinfo(%q) = %q, changed text without user information", s, got)
		}
	})
}

// TestWithinAllocates checks that Within allocates nothing for the clean
// absolute paths a walk of a workspace asks about, one per folder, and
// still cleans those that are not: the walks of a large workspace made
// a slice of names for each.
func TestWithinAllocates(t *testing.T) {
	for _, s := range []System{Unix, MacOS} {
		if n := testing.AllocsPerRun(100, func() {
			if !s.Within("/home/u/work/.git", "/home/u/work/.git/objects/pack") || s.Within("/home/u/work/.git", "/home/u/work/src/pkg") {
				t.Fatal("wrong answer")
			}
		}); n != 0 {
			t.Errorf("%v: Within of clean paths makes %v allocations, want 0", s, n)
		}
	}
	if !Unix.Within("/a/b", "/a/c/../b/x") || Unix.Within("/a/b/..", "/b") {
		t.Error("a path with .. in it is not cleaned")
	}
}
