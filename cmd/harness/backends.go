package main

import (
	"strings"

	"harness/chat"
	"harness/config"
	"harness/fakemodel"
	"harness/ollama"
	"harness/openai"
)

// sampling are the model flags every backend is given, whichever the
// provider.
type sampling struct {
	maxTokens   int
	temperature *float64
	seed        *int
}

// backendKind is a kind of server the harness speaks to: what the
// settings need to know of it, and how its model is made from them.
type backendKind struct {
	config.Type
	// open returns the model the settings s name, asked with o.
	open func(s config.Settings, o sampling) (chat.Backend, error)
}

// backends are the kinds of server the harness speaks to, the first the
// default. A new backend is a package whose Model satisfies backend and
// what it can of the capabilities (capabilities.go), and an entry here.
var backends = []backendKind{
	{
		Type: config.Type{
			Name:     ollama.Name,
			BaseURL:  ollama.DefaultHost,
			URLEnv:   ollama.HostEnv,
			ParseURL: ollama.ParseHost,
			NumCtx:   ollama.DefaultNumCtx,
		},
		open: func(s config.Settings, o sampling) (chat.Backend, error) {
			host, err := ollama.ParseHost(s.BaseURL.Value)
			if err != nil {
				return nil, err
			}
			return ollama.New(host, s.Model.Value, ollama.Options{
				NumCtx:      s.NumCtx.Value,
				NumPredict:  o.maxTokens,
				Temperature: o.temperature,
				Seed:        o.seed,
			}), nil
		},
	},
	{
		Type: config.Type{
			Name:     openai.Name,
			BaseURL:  openai.DefaultBaseURL,
			NeedsURL: "an openai provider needs the API's root, such as http://127.0.0.1:1234/v1",
			URLEnv:   openai.BaseURLEnv,
			ParseURL: openai.ParseBaseURL,
			KeyEnv:   openai.KeyEnv,
		},
		open: func(s config.Settings, o sampling) (chat.Backend, error) {
			base, err := openai.ParseBaseURL(s.BaseURL.Value)
			if err != nil {
				return nil, err
			}
			return openai.New(base, s.Model.Value, openai.Options{
				APIKey:      s.APIKey.Value.Reveal(),
				KeyVar:      s.APIKeyEnv.Value,
				Withheld:    s.Withheld,
				MaxTokens:   o.maxTokens,
				Temperature: o.temperature,
				Seed:        o.seed,
			}), nil
		},
	},
}

// What each backend can do beyond chatting, checked here.
var (
	_ chat.Backend = (*ollama.Model)(nil)
	_ chat.Checker = (*ollama.Model)(nil)
	_ chat.Sizer   = (*ollama.Model)(nil)
	_ chat.Lister  = (*ollama.Model)(nil)

	_ chat.MissingModel = (*ollama.MissingError)(nil)
	_ chat.Pullable     = (*ollama.MissingError)(nil)

	_ chat.Backend = (*openai.Model)(nil)
	_ chat.Checker = (*openai.Model)(nil)
	_ chat.Lister  = (*openai.Model)(nil)

	_ chat.MissingModel = (*openai.UnlistedError)(nil)

	_ chat.Backend = (*fakemodel.Model)(nil)
)

const (
	// hostType is the type of server whose address --host gives, as
	// OLLAMA_HOST does.
	hostType = ollama.Name
	// bareType is the backend whose sessions named a model alone when
	// they switched to it, before /model recorded PROVIDER/MODEL: the one
	// backend that could switch models then.
	bareType = ollama.Name
)

// backendTypes lists the types of provider there are: one for each
// backend.
func backendTypes() config.Types {
	ts := make(config.Types, len(backends))
	for i, b := range backends {
		ts[i] = b.Type
	}
	return ts
}

// backendOf returns the backend of the type called name.
func backendOf(name string) (backendKind, bool) {
	for _, b := range backends {
		if b.Name == name {
			return b, true
		}
	}
	return backendKind{}, false
}

// backendNames lists the backends' names as --backend takes them, comma
// separated.
func backendNames() string {
	names := make([]string, len(backends))
	for i, b := range backends {
		names[i] = b.Name
	}
	return strings.Join(names, ",")
}
