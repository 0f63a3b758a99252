package fence

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// secretNames are the patterns, as path.Match reads them, of the file and
// folder names that hold secrets wherever they are.
var secretNames = []string{
	".env*", "*.pem", "*.key", // environment files, keys and certificates
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", // SSH keys
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".vault-token", // credential files
	".ssh", ".gnupg", ".aws", ".password-store", // folders of keys and credentials
}

// homePlaces are where programs keep credentials under a home folder,
// besides the secret names above: places whose names hold no secret
// elsewhere (a project's .docker folder holds Dockerfiles).
var homePlaces = []string{
	".azure", ".config/gcloud", ".kube", ".docker", ".config/gh", ".config/hub", ".yarnrc",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".local/share/keyrings", ".terraform.d", ".config/op", ".m2/settings.xml", ".gradle/gradle.properties",
	"Library/Keychains", // macOS
}

// systemPlaces hold the system's password hashes and host keys.
var systemPlaces = []string{"/etc/shadow", "/etc/gshadow", "/etc/ssh"}

// SecretNames returns the patterns SecretName matches, for a program
// that keeps what it decided by them and must know when they changed.
func SecretNames() []string { return slices.Clone(secretNames) }

// SecretName reports whether name, one file or folder name (not a path),
// holds secrets wherever it is, and the pattern it matches: .env*, *.pem,
// *.key, SSH keys (id_rsa*, id_dsa*, id_ecdsa*, id_ed25519*), credential
// files (.netrc, .git-credentials, .npmrc, .pypirc, .vault-token) and
// folders of keys (.ssh, .gnupg, .aws, .password-store). Case does not
// count, on any system: ".ENV" is ".env" on macOS and Windows, and a
// secret on Linux too, where it is more likely a copy than anything else.
// Nor do the stream and the trailing dots and spaces that Windows drops
// (".env.", "id_rsa:x").
func SecretName(name string) (pattern string, ok bool) {
	if plainName(name) {
		return "", false
	}
	return matchSecretName(name)
}

// matchSecretName is SecretName without the quick answer for plain names.
func matchSecretName(name string) (pattern string, ok bool) {
	folded := foldCase(name)
	forms := []string{folded}
	if w, ok := windowsName(folded, false); ok && w != folded && w != "" {
		forms = append(forms, w)
	}
	for _, pat := range secretNames {
		for _, form := range forms {
			if ok, _ := path.Match(pat, form); ok {
				return pat, true
			}
		}
	}
	return "", false
}

// plainName reports, cheaply, names that no pattern of secretNames can
// match in any form: printable ASCII with nothing Windows would drop (a
// stream, trailing dots and spaces), not starting with a dot nor "id_",
// not ending in ".pem" or ".key", in any case. Every pattern starts with
// a dot or "id_", or is "*.pem" or "*.key"; names of other letters and
// odd forms take the whole check. Most names of a workspace are plain:
// walks ask of every name.
func plainName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x21 || c > 0x7e || c == ':' {
			return false
		}
	}
	if name[len(name)-1] == '.' {
		return false
	}
	lower := strings.ToLower(name)
	return !strings.HasPrefix(lower, "id_") && !strings.HasSuffix(lower, ".pem") && !strings.HasSuffix(lower, ".key")
}

// GitName reports whether name, one file or folder name, names the git
// folder: ".git", in any case, with the stream and the trailing dots and
// spaces that Windows drops (".GIT", ".git.", ".git::$INDEX_ALLOCATION").
func GitName(name string) bool { return canonName(name) == ".git" }

// canonName returns name as case-insensitive systems, and Windows, take
// it: case folded, without a stream or trailing dots and spaces.
func canonName(name string) string {
	folded := foldCase(name)
	if w, ok := windowsName(folded, false); ok && w != "" {
		return w
	}
	return folded
}

// foldCase returns s with every letter that is an ASCII letter in another
// case (K, the Kelvin sign, is k; ſ, the long s, is s, as file systems
// that ignore case fold them) as a lower-case ASCII letter: the patterns
// of secret names are ASCII, lower case.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		for f := r; ; {
			if f < utf8.RuneSelf {
				return unicode.ToLower(f)
			}
			if f = unicode.SimpleFold(f); f == r {
				return r
			}
		}
	}, s)
}

// SecretPlaces lists the places secrets usually live on a machine: under
// home (if not empty) every secret name that is not a pattern, and the
// other places where programs keep keys, cloud and registry credentials
// and password stores; the system's password hashes and host keys; and
// root's home when it is not home.
func SecretPlaces(home string) []string {
	var out []string
	if home != "" {
		for _, name := range secretNames {
			if !strings.ContainsAny(name, `*?[\`) {
				out = append(out, filepath.Join(home, name))
			}
		}
		for _, rel := range homePlaces {
			out = append(out, filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	out = append(out, systemPlaces...)
	if home != "/root" {
		out = append(out, "/root")
	}
	return out
}

// secretWords mark a name, of a variable or a key, as holding a secret.
// KEY alone is not one: it names map keys and keyboard keys far more often
// than secrets.
var secretWords = []string{
	"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "AUTH", "COOKIE", "SESSION",
	"API_KEY", "APIKEY", "ACCESS_KEY", "ACCESSKEY", "PRIVATE_KEY", "PRIVATEKEY",
}

// SecretWords returns the words that mark a name as a secret's, upper
// case, for code that looks for such names in text. SecretVar uses them.
func SecretWords() []string { return slices.Clone(secretWords) }

// SecretVar reports whether name, of an environment variable or of a key
// in a configuration, suggests that its value is a secret: whether, upper
// cased, it contains one of SecretWords, as GITHUB_TOKEN, db_password and
// apiKey do.
func SecretVar(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// URLUserinfo reports whether s holds a URL that names a user before an
// "@" in its authority (scheme://user@host), and whether one also gives a
// password (scheme://user:password@host); a user name alone can be a
// token, as in https://TOKEN@host. Every "://" in s starts an authority,
// which runs to the next "/" or white space; its user information is what
// comes before its last "@". Nothing else ends it, since a password
// written carelessly may hold any character, so text such as
// {"url":"https://x.org","mail":"a@x.org"} counts too.
func URLUserinfo(s string) (user, password bool) {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return user, false
		}
		s = s[i+len("://"):]
		auth := s
		if end := strings.IndexFunc(s, endsAuthority); end >= 0 {
			auth = s[:end]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			user = true
			if strings.IndexByte(auth[:at], ':') >= 0 {
				return true, true
			}
		}
	}
}

func endsAuthority(r rune) bool { return r == '/' || unicode.IsSpace(r) }

// StripUserinfo returns s with the user information of every URL in it
// removed, as URLUserinfo finds it: "https://user:token@host/x" becomes
// "https://host/x". Text holding no URL with user information is returned
// as it is, so URLUserinfo reports nothing in what StripUserinfo returns.
func StripUserinfo(s string) string {
	if user, _ := URLUserinfo(s); !user {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len("://")])
		s = s[i+len("://"):]
		end := strings.IndexFunc(s, endsAuthority)
		if end < 0 {
			end = len(s)
		}
		if at := strings.LastIndexByte(s[:end], '@'); at >= 0 {
			s = s[at+1:]
		}
	}
}
