package fence

import (
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
	}
	for _, tt := range tests {
		if got := Within(tt.root, tt.path); got != tt.want {
			t.Errorf("Within(%q, %q) = %v, want %v", tt.root, tt.path, got, tt.want)
		}
	}
}

// FuzzWithin checks Within against its definition, and against
// filepath.Rel, which the sandbox and the guard used before.
func FuzzWithin(f *testing.F) {
	for _, s := range [][2]string{{"/a/b", "/a/bc"}, {"/a/b", "/a/b/../c"}, {"/", "/x"}, {"/a/", "/a"}, {"/a", "a"}, {"/a/b", "/a/b/..c"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, path string) {
		got := Within(root, path)
		abs := filepath.IsAbs(root) && filepath.IsAbs(path)
		r, p := filepath.Clean(root), filepath.Clean(path)
		sep := string(filepath.Separator)
		def := abs && (p == r || strings.HasPrefix(p, strings.TrimSuffix(r, sep)+sep))
		if got != def {
			t.Fatalf("Within(%q, %q) = %v, but cleaned %q starts with %q+separator or equals it: %v", root, path, got, p, r, def)
		}
		rel, err := filepath.Rel(root, path)
		old := abs && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+sep)
		if got != old {
			t.Fatalf("Within(%q, %q) = %v, filepath.Rel gives %q, %v", root, path, got, rel, err)
		}
		if got && !Within(path, path) {
			t.Fatalf("Within(%q, %q) but a path is not within itself", root, path)
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
		{".ENV", ""}, // case counts
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

// SecretPlaces lists every place the sandbox hid before the names moved
// here, and the literal secret names under home.
func TestSecretPlaces(t *testing.T) {
	want := []string{
		"/h/.ssh", "/h/.gnupg", "/h/.aws", "/h/.azure", "/h/.config/gcloud", "/h/.kube", "/h/.docker",
		"/h/.netrc", "/h/.git-credentials", "/h/.config/gh", "/h/.config/hub", "/h/.npmrc", "/h/.yarnrc",
		"/h/.pypirc", "/h/.cargo/credentials", "/h/.cargo/credentials.toml", "/h/.gem/credentials",
		"/h/.password-store", "/h/.local/share/keyrings", "/h/.vault-token", "/h/.terraform.d",
		"/h/.config/op", "/h/.m2/settings.xml", "/h/.gradle/gradle.properties",
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
