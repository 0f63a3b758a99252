package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"harness/config"
	"harness/xdg"
)

const example = `model = "local/qwen2.5-coder:7b"        # default, PROVIDER/MODEL

[providers.local]
type = "ollama"
base_url = "http://127.0.0.1:11434"
num_ctx = 16384

[providers.lms]
type = "openai"
base_url = "http://127.0.0.1:1234/v1"
api_key_env = "LMSTUDIO_KEY"
`

func TestParseExample(t *testing.T) {
	f, err := types.Parse("config.toml", []byte(example))
	if err != nil {
		t.Fatal(err)
	}
	if f.Model != "local/qwen2.5-coder:7b" || len(f.Providers) != 2 {
		t.Fatalf("file %+v", f)
	}
	if p := f.Providers["local"]; p != (config.Provider{Type: "ollama", BaseURL: "http://127.0.0.1:11434", NumCtx: 16384}) {
		t.Errorf("local = %+v", p)
	}
	if p := f.Providers["lms"]; p != (config.Provider{Type: "openai", BaseURL: "http://127.0.0.1:1234/v1", APIKeyEnv: "LMSTUDIO_KEY"}) {
		t.Errorf("lms = %+v", p)
	}
	for key, line := range map[string]int{"model": 1, "providers.local": 3, "providers.local.num_ctx": 6, "providers.lms.api_key_env": 11, "nope": 0} {
		if got := f.Line(key); got != line {
			t.Errorf("Line(%q) = %d, want %d", key, got, line)
		}
	}
}

