package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Type is a type of provider: a backend, as far as the settings need to
// know it. Each type has a built-in provider of its name, there without a
// file; the harness lists the types it is built with as [Types], and this
// package knows of no backend but through them.
type Type struct {
	// Name is the type as type = "..." writes it, and the name of its
	// built-in provider.
	Name string
	// BaseURL is the address of the built-in provider, and of every other
	// provider of the type that gives none (unless NeedsURL is set).
	BaseURL string
	// NeedsURL, when set, says why a provider of the type that the file
	// defines must give its base_url: "an openai provider needs the API's
	// root, such as http://127.0.0.1:1234/v1".
	NeedsURL string
	// URLEnv is the environment variable that gives the built-in
	// provider's address, or "".
	URLEnv string
	// ParseURL reads an address as the backend does; its error says what
	// is wrong with it.
	ParseURL func(string) (*url.URL, error)
	// NumCtx is the context window the type's providers send when nothing
	// sets one; 0 when they send none, and num_ctx is not theirs to set.
	NumCtx int
	// KeyEnv is the environment variable holding the built-in provider's
	// API key; "" when the type takes no key, and api_key_env is not its
	// providers' to set. The key goes only to the built-in provider's own
	// server (the scheme and host of BaseURL) or to the address URLEnv
	// gives.
	KeyEnv string
}

// Types are the types of provider there are. The first is the default:
// a model that names no provider, in a file that names none either, runs
// on its built-in provider.
type Types []Type

// lookup returns the type called name.
func (ts Types) lookup(name string) (Type, bool) {
	for _, t := range ts {
		if t.Name == name {
			return t, true
		}
	}
	return Type{}, false
}

// builtinNames lists the names of the providers there are without a file:
// one for each type.
func (ts Types) builtinNames() []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	return names
}

// defaultProvider is the provider of a model that names none, when the
// file names none either: the first type's built-in one.
func (ts Types) defaultProvider() string {
	if len(ts) == 0 {
		return ""
	}
	return ts[0].Name
}

// names lists, for a person, the names of the types keep accepts,
// quoted when quote is set: `"ollama" or "openai"`, or `ollama`.
func (ts Types) names(quote bool, keep func(Type) bool) string {
	var names []string
	for _, t := range ts {
		if !keep(t) {
			continue
		}
		name := t.Name
		if quote {
			name = strconv.Quote(name)
		}
		names = append(names, name)
	}
	return strings.Join(names, " or ")
}

// defaults returns the settings a provider called name, of the type t,
// has when nothing else sets them: the built-in provider's, when it is
// the one, else those of any provider of its type.
func (t Type) defaults(name string) Provider {
	p := Provider{Type: t.Name, NumCtx: t.NumCtx}
	if name == t.Name {
		p.BaseURL, p.APIKeyEnv = t.BaseURL, t.KeyEnv
	} else if t.NeedsURL == "" {
		p.BaseURL = t.BaseURL
	}
	return p
}

// checkURL checks an address as the backend reads it.
func (t Type) checkURL(s string) error {
	if t.ParseURL == nil {
		return fmt.Errorf("%w: a provider of type %s has no address", ErrInvalid, t.Name)
	}
	if _, err := t.ParseURL(s); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}
