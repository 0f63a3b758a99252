package config

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// DefaultModel is the model of a run that names none.
const DefaultModel = "qwen2.5-coder:7b"

// Kind is where a value came from.
type Kind int

const (
	FromDefault Kind = iota
	FromFile
	FromEnv
	FromFlag
)

// Source is where a setting's value came from.
type Source struct {
	Kind Kind
	// Name is the environment variable (FromEnv), the file's path
	// (FromFile) or the setting (FromFlag).
	Name string
	// Line is the file's line (FromFile), or 0.
	Line int
}

// String describes the source for a person: "default", "flag", "env
// HARNESS_MODEL", or the file and line as "/path/config.toml:3".
func (s Source) String() string {
	switch s.Kind {
	case FromFlag:
		return "flag"
	case FromEnv:
		return "env " + s.Name
	case FromFile:
		if s.Line > 0 {
			return fmt.Sprintf("%s:%d", s.Name, s.Line)
		}
		return s.Name
	}
	return "default"
}

// Setting is a resolved value and where it came from.
type Setting[T any] struct {
	Value  T
	Source Source
}

// Secret is a value that must never be shown: printed in any way, or
// encoded as text or JSON, it is "[redacted]" ("" when empty). Reveal
// gives the value itself.
type Secret string

// Reveal returns the secret itself, for where it must go (an
// Authorization header).
func (s Secret) Reveal() string { return string(s) }

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// GoString keeps %#v from showing the value.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// MarshalText keeps encoders from showing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Flags are the settings given on the command line; a zero field was not
// given.
type Flags struct {
	Model string // PROVIDER/MODEL or MODEL
	// Provider names the provider of a Model that names none.
	Provider string
	BaseURL  string // the provider's address
	NumCtx   int    // the context window, for providers whose type sends one
}

// Input is everything Resolve decides from.
type Input struct {
	// File is the settings file; nil or empty when there is none.
	File *File
	// Flags are the settings given on the command line.
	Flags Flags
	// Getenv reads the environment, as os.Getenv; nil is an empty
	// environment. An empty value counts as unset.
	Getenv func(string) string
}

// Settings are the effective settings of a run. NumCtx is zero for a
// provider whose type sends no context window, APIKeyEnv and APIKey for
// one whose type takes no key.
type Settings struct {
	Provider  Setting[string] // the provider's name
	Type      Setting[string] // the name of its Type
	Model     Setting[string] // the model's name on the provider
	BaseURL   Setting[string]
	NumCtx    Setting[int]
	APIKeyEnv Setting[string] // the variable the key is read from; "" for none
	APIKey    Setting[Secret]
	// Withheld names the variable of the type's own key (Type.KeyEnv)
	// when it is set but not sent to BaseURL, an address other than the
	// one it goes to; "" otherwise. Errors say why no key was sent.
	Withheld string

	numCtx, keys bool // whether the type sends a context window, takes a key
}

// Row is one setting as `harness config` shows it.
type Row struct {
	Key, Value, Source string
}

// Rows lists the settings that apply to the provider, for display: the
// key as "[redacted]" or "(not set)", never itself, and the address with
// any password in it as "xxxxx".
func (s Settings) Rows() []Row {
	rows := []Row{
		{"provider", s.Provider.Value, s.Provider.Source.String()},
		{"type", s.Type.Value, s.Type.Source.String()},
		{"model", s.Model.Value, s.Model.Source.String()},
		{"base_url", redacted(s.BaseURL.Value), s.BaseURL.Source.String()},
	}
	if s.numCtx {
		rows = append(rows, Row{"num_ctx", strconv.Itoa(s.NumCtx.Value), s.NumCtx.Source.String()})
	}
	if s.keys {
		keyVar, key := s.APIKeyEnv.Value, s.APIKey.Value.String()
		if keyVar == "" {
			keyVar = "(none)"
		}
		if key == "" {
			key = "(not set)"
		}
		rows = append(rows,
			Row{"api_key_env", keyVar, s.APIKeyEnv.Source.String()},
			Row{"api_key", key, s.APIKey.Source.String()})
	}
	return rows
}

