package fence

import "testing"

func TestSecretPath(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{".env", true},
		{"config/.env.local", true},
		{"keys/id_rsa", true},
		{".ssh/config", true},
		{"a/b/server.pem", true},
		{"main.go", false},
		{"docs/env.md", false},
		{"", false},
		{"./.env", true},
		{"Config/.ENV.local", true},
		{"KEYS/ID_ED25519", true},
	}
	for _, tt := range tests {
		if _, got := SecretPath(tt.path); got != tt.want {
			t.Errorf("SecretPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestSecretGlob(t *testing.T) {
	tests := []struct {
		pat  string
		want bool
	}{
		{".e*", true},
		{"*.env*", true},
		{"*env*", true},
		{"?env", true},
		{"[.]env", true},
		{"*.pem", true},
		{"id_*", true},
		{"sub/*.key", true},
		{"*", false},    // everything: not aimed at secrets
		{"?*", false},   // the same
		{"*.go", false}, // no secret name
		{"src/*.go", false},
		{"README*", false},
		{"[", false}, // invalid
		{".env", true},
		{".ENV", true}, // cat .ENV reads .env where case does not count
		{"*.PEM", true},
		{"ID_*", true},
		{"*.GO", false},
	}
	for _, tt := range tests {
		if _, got := SecretGlob(tt.pat); got != tt.want {
			t.Errorf("SecretGlob(%q) = %v, want %v", tt.pat, got, tt.want)
		}
	}
}

func TestIgnoreFile(t *testing.T) {
	tests := []struct {
		rel  string
		want bool
	}{
		{".gitignore", true},
		{"sub/.gitignore", true},
		{"./.gitignore", true},
		{".git/info/exclude", true},
		{"gitignore", false},
		{".gitignore.bak", false},
		{"sub/.git/info/exclude", false},
		{"exclude", false},
		{".GITIGNORE", true}, // names as SecretName takes them
		{"sub/.GitIgnore", true},
		{".gitignore.", true},
		{".GIT/Info/EXCLUDE", true},
		{".git./info/exclude", true},
		{".gitignored", false},
	}
	for _, tt := range tests {
		if got := IgnoreFile(tt.rel); got != tt.want {
			t.Errorf("IgnoreFile(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestGitName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{".git", true},
		{".GIT", true},
		{".Git", true},
		{".git.", true},
		{".git ", true},
		{".git::$INDEX_ALLOCATION", true},
		{"git", false},
		{".gitignore", false},
		{".git-credentials", false},
		{".github", false},
		{"x.git", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := GitName(tt.name); got != tt.want {
			t.Errorf("GitName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
