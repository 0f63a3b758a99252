package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"harness/chat"
	"harness/config"
	"harness/xdg"
)

// providerFlags choose the provider and the model. They are read only
// when given on the command line: the environment and the settings file
// are read by config.Resolve, which decides between all three.
type providerFlags struct {
	Model    string `short:"m" placeholder:"[PROVIDER/]MODEL"`
	Provider string `placeholder:"NAME"`
	Backend  string `default:"ollama" enum:"ollama,openai"`
	BaseURL  string `placeholder:"URL"`
	Host     string `placeholder:"ADDR"`
	NumCtx   int    `placeholder:"N"`
}

// help is the help of each flag of providerFlags, by field (see flagHelper).
func (providerFlags) help(field string) string {
	switch field {
	case "Model":
		return "Model to use, as MODEL or PROVIDER/MODEL (default: $HARNESS_MODEL, else the settings file's model, else " + config.DefaultModel + ")."
	case "Provider":
		return "Provider of the model: ollama, openai, or one the settings file defines (-m PROVIDER/MODEL beats it)."
	case "Backend":
		return "Kind of server, when no provider is named: ollama (its native API) or openai (any OpenAI-compatible server: llama-server, LM Studio, vLLM, OpenAI); it picks the built-in provider of that name."
	case "BaseURL":
		return "Address of the provider's API; for openai its root, such as http://127.0.0.1:1234/v1 (default $OPENAI_BASE_URL, else https://api.openai.com/v1). $OPENAI_API_KEY goes only to api.openai.com or to $OPENAI_BASE_URL, never to another address given here; a provider's api_key_env names the key of its own server."
	case "Host":
		return "Ollama server address, for an ollama provider (default $OLLAMA_HOST, else 127.0.0.1:11434)."
	case "NumCtx":
		return "Context window in tokens, fixed for the run, for an ollama provider (default: the provider's num_ctx, else 16384; Ollama's small default silently drops old messages)."
	}
	return ""
}

// providers is what the run's model was chosen from: the settings file,
// the environment and the flags given. It builds the backend of the
// settings in use, and of others, so that the model can be changed
// between turns (use) and every provider asked for its models (list).
type providers struct {
	types  config.Types // of the backends there are
	file   *config.File
	path   string // of the settings file, which may not exist
	getenv func(string) string
	flags  config.Flags // as given on the command line
	opts   sampling
	cur    config.Settings // of the model in use
}

// choose resolves the settings of the run from the flags among given, the
// settings file in the folder dirs finds, and the environment that
// dirs.Getenv reads.
func (f *providerFlags) choose(given []string, dirs xdg.Dirs, opts sampling) (*providers, error) {
	has := func(flag string) bool { return slices.Contains(given, flag) }
	var flags config.Flags
	if has("model") {
		flags.Model = f.Model
	}
	switch {
	case has("provider"):
		flags.Provider = f.Provider
	case has("backend"):
		// The built-in providers are named after their types.
		flags.Provider = f.Backend
	}
	if has("num-ctx") {
		if f.NumCtx <= 0 {
			return nil, fmt.Errorf("--num-ctx must be positive, not %d", f.NumCtx)
		}
		flags.NumCtx = f.NumCtx
	}
	switch {
	case has("host") && has("base-url"):
		return nil, errors.New("--host and --base-url both give the server's address: give one")
	case has("host"):
		flags.BaseURL = f.Host
	case has("base-url"):
		flags.BaseURL = f.BaseURL
	}
	path, err := config.Path(dirs)
	if err != nil {
		return nil, err
	}
	types := backendTypes()
	file, err := types.Load(path)
	if err != nil {
		return nil, err
	}
	p := &providers{types: types, file: file, path: path, getenv: dirs.Getenv, flags: flags, opts: opts}
	if p.cur, err = p.resolve(flags); err != nil {
		return nil, err
	}
	typ := p.cur.Type.Value
	if has("backend") && typ != f.Backend {
		return nil, fmt.Errorf("--backend %s, but provider %s is of type %s", f.Backend, p.cur.Provider.Value, typ)
	}
	if has("host") && typ != hostType {
		return nil, fmt.Errorf("--host gives an Ollama server's address, and provider %s is of type %s: give its address with --base-url", p.cur.Provider.Value, typ)
	}
	return p, nil
}

func (p *providers) resolve(flags config.Flags) (config.Settings, error) {
	return p.types.Resolve(config.Input{File: p.file, Flags: flags, Getenv: p.getenv})
}

// backend returns the model that s describes.
func (p *providers) backend(s config.Settings) (chat.Backend, error) {
	kind, ok := backendOf(s.Type.Value)
	if !ok {
		return nil, fmt.Errorf("provider %s: no backend of type %q", s.Provider.Value, s.Type.Value)
	}
	return kind.open(s, p.opts)
}