// redacted is the address addr, written as a URL or as host[:port], with
// any password in it replaced by "xxxxx" as url.URL.Redacted does.
func redacted(addr string) string {
	s := addr
	bare := !strings.Contains(s, "://")
	if bare {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return addr
	}
	if _, ok := u.User.Password(); !ok {
		return addr
	}
	if bare {
		return strings.TrimPrefix(u.Redacted(), "http://")
	}
	return u.Redacted()
}

// Resolve decides the effective settings, among providers of the types ts:
// for each, the flag if given, else the environment, else the file, else
// the default. It reads nothing but in. An unknown provider, or an address
// or number from a flag or the environment that is not valid, is an error
// naming where it came from.
func (ts Types) Resolve(in Input) (Settings, error) {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	f := in.File
	if f == nil {
		f = &File{}
	}
	fileAt := func(key string) Source { return Source{Kind: FromFile, Name: f.Path, Line: f.Line(key)} }
	var s Settings

	// The model, and from it the provider.
	s.Model = Setting[string]{DefaultModel, Source{}}
	switch {
	case in.Flags.Model != "":
		s.Model = Setting[string]{in.Flags.Model, Source{Kind: FromFlag, Name: "model"}}
	case getenv("HARNESS_MODEL") != "":
		s.Model = Setting[string]{getenv("HARNESS_MODEL"), Source{Kind: FromEnv, Name: "HARNESS_MODEL"}}
	case f.Model != "":
		s.Model = Setting[string]{f.Model, fileAt("model")}
	}
	provider, model, err := ts.splitModel(f, s.Model.Value)
	if err != nil {
		return Settings{}, fmt.Errorf("model %q (%s): %w", s.Model.Value, s.Model.Source, err)
	}
	s.Model.Value = model
	s.Provider = Setting[string]{provider, s.Model.Source}
	switch {
	case provider != "" && s.Model.Source.Kind == FromFlag:
		// -m PROVIDER/MODEL says the most.
	case in.Flags.Provider != "":
		if !slices.Contains(ts.ProviderNames(f), in.Flags.Provider) {
			return Settings{}, fmt.Errorf("provider %q (flag): %w", in.Flags.Provider, ts.unknown(f, in.Flags.Provider))
		}
		s.Provider = Setting[string]{in.Flags.Provider, Source{Kind: FromFlag, Name: "provider"}}
	case provider != "":
	default:
		s.Provider = Setting[string]{ts.defaultProvider(), Source{}}
		if p, _, _ := ts.splitModel(f, f.Model); p != "" {
			s.Provider = Setting[string]{p, fileAt("model")}
		}
	}
	name := s.Provider.Value
	builtin, _ := ts.lookup(name)
	p, inFile := f.Providers[name]
	providerAt := func(key string) Source { return fileAt("providers." + name + "." + key) }

	s.Type = Setting[string]{builtin.Name, Source{}}
	if inFile {
		s.Type = Setting[string]{p.Type, providerAt("type")}
		if f.Line("providers."+name+".type") == 0 {
			s.Type.Source = fileAt("providers." + name)
		}
	}
	t, ok := ts.lookup(s.Type.Value)
	if !ok {
		return Settings{}, fmt.Errorf("provider %s (%s): %w: no type %q", name, s.Type.Source, ErrInvalid, s.Type.Value)
	}
	def := t.defaults(name)
	s.numCtx, s.keys = t.NumCtx > 0, t.KeyEnv != ""

	// The address: the environment's is the built-in provider's of the
	// name, whatever its type.
	s.BaseURL = Setting[string]{def.BaseURL, Source{}}
	switch env := builtin.URLEnv; {
	case in.Flags.BaseURL != "":
		s.BaseURL = Setting[string]{in.Flags.BaseURL, Source{Kind: FromFlag, Name: "base_url"}}
	case env != "" && getenv(env) != "":
		s.BaseURL = Setting[string]{getenv(env), Source{Kind: FromEnv, Name: env}}
	case p.BaseURL != "":
		s.BaseURL = Setting[string]{p.BaseURL, providerAt("base_url")}
	}
	if err := t.checkURL(s.BaseURL.Value); err != nil {
		return Settings{}, fmt.Errorf("base_url (%s): %w", s.BaseURL.Source, err)
	}

	if s.numCtx {
		s.NumCtx = Setting[int]{def.NumCtx, Source{}}
		switch {
		case in.Flags.NumCtx < 0:
			return Settings{}, fmt.Errorf("num_ctx (flag): %w: must be positive, not %d", ErrInvalid, in.Flags.NumCtx)
		case in.Flags.NumCtx > 0:
			s.NumCtx = Setting[int]{in.Flags.NumCtx, Source{Kind: FromFlag, Name: "num_ctx"}}
		case p.NumCtx > 0:
			s.NumCtx = Setting[int]{p.NumCtx, providerAt("num_ctx")}
		}
	}
	if s.keys {
		s.APIKeyEnv = Setting[string]{def.APIKeyEnv, Source{}}
		switch {
		case p.APIKeyEnv != "":
			s.APIKeyEnv = Setting[string]{p.APIKeyEnv, providerAt("api_key_env")}
		case def.APIKeyEnv != "" && !t.keyGoes(s.BaseURL):
			// The default key goes to the default server, or to the
			// one the user paired it with; any other address gets
			// none, and the source says which address that was.
			s.APIKeyEnv = Setting[string]{"", s.BaseURL.Source}
			if getenv(def.APIKeyEnv) != "" {
				s.Withheld = def.APIKeyEnv
			}
		}
		if v := s.APIKeyEnv.Value; v != "" && getenv(v) != "" {
			s.APIKey = Setting[Secret]{Secret(getenv(v)), Source{Kind: FromEnv, Name: v}}
		}
	}
	return s, nil
}

