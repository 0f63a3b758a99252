package config_test

import (
	"fmt"

	"harness/config"
	"harness/ollama"
	"harness/openai"
)

func ExampleTypes_Resolve() {
	// The types of provider there are, as the harness lists its backends.
	types := config.Types{
		{Name: ollama.Name, BaseURL: ollama.DefaultHost, URLEnv: ollama.HostEnv, ParseURL: ollama.ParseHost, NumCtx: ollama.DefaultNumCtx},
		{Name: openai.Name, BaseURL: openai.DefaultBaseURL, URLEnv: openai.BaseURLEnv, ParseURL: openai.ParseBaseURL, KeyEnv: openai.KeyEnv},
	}
	file, err := types.Parse("/home/me/.config/harness/config.toml", []byte(`model = "local/qwen2.5-coder:7b"

[providers.local]
type = "ollama"
num_ctx = 32768

[providers.lms]
type = "openai"
base_url = "http://127.0.0.1:1234/v1"
api_key_env = "LMSTUDIO_KEY"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	env := map[string]string{"LMSTUDIO_KEY": "lm-0123", "OLLAMA_HOST": "10.0.0.9"}
	s, err := types.Resolve(config.Input{
		File:   file,
		Flags:  config.Flags{Model: "lms/qwen3-8b"}, // as if --model lms/qwen3-8b
		Getenv: func(k string) string { return env[k] },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Rows() {
		fmt.Printf("%-12s %-26s %s\n", r.Key, r.Value, r.Source)
	}
	// Output:
	// provider     lms                        flag
	// type         openai                     /home/me/.config/harness/config.toml:8
	// model        qwen3-8b                   flag
	// base_url     http://127.0.0.1:1234/v1   /home/me/.config/harness/config.toml:9
	// api_key_env  LMSTUDIO_KEY               /home/me/.config/harness/config.toml:10
	// api_key      [redacted]                 env LMSTUDIO_KEY
}