// use returns the backend of spec, PROVIDER/MODEL or a MODEL of the
// provider in use, and makes it the one in use.
func (p *providers) use(spec string) (chat.Backend, error) {
	b, s, err := p.pick(spec)
	if err != nil {
		return nil, err
	}
	p.cur = s
	return b, nil
}

// pick returns the backend of spec, PROVIDER/MODEL or a MODEL of the
// provider in use, and its settings, without making it the one in use. A
// model of the provider in use keeps the address given on the command
// line; one of another provider has that provider's.
func (p *providers) pick(spec string) (chat.Backend, config.Settings, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, config.Settings{}, errors.New("no model named: give PROVIDER/MODEL or MODEL")
	}
	if !strings.Contains(spec, "/") {
		spec = p.cur.Provider.Value + "/" + spec
	}
	// Said here rather than by Resolve, which would name the spec a flag.
	provider, model, _ := strings.Cut(spec, "/")
	if names := p.types.ProviderNames(p.file); !slices.Contains(names, provider) {
		return nil, config.Settings{}, fmt.Errorf("%w %q: the providers are %s", config.ErrUnknownProvider, provider, strings.Join(names, ", "))
	}
	if model == "" {
		return nil, config.Settings{}, fmt.Errorf("%w: no model after %q", config.ErrInvalid, provider+"/")
	}
	flags := config.Flags{Model: spec, NumCtx: p.flags.NumCtx}
	if provider == p.cur.Provider.Value {
		flags.BaseURL = p.flags.BaseURL
	}
	s, err := p.resolve(flags)
	if err != nil {
		return nil, config.Settings{}, err
	}
	b, err := p.backend(s)
	if err != nil {
		return nil, config.Settings{}, err
	}
	return b, s, nil
}

// spec is the model in use as -m names it: PROVIDER/MODEL.
func (p *providers) spec() string {
	return p.cur.Provider.Value + "/" + p.cur.Model.Value
}

// listTimeout bounds how long one provider may take to list its models.
const listTimeout = 5 * time.Second

// list asks, at once, each provider the user chose (config.Types.Chosen)
// and the one in use which models it offers (an ollama provider from
// /api/tags, an openai one from /v1/models), in the order of their
// names. A built-in provider nobody chose is not asked.
func (p *providers) list(ctx context.Context) []chat.Offer {
	names := p.types.Chosen(p.file, p.getenv)
	if cur := p.cur.Provider.Value; !slices.Contains(names, cur) {
		names = append(names, cur)
		slices.Sort(names)
	}
	offers := make([]chat.Offer, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		offers[i].Provider = name
		// The provider's settings, as a switch to it would have them.
		flags := config.Flags{Model: name + "/" + p.cur.Model.Value, NumCtx: p.flags.NumCtx}
		if name == p.cur.Provider.Value {
			flags.BaseURL = p.flags.BaseURL
		}
		s, err := p.resolve(flags)
		if err != nil {
			offers[i].Err = err
			continue
		}
		b, err := p.backend(s)
		if err != nil {
			offers[i].Err = err
			continue
		}
		l, ok := b.(chat.Lister)
		if !ok {
			offers[i].Err = fmt.Errorf("a %s backend cannot list its models", b.Describe().Name)
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, listTimeout)
			defer cancel()
			offers[i].Models, offers[i].Err = l.Models(ctx)
		})
	}
	wg.Wait()
	return offers
}

// models is p as a chat finds models in it; nil when there are no
// providers (--fake).
func (p *providers) models() chat.Models {
	if p == nil {
		return nil
	}
	return p
}

var _ chat.Models = (*providers)(nil)

// Spec is the model in use as -m names it: PROVIDER/MODEL.
func (p *providers) Spec() string { return p.spec() }

// Provider is the provider in use.
func (p *providers) Provider() string { return p.cur.Provider.Value }

// Address is the address of the provider in use, as its backend reads
// it: an Ollama host:port as a URL.
func (p *providers) Address() string {
	if kind, ok := backendOf(p.cur.Type.Value); ok && kind.ParseURL != nil {
		if u, err := kind.ParseURL(p.cur.BaseURL.Value); err == nil {
			return u.String()
		}
	}
	return p.cur.BaseURL.Value
}

// Pick returns the model of spec, PROVIDER/MODEL or a MODEL of the
// provider in use, and what makes it the one in use.
func (p *providers) Pick(spec string) (chat.Backend, func(), error) {
	b, s, err := p.pick(spec)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { p.cur = s }, nil
}

// Offers asks the providers the user chose which models they offer.
func (p *providers) Offers(ctx context.Context) []chat.Offer { return p.list(ctx) }