func TestParseForms(t *testing.T) {
	// Dotted keys and inline tables are placed on their lines too.
	f, err := types.Parse("c.toml", []byte("[providers]\na.type = \"ollama\"\nb = { type = \"openai\", base_url = \"http://x:1/v1\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Line("providers.a.type") != 2 || f.Line("providers.b") != 3 || f.Line("providers.b.base_url") != 3 {
		t.Errorf("lines: a.type %d, b %d, b.type %d", f.Line("providers.a.type"), f.Line("providers.b"), f.Line("providers.b.type"))
	}
	if f.Providers["b"].BaseURL != "http://x:1/v1" {
		t.Errorf("b = %+v", f.Providers["b"])
	}

	// A built-in provider may be redefined without its type.
	f, err = types.Parse("c.toml", []byte("[providers.openai]\nbase_url = \"https://proxy.example/v1\"\n[providers.ollama]\nnum_ctx = 8192\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Providers["openai"].Type != "openai" || f.Providers["ollama"].Type != "ollama" {
		t.Errorf("providers %+v", f.Providers)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		is        error
		line      int
		key       string
		want      string
	}{
		{"syntax", "model = \"a\"\n[providers.x\n", config.ErrSyntax, 2, "", "config.toml:2: "},
		{"unterminated string", "model = \"a\n", config.ErrSyntax, 1, "", ""},
		{"unknown top key", "model = \"a\"\nmodle = \"b\"\n", config.ErrUnknownKey, 2, "modle", "config.toml:2: modle: unknown key"},
		{"unknown provider key", example + "num_cxt = 4\n", config.ErrUnknownKey, 12, "providers.lms.num_cxt", ""},
		{"several unknown keys", "a = 1\nb = 2\n", config.ErrUnknownKey, 1, "a", "and 1 more"},
		{"unknown table", "[provider.x]\ntype = \"ollama\"\n", config.ErrUnknownKey, 1, "provider.x", ""},
		{"wrong type", "[providers.x]\ntype = \"ollama\"\nnum_ctx = \"big\"\n", config.ErrInvalid, 3, "providers.x.num_ctx", "config.toml:3: providers.x.num_ctx: invalid value: must be a whole number, not a string"},
		{"model not a string", "model = 3\n", config.ErrInvalid, 1, "model", "model: invalid value: must be a string in quotes, not a whole number"},
		{"a fraction for a whole number", "[providers.x]\ntype = \"ollama\"\nnum_ctx = 4.5\n", config.ErrInvalid, 3, "providers.x.num_ctx", "must be a whole number, not a number with a fraction"},
		{"a provider not a table", "providers = 3\n", config.ErrInvalid, 1, "providers", "must be a table for each name, as [providers.NAME], not a whole number"},
		{"an item of a list", "[mcp.x]\ncommand = \"a\"\nargs = [1]\n", config.ErrInvalid, 3, "mcp.x.args", `must be a list of strings, as ["a", "b"], and an item of this one is not`},
		{"a list not a list", "[mcp.x]\ncommand = \"a\"\nargs = \"-v\"\n", config.ErrInvalid, 3, "mcp.x.args", "must be a list of strings"},
		{"a value of a table", "[mcp.x]\ncommand = \"a\"\nenv = {A = 1}\n", config.ErrInvalid, 3, "mcp.x.env", "and a value of this one is not"},
		{"true or false", "[mcp.x]\ncommand = \"a\"\nenabled = \"yes\"\n", config.ErrInvalid, 3, "mcp.x.enabled", "must be true or false, not a string"},
		{"too large", "[providers.x]\ntype = \"ollama\"\nnum_ctx = 99999999999999999999\n", config.ErrInvalid, 3, "providers.x.num_ctx", "too large"},
		{"set twice", "model = \"a\"\nmodel = \"b\"\n", config.ErrInvalid, 2, "model", ""},
		{"api_key", "[providers.x]\ntype = \"openai\"\nbase_url = \"http://h/v1\"\napi_key = \"sk-abc\"\n", config.ErrUnknownKey, 4, "providers.x.api_key", "api_key_env"},
		{"no type", "[providers.x]\nbase_url = \"http://h:1\"\n", config.ErrInvalid, 1, "providers.x", "type is missing"},
		{"bad type", "[providers.x]\ntype = \"anthropic\"\n", config.ErrInvalid, 2, "providers.x.type", `not "anthropic"`},
		{"bad url", "[providers.x]\ntype = \"ollama\"\nbase_url = \"ftp://h\"\n", config.ErrInvalid, 3, "providers.x.base_url", "ftp://h"},
		{"openai without url", "[providers.x]\ntype = \"openai\"\n", config.ErrInvalid, 1, "providers.x", "base_url is missing"},
		{"num_ctx on openai", "[providers.x]\ntype = \"openai\"\nbase_url = \"http://h/v1\"\nnum_ctx = 4\n", config.ErrInvalid, 4, "providers.x.num_ctx", "ollama providers only"},
		{"num_ctx negative", "[providers.x]\ntype = \"ollama\"\nnum_ctx = -1\n", config.ErrInvalid, 3, "providers.x.num_ctx", "positive"},
		{"api_key_env on ollama", "[providers.x]\ntype = \"ollama\"\napi_key_env = \"K\"\n", config.ErrInvalid, 3, "providers.x.api_key_env", "openai providers only"},
		{"key in api_key_env", "[providers.x]\ntype = \"openai\"\nbase_url = \"http://h/v1\"\napi_key_env = \"sk-proj-abc123\"\n", config.ErrInvalid, 4, "providers.x.api_key_env", "not hold the key"},
		{"slash in name", "[providers.\"a/b\"]\ntype = \"ollama\"\n", config.ErrInvalid, 1, "providers.a/b", "hold a /"},
		{"unknown provider in model", "model = \"lsm/qwen\"\n[providers.lms]\ntype = \"openai\"\nbase_url = \"http://h/v1\"\n", config.ErrUnknownProvider, 1, "model", "lms, ollama, openai"},
		{"no model after provider", "model = \"ollama/\"\n", config.ErrInvalid, 1, "model", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := types.Parse("config.toml", []byte(tt.doc))
			var e *config.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want a *config.Error", err, err)
			}
			if !errors.Is(err, tt.is) || e.Line != tt.line || e.Key != tt.key || e.Path != "config.toml" {
				t.Errorf("err = %v\n(line %d, key %q), want %v at line %d, key %q", err, e.Line, e.Key, tt.is, tt.line, tt.key)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
			// The file's own name aside, nothing of the form config.Type.
			if msg := strings.ReplaceAll(err.Error(), "config.toml", ""); strings.Contains(msg, "raw") || strings.Contains(msg, "config.") {
				t.Errorf("err = %v: it names the program's own types", err)
			}
			if strings.Contains(err.Error(), "sk-") {
				t.Errorf("err = %v: it quotes a key", err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	f, err := types.Load(filepath.Join(dir, "missing.toml"))
	if err != nil || f.Path != "" || f.Model != "" || len(f.Providers) != 0 {
		t.Errorf("a missing file: %+v, %v; want an empty file and no error", f, err)
	}
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(example), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := types.Load(path); err != nil || f.Path != path || f.Model == "" {
		t.Errorf("Load = %+v, %v", f, err)
	}
	if err := os.WriteFile(path, []byte("model = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := types.Load(path); err == nil || !strings.HasPrefix(err.Error(), path+":1: model: ") {
		t.Errorf("err = %v, want it to name the file, line and key", err)
	}
	if _, err := types.Load(dir); err == nil {
		t.Error("a folder loaded as a file")
	}
}

// The settings file is where the harness's other folders are found: the
// home folder is the system's (on Windows, not $HOME), and a missing one is
// an error, not a file silently left unread.
func TestPath(t *testing.T) {
	home := func() (string, error) { return filepath.FromSlash("/home/me"), nil }
	noHome := func() (string, error) { return "", errors.New("no home") }
	tests := []struct {
		env  map[string]string
		home func() (string, error)
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": filepath.FromSlash("/cfg")}, home, "/cfg/harness/config.toml"},
		{nil, home, "/home/me/.config/harness/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative"}, home, "/home/me/.config/harness/config.toml"},
		{map[string]string{"HOME": "/home/me"}, noHome, ""},
	}
	for _, tt := range tests {
		got, err := config.Path(xdg.Dirs{Getenv: func(k string) string { return tt.env[k] }, Home: tt.home})
		if tt.want == "" {
			if !errors.Is(err, xdg.ErrNoHome) {
				t.Errorf("Path(%v) = %q, %v; want an error wrapping xdg.ErrNoHome", tt.env, got, err)
			}
			continue
		}
		if got != filepath.FromSlash(tt.want) || err != nil {
			t.Errorf("Path(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(example)
	f.Add("providers.a.type = \"ollama\"\n[providers]\nb = { type = \"openai\", base_url = \"http://x/v1\" }\n")
	f.Add("model = \"a\"\n[providers.x\n")
	f.Fuzz(func(t *testing.T, doc string) {
		file, err := types.Parse("c.toml", []byte(doc))
		if err != nil {
			var e *config.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), not a *config.Error", err, err)
			}
			return
		}
		// What parses resolves, or says why not.
		if _, err := types.Resolve(config.Input{File: file}); err != nil && !errors.Is(err, config.ErrInvalid) && !errors.Is(err, config.ErrUnknownProvider) {
			t.Fatalf("Resolve: %v", err)
		}
	})
}