// keyGoes reports whether the key of the built-in provider of type t
// (KeyEnv) may be sent to base: when it is the provider's own server (the
// scheme and host of BaseURL, as https://api.openai.com), or came from
// URLEnv, set beside the key as OpenAI's own libraries read them. A key
// set for OpenAI then never reaches a server named only by a flag or the
// file.
func (t Type) keyGoes(base Setting[string]) bool {
	if t.URLEnv != "" && base.Source == (Source{Kind: FromEnv, Name: t.URLEnv}) {
		return true
	}
	u, err := t.ParseURL(base.Value)
	def, defErr := url.Parse(t.BaseURL)
	return err == nil && defErr == nil && u.Scheme == def.Scheme && strings.EqualFold(u.Hostname(), def.Hostname())
}

// ProviderNames lists the names of every provider there is, the built-in
// ones and the file's, sorted. f may be nil.
func (ts Types) ProviderNames(f *File) []string {
	names := ts.builtinNames()
	if f != nil {
		for name := range f.Providers {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// Chosen lists, sorted, the providers the user chose, out of those
// ProviderNames lists: the ones the file defines or its model names, and
// the built-in ones whose variables (URLEnv, KeyEnv) getenv finds set. A
// built-in provider nobody chose is not among them: asking it would reach
// out to its default address, which the user never gave. getenv may be
// nil, and f too.
func (ts Types) Chosen(f *File, getenv func(string) string) []string {
	var names []string
	add := func(name string) {
		if name != "" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if f != nil {
		for name := range f.Providers {
			add(name)
		}
		if provider, _, ok := strings.Cut(f.Model, "/"); ok && slices.Contains(ts.ProviderNames(f), provider) {
			add(provider)
		}
	}
	for _, t := range ts {
		for _, v := range []string{t.URLEnv, t.KeyEnv} {
			if v != "" && getenv != nil && getenv(v) != "" {
				add(t.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// splitModel reads PROVIDER/MODEL, among the providers of f: the
// provider, "" when s names none, and the model's name on it.
func (ts Types) splitModel(f *File, s string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(s, "/")
	if !ok {
		return "", s, nil
	}
	if !slices.Contains(ts.ProviderNames(f), provider) {
		return "", "", fmt.Errorf("%w (a model whose name holds a / is written PROVIDER/NAME, as %s/NAME)", ts.unknown(f, provider), ts.defaultProvider())
	}
	if model == "" {
		return "", "", fmt.Errorf("%w: no model after %q", ErrInvalid, provider+"/")
	}
	return provider, model, nil
}

// unknown is the error for a provider there is not: it lists those there
// are.
func (ts Types) unknown(f *File, provider string) error {
	return fmt.Errorf("%w %q: the providers are %s", ErrUnknownProvider, provider, strings.Join(ts.ProviderNames(f), ", "))
}
