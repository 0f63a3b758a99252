package config_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"harness/config"
)

func parse(t *testing.T, doc string) *config.File {
	t.Helper()
	f, err := types.Parse("/cfg/config.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// got is a resolved setting in short: value@source.
func got[T any](s config.Setting[T]) string {
	return fmt.Sprintf("%v@%s", s.Value, s.Source)
}

func TestResolvePrecedence(t *testing.T) {
	file := parse(t, example)
	tests := []struct {
		name  string
		file  *config.File
		flags config.Flags
		env   map[string]string
		want  map[string]string // setting -> value@source
	}{
		{
			name: "defaults, no file",
			want: map[string]string{
				"provider": "ollama@default", "type": "ollama@default", "model": "qwen2.5-coder:7b@default",
				"base_url": "http://127.0.0.1:11434@default", "num_ctx": "16384@default",
			},
		},
		{
			name: "file",
			file: file,
			want: map[string]string{
				"provider": "local@/cfg/config.toml:1", "type": "ollama@/cfg/config.toml:4", "model": "qwen2.5-coder:7b@/cfg/config.toml:1",
				"base_url": "http://127.0.0.1:11434@/cfg/config.toml:5", "num_ctx": "16384@/cfg/config.toml:6",
			},
		},
		{
			name: "environment over file",
			file: file,
			env:  map[string]string{"HARNESS_MODEL": "lms/qwen3-8b", "LMSTUDIO_KEY": "lm-key", "OPENAI_BASE_URL": "http://elsewhere/v1"},
			want: map[string]string{
				"provider": "lms@env HARNESS_MODEL", "type": "openai@/cfg/config.toml:9", "model": "qwen3-8b@env HARNESS_MODEL",
				// OPENAI_BASE_URL is the built-in openai's, not lms's.
				"base_url": "http://127.0.0.1:1234/v1@/cfg/config.toml:10", "api_key_env": "LMSTUDIO_KEY@/cfg/config.toml:11",
				"api_key": "[redacted]@env LMSTUDIO_KEY",
			},
		},
		{
			name:  "flags over environment",
			file:  file,
			flags: config.Flags{Model: "ollama/llama3", BaseURL: "10.0.0.5:8080", NumCtx: 4096},
			env:   map[string]string{"HARNESS_MODEL": "lms/qwen3-8b", "OLLAMA_HOST": "otherhost"},
			want: map[string]string{
				"provider": "ollama@flag", "type": "ollama@default", "model": "llama3@flag",
				"base_url": "10.0.0.5:8080@flag", "num_ctx": "4096@flag",
			},
		},
		{
			name: "OLLAMA_HOST for the built-in ollama",
			file: file,
			env:  map[string]string{"HARNESS_MODEL": "ollama/llama3", "OLLAMA_HOST": "otherhost"},
			want: map[string]string{"base_url": "otherhost@env OLLAMA_HOST", "num_ctx": "16384@default"},
		},
		{
			name: "OLLAMA_HOST not for a provider of the file",
			file: file,
			env:  map[string]string{"OLLAMA_HOST": "otherhost"},
			want: map[string]string{"provider": "local@/cfg/config.toml:1", "base_url": "http://127.0.0.1:11434@/cfg/config.toml:5"},
		},
		{
			name:  "a bare model runs on the file's provider",
			file:  file,
			flags: config.Flags{Model: "qwen3:8b"},
			want:  map[string]string{"provider": "local@/cfg/config.toml:1", "model": "qwen3:8b@flag", "num_ctx": "16384@/cfg/config.toml:6"},
		},
		{
			name:  "a bare model runs on ollama without a file",
			flags: config.Flags{Model: "qwen3:8b"},
			want:  map[string]string{"provider": "ollama@default", "model": "qwen3:8b@flag"},
		},
		{
			name:  "an Ollama name with slashes",
			flags: config.Flags{Model: "ollama/hf.co/org/model:Q4_K_M"},
			want:  map[string]string{"provider": "ollama@flag", "model": "hf.co/org/model:Q4_K_M@flag"},
		},
		{
			name: "built-in openai",
			env:  map[string]string{"HARNESS_MODEL": "openai/gpt-4.1-mini", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{
				"provider": "openai@env HARNESS_MODEL", "type": "openai@default", "model": "gpt-4.1-mini@env HARNESS_MODEL",
				"base_url": "https://api.openai.com/v1@default", "api_key_env": "OPENAI_API_KEY@default", "api_key": "[redacted]@env OPENAI_API_KEY",
			},
		},
		{
			name: "OPENAI_BASE_URL for the built-in openai",
			env:  map[string]string{"HARNESS_MODEL": "openai/m", "OPENAI_BASE_URL": "http://proxy:8000/v1"},
			want: map[string]string{"base_url": "http://proxy:8000/v1@env OPENAI_BASE_URL", "api_key": "@default"},
		},
		{
			name: "OPENAI_API_KEY is not sent to another provider",
			file: parse(t, "[providers.lms]\ntype = \"openai\"\nbase_url = \"http://h/v1\"\n"),
			env:  map[string]string{"HARNESS_MODEL": "lms/m", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{"api_key_env": "@default", "api_key": "@default"},
		},
		{
			name: "a redefined built-in keeps its other defaults",
			file: parse(t, "[providers.openai]\nbase_url = \"https://api.openai.com/v1\"\n"),
			env:  map[string]string{"HARNESS_MODEL": "openai/m", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{
				"type": "openai@/cfg/config.toml:1", "base_url": "https://api.openai.com/v1@/cfg/config.toml:2",
				"api_key_env": "OPENAI_API_KEY@default", "api_key": "[redacted]@env OPENAI_API_KEY",
			},
		},
		{
			name: "OPENAI_API_KEY is not sent to the redefined built-in's other server",
			file: parse(t, "[providers.openai]\nbase_url = \"https://proxy.example/v1\"\n"),
			env:  map[string]string{"HARNESS_MODEL": "openai/m", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{"api_key_env": "@/cfg/config.toml:2", "api_key": "@default"},
		},
		{
			name: "unless the file names it",
			file: parse(t, "[providers.openai]\nbase_url = \"https://proxy.example/v1\"\napi_key_env = \"OPENAI_API_KEY\"\n"),
			env:  map[string]string{"HARNESS_MODEL": "openai/m", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{"api_key_env": "OPENAI_API_KEY@/cfg/config.toml:3", "api_key": "[redacted]@env OPENAI_API_KEY"},
		},
		{
			name:  "OPENAI_API_KEY is not sent to a --base-url",
			flags: config.Flags{Provider: "openai", BaseURL: "http://192.168.1.20:8080"},
			env:   map[string]string{"OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"api_key_env": "@flag", "api_key": "@default", "withheld": "OPENAI_API_KEY"},
		},
		{
			name:  "no key is withheld when none is set",
			flags: config.Flags{Provider: "openai", BaseURL: "http://192.168.1.20:8080"},
			want:  map[string]string{"api_key": "@default", "withheld": ""},
		},
		{
			name:  "nor to a host that only looks like OpenAI's",
			flags: config.Flags{Provider: "openai", BaseURL: "https://api.openai.com.example/v1"},
			env:   map[string]string{"OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"api_key_env": "@flag", "api_key": "@default"},
		},
		{
			name:  "nor to one that names it as a user",
			flags: config.Flags{Provider: "openai", BaseURL: "https://api.openai.com@example.com/v1"},
			env:   map[string]string{"OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"api_key_env": "@flag", "api_key": "@default"},
		},
		{
			name:  "nor to OpenAI's host without TLS",
			flags: config.Flags{Provider: "openai", BaseURL: "api.openai.com"},
			env:   map[string]string{"OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"api_key_env": "@flag", "api_key": "@default"},
		},
		{
			name:  "a --base-url on OpenAI's host gets it",
			flags: config.Flags{Provider: "openai", BaseURL: "https://API.openai.com/v1/"},
			env:   map[string]string{"OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"api_key_env": "OPENAI_API_KEY@default", "api_key": "[redacted]@env OPENAI_API_KEY"},
		},
		{
			name: "OPENAI_BASE_URL is paired with OPENAI_API_KEY",
			env:  map[string]string{"HARNESS_MODEL": "openai/m", "OPENAI_BASE_URL": "http://192.168.1.20:8080", "OPENAI_API_KEY": "sk-live"},
			want: map[string]string{"api_key_env": "OPENAI_API_KEY@default", "api_key": "[redacted]@env OPENAI_API_KEY", "withheld": ""},
		},
		{
			name:  "a --base-url beats OPENAI_BASE_URL and unpairs the key",
			flags: config.Flags{Provider: "openai", BaseURL: "http://192.168.1.20:8080"},
			env:   map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1234/v1", "OPENAI_API_KEY": "sk-live"},
			want:  map[string]string{"base_url": "http://192.168.1.20:8080@flag", "api_key_env": "@flag", "api_key": "@default"},
		},
		{
			name:  "--provider picks the provider of a bare model",
			file:  file,
			flags: config.Flags{Provider: "lms"},
			env:   map[string]string{"HARNESS_MODEL": "qwen3-8b"},
			want: map[string]string{
				"provider": "lms@flag", "type": "openai@/cfg/config.toml:9", "model": "qwen3-8b@env HARNESS_MODEL",
				"base_url": "http://127.0.0.1:1234/v1@/cfg/config.toml:10",
			},
		},
		{
			name:  "--provider beats the provider the environment names",
			file:  file,
			flags: config.Flags{Provider: "ollama"},
			env:   map[string]string{"HARNESS_MODEL": "lms/qwen3-8b"},
			want:  map[string]string{"provider": "ollama@flag", "model": "qwen3-8b@env HARNESS_MODEL", "base_url": "http://127.0.0.1:11434@default"},
		},
		{
			name:  "--provider beats the file's",
			file:  file,
			flags: config.Flags{Provider: "openai"},
			want: map[string]string{
				"provider": "openai@flag", "type": "openai@default", "model": "qwen2.5-coder:7b@/cfg/config.toml:1",
				"base_url": "https://api.openai.com/v1@default", "api_key_env": "OPENAI_API_KEY@default",
			},
		},
		{
			name:  "-m PROVIDER/MODEL beats --provider",
			file:  file,
			flags: config.Flags{Model: "local/llama3", Provider: "lms"},
			want:  map[string]string{"provider": "local@flag", "type": "ollama@/cfg/config.toml:4", "model": "llama3@flag"},
		},
		{
			name: "an empty variable is unset",
			env:  map[string]string{"HARNESS_MODEL": "", "OLLAMA_HOST": ""},
			want: map[string]string{"model": "qwen2.5-coder:7b@default", "base_url": "http://127.0.0.1:11434@default"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := types.Resolve(config.Input{File: tt.file, Flags: tt.flags, Getenv: func(k string) string { return tt.env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]string{
				"provider": got(s.Provider), "type": got(s.Type), "model": got(s.Model), "base_url": got(s.BaseURL),
				"num_ctx": got(s.NumCtx), "api_key_env": got(s.APIKeyEnv), "api_key": got(s.APIKey),
				"withheld": s.Withheld,
			}
			for k, want := range tt.want {
				if all[k] != want {
					t.Errorf("%s = %s, want %s", k, all[k], want)
				}
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	file := parse(t, example)
	tests := []struct {
		name  string
		flags config.Flags
		env   map[string]string
		is    error
		want  string
	}{
		{"unknown provider from a flag", config.Flags{Model: "lsm/qwen"}, nil, config.ErrUnknownProvider, `model "lsm/qwen" (flag): unknown provider "lsm": the providers are lms, local, ollama, openai`},
		{"unknown provider from the environment", config.Flags{}, map[string]string{"HARNESS_MODEL": "hf.co/x/y"}, config.ErrUnknownProvider, "(env HARNESS_MODEL)"},
		{"no model", config.Flags{Model: "lms/"}, nil, config.ErrInvalid, "no model after"},
		{"unknown provider flag", config.Flags{Provider: "lsm"}, nil, config.ErrUnknownProvider, `provider "lsm" (flag): unknown provider "lsm": the providers are lms, local, ollama, openai`},
		{"bad address from the environment", config.Flags{Model: "ollama/m"}, map[string]string{"OLLAMA_HOST": "ftp://x"}, config.ErrInvalid, "base_url (env OLLAMA_HOST)"},
		{"bad address from a flag", config.Flags{Model: "lms/m", BaseURL: "http://"}, nil, config.ErrInvalid, "base_url (flag)"},
		{"negative num_ctx", config.Flags{NumCtx: -5}, nil, config.ErrInvalid, "num_ctx (flag)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := types.Resolve(config.Input{File: file, Flags: tt.flags, Getenv: func(k string) string { return tt.env[k] }})
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %v saying %q", err, tt.is, tt.want)
			}
		})
	}
}

func TestResolveNothing(t *testing.T) {
	// No file, no flags, no environment: every default.
	s, err := types.Resolve(config.Input{})
	if err != nil || s.Provider.Value != "ollama" || s.Model.Value != config.DefaultModel || s.NumCtx.Value != 16384 {
		t.Errorf("Resolve = %+v, %v", s, err)
	}
}

// TestRedaction: the key shows in no way of printing or encoding the
// settings, and Reveal gives it.
func TestRedaction(t *testing.T) {
	const key = "sk-proj-SECRET-42"
	file := parse(t, example)
	s, err := types.Resolve(config.Input{File: file, Flags: config.Flags{Model: "lms/m"}, Getenv: func(k string) string {
		if k == "LMSTUDIO_KEY" {
			return key
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.APIKey.Value.Reveal() != key {
		t.Fatalf("Reveal = %q", s.APIKey.Value.Reveal())
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	shown := []string{
		fmt.Sprint(s), fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s),
		//lint:ignore S1025 every verb that prints the key is tried, %s included
		fmt.Sprintf("%s", s.APIKey.Value), fmt.Sprintf("%q", s.APIKey.Value), fmt.Sprintf("%x", s.APIKey.Value),
		s.APIKey.Value.String(), string(js), fmt.Sprint(s.Rows()),
	}
	for _, text := range shown {
		if strings.Contains(text, "SECRET") {
			t.Errorf("the key shows in %s", text)
		}
	}
	rows := map[string]config.Row{}
	for _, r := range s.Rows() {
		rows[r.Key] = r
	}
	if r := rows["api_key"]; r.Value != "[redacted]" || r.Source != "env LMSTUDIO_KEY" {
		t.Errorf("api_key row %+v", r)
	}
	if _, ok := rows["num_ctx"]; ok {
		t.Error("num_ctx listed for an openai provider")
	}

	// Without a key, the row says so.
	s, _ = types.Resolve(config.Input{File: file, Flags: config.Flags{Model: "lms/m"}})
	for _, r := range s.Rows() {
		if r.Key == "api_key" && r.Value != "(not set)" {
			t.Errorf("api_key row %+v, want (not set)", r)
		}
	}
}

func TestRows(t *testing.T) {
	s, err := types.Resolve(config.Input{File: parse(t, example)})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range s.Rows() {
		fmt.Fprintf(&b, "%s=%s (%s)\n", r.Key, r.Value, r.Source)
	}
	want := `provider=local (/cfg/config.toml:1)
type=ollama (/cfg/config.toml:4)
model=qwen2.5-coder:7b (/cfg/config.toml:1)
base_url=http://127.0.0.1:11434 (/cfg/config.toml:5)
num_ctx=16384 (/cfg/config.toml:6)
`
	if b.String() != want {
		t.Errorf("rows:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestProviderNames(t *testing.T) {
	var none *config.File
	if got := fmt.Sprint(types.ProviderNames(none)); got != "[ollama openai]" {
		t.Errorf("without a file: %s", got)
	}
	if got := fmt.Sprint(types.ProviderNames(parse(t, example))); got != "[lms local ollama openai]" {
		t.Errorf("with the example: %s", got)
	}
}

// TestChosen: the providers the user chose are those of the file, the
// one its model names, and the built-in ones whose variables are set;
// never a built-in one left at its default.
func TestChosen(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name   string
		file   *config.File
		getenv func(string) string
		want   string
	}{
		{"nothing", nil, nil, "[]"},
		{"empty variables", nil, env("OLLAMA_HOST", "", "OPENAI_API_KEY", ""), "[]"},
		{"ollama host", nil, env("OLLAMA_HOST", "127.0.0.1:9"), "[ollama]"},
		{"openai key", nil, env("OPENAI_API_KEY", "sk-x"), "[openai]"},
		{"openai address", nil, env("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"), "[openai]"},
		{"the example", parse(t, example), nil, "[lms local]"},
		{"a file's model", parse(t, "model = \"openai/gpt-4o\"\n"), nil, "[openai]"},
		{"a file's bare model", parse(t, "model = \"qwen3\"\n"), nil, "[]"},
		{"all", parse(t, example), env("OLLAMA_HOST", "h:1", "OPENAI_BASE_URL", "http://h/v1"), "[lms local ollama openai]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fmt.Sprint(types.Chosen(tt.file, tt.getenv)); got != tt.want {
				t.Errorf("chosen %s, want %s", got, tt.want)
			}
		})
	}
}

// TestRowsHidePassword: an address may carry a password; its row shows it
// as "xxxxx", while the setting keeps it for the connection. An address
// that is not valid is refused without showing it either.
func TestRowsHidePassword(t *testing.T) {
	tests := []struct {
		flags config.Flags
		want  string // the base_url row
	}{
		{config.Flags{Model: "ollama/m", BaseURL: "http://u:s3cretpw@10.0.0.5:11434"}, "http://u:xxxxx@10.0.0.5:11434"},
		{config.Flags{Model: "ollama/m", BaseURL: "u:s3cretpw@10.0.0.5"}, "u:xxxxx@10.0.0.5"},
		{config.Flags{Model: "openai/m", BaseURL: "https://u:s3cretpw@example.com/v1"}, "https://u:xxxxx@example.com/v1"},
		{config.Flags{Model: "ollama/m", BaseURL: "http://u@10.0.0.5:11434"}, "http://u@10.0.0.5:11434"},
		{config.Flags{Model: "ollama/m", BaseURL: "10.0.0.5:8080"}, "10.0.0.5:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.flags.BaseURL, func(t *testing.T) {
			s, err := types.Resolve(config.Input{Flags: tt.flags})
			if err != nil {
				t.Fatal(err)
			}
			if s.BaseURL.Value != tt.flags.BaseURL {
				t.Errorf("the setting is %q, want the address as given", s.BaseURL.Value)
			}
			for _, r := range s.Rows() {
				if r.Key == "base_url" && r.Value != tt.want {
					t.Errorf("base_url row %q, want %q", r.Value, tt.want)
				}
			}
		})
	}
	for _, flags := range []config.Flags{
		{Model: "ollama/m", BaseURL: "ftp://u:s3cretpw@host"},
		{Model: "openai/m", BaseURL: "ftp://u:s3cretpw@host"},
	} {
		_, err := types.Resolve(config.Input{Flags: flags})
		if !errors.Is(err, config.ErrInvalid) || strings.Contains(err.Error(), "s3cretpw") {
			t.Errorf("Resolve(%+v) = %v, want ErrInvalid without the password", flags, err)
		}
	}
}
