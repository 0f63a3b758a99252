package config_test

import (
	"errors"
	"strings"
	"testing"

	"harness/config"
	"harness/ollama"
	"harness/openai"
)

// types are the types of provider as the harness is built with them.
var types = config.Types{
	{
		Name:     ollama.Name,
		BaseURL:  ollama.DefaultHost,
		URLEnv:   ollama.HostEnv,
		ParseURL: ollama.ParseHost,
		NumCtx:   ollama.DefaultNumCtx,
	},
	{
		Name:     openai.Name,
		BaseURL:  openai.DefaultBaseURL,
		NeedsURL: "an openai provider needs the API's root, such as http://127.0.0.1:1234/v1",
		URLEnv:   openai.BaseURLEnv,
		ParseURL: openai.ParseBaseURL,
		KeyEnv:   openai.KeyEnv,
	},
}

// TestTypes: what a type says decides what its providers may set and
// what they have by default, whichever types there are; the first is the
// default provider's.
func TestTypes(t *testing.T) {
	plain := config.Type{Name: "plain", BaseURL: "http://plain:1", ParseURL: ollama.ParseHost}
	keyed := config.Type{Name: "keyed", BaseURL: "https://keyed.example/v1", NeedsURL: "a keyed provider needs its address",
		URLEnv: "KEYED_URL", ParseURL: openai.ParseBaseURL, KeyEnv: "KEYED_KEY"}
	sized := config.Type{Name: "sized", BaseURL: "http://sized:2", URLEnv: "SIZED_HOST", ParseURL: ollama.ParseHost, NumCtx: 512}
	ts := config.Types{plain, keyed, sized}
	tests := []struct {
		name  string
		doc   string
		flags config.Flags
		env   map[string]string
		want  map[string]string // setting -> value@source
		err   string            // what Parse or Resolve says instead
	}{
		{name: "the first type's built-in provider is the default", want: map[string]string{
			"provider": "plain@default", "type": "plain@default", "base_url": "http://plain:1@default", "num_ctx": "0@default", "api_key_env": "@default"}},
		{name: "a type's own defaults", flags: config.Flags{Model: "sized/m"}, env: map[string]string{"SIZED_HOST": "h:3", "KEYED_URL": "x"},
			want: map[string]string{"type": "sized@default", "base_url": "h:3@env SIZED_HOST", "num_ctx": "512@default"}},
		{name: "a key to its own server", flags: config.Flags{Model: "keyed/m"}, env: map[string]string{"KEYED_KEY": "k"},
			want: map[string]string{"base_url": "https://keyed.example/v1@default", "api_key_env": "KEYED_KEY@default", "api_key": "[redacted]@env KEYED_KEY"}},
		{name: "and to the address set beside it", flags: config.Flags{Model: "keyed/m"}, env: map[string]string{"KEYED_KEY": "k", "KEYED_URL": "http://near:1/v1"},
			want: map[string]string{"api_key": "[redacted]@env KEYED_KEY"}},
		{name: "but to no other", flags: config.Flags{Model: "keyed/m", BaseURL: "https://else.example/v1"}, env: map[string]string{"KEYED_KEY": "k"},
			want: map[string]string{"api_key_env": "@flag", "api_key": "@default"}},
		{name: "a provider of the file has its type's defaults, not the built-in's variable", doc: "[providers.mine]\ntype = \"sized\"\n", flags: config.Flags{Model: "mine/m"}, env: map[string]string{"SIZED_HOST": "h:3"},
			want: map[string]string{"type": "sized@/c.toml:2", "base_url": "http://sized:2@default", "num_ctx": "512@default"}},
		{name: "one that needs an address", doc: "[providers.mine]\ntype = \"keyed\"\n", err: "base_url is missing: a keyed provider needs its address"},
		{name: "num_ctx for the types that send one", doc: "[providers.plain]\nnum_ctx = 4\n", err: "num_ctx is for sized providers only"},
		{name: "api_key_env for those that take a key", doc: "[providers.plain]\napi_key_env = \"K\"\n", err: "api_key_env is for keyed providers only"},
		{name: "the types there are", doc: "[providers.mine]\ntype = \"ollama\"\n", err: `want "plain" or "keyed" or "sized", not "ollama"`},
		{name: "an address as the type reads it", flags: config.Flags{Model: "keyed/m", BaseURL: "ftp://x"}, err: `base_url (flag): invalid value: invalid base URL "ftp://x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ts.Parse("/c.toml", []byte(tt.doc))
			var s config.Settings
			if err == nil {
				s, err = ts.Resolve(config.Input{File: f, Flags: tt.flags, Getenv: func(k string) string { return tt.env[k] }})
			}
			if tt.err != "" {
				if err == nil || !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrInvalid saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]string{
				"provider": got(s.Provider), "type": got(s.Type), "base_url": got(s.BaseURL),
				"num_ctx": got(s.NumCtx), "api_key_env": got(s.APIKeyEnv), "api_key": got(s.APIKey),
			}
			for k, want := range tt.want {
				if all[k] != want {
					t.Errorf("%s = %s, want %s", k, all[k], want)
				}
			}
		})
	}
	if got := strings.Join(ts.ProviderNames(nil), " "); got != "keyed plain sized" {
		t.Errorf("ProviderNames = %s", got)
	}
}
