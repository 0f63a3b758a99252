package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"harness/xdg"
)

var (
	// ErrSyntax means the file is not valid TOML.
	ErrSyntax = errors.New("not valid TOML")
	// ErrUnknownKey means the file has a key the harness does not know.
	ErrUnknownKey = errors.New("unknown key")
	// ErrInvalid means a value is of the wrong type or not allowed, or a
	// key is set twice.
	ErrInvalid = errors.New("invalid value")
	// ErrUnknownProvider means a model names a provider there is not.
	ErrUnknownProvider = errors.New("unknown provider")
)

// Error is a fault in the file: where, which key, and why.
type Error struct {
	Path string
	Line int    // 1-based; 0 when the fault has no one line
	Key  string // dotted, as providers.lms.num_ctx; "" when there is none
	Err  error
}

func (e *Error) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Key == "" {
		return fmt.Sprintf("%s: %v", where, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", where, e.Key, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// File is a settings file as read.
type File struct {
	// Path is the file read, or "" when there was none.
	Path string
	// Model is the default model, as written; "" when unset.
	Model string
	// Providers are the providers the file defines, by name.
	Providers map[string]Provider
	// MCP are the MCP servers the file declares, by name.
	MCP map[string]MCPServer

	lines map[string]int // the line of each key, by dotted path
}

// Provider is a provider as the file defines it; an empty field was not
// set.
type Provider struct {
	Type      string
	BaseURL   string
	APIKeyEnv string
	NumCtx    int
}

// Line returns the line where key (dotted, as providers.lms.type) is set,
// or 0.
func (f *File) Line(key string) int {
	if f == nil {
		return 0
	}
	return f.lines[key]
}

// Path returns where the settings file is: config.toml in the harness's
// settings folder, $XDG_CONFIG_HOME/harness or ~/.config/harness, as dirs
// finds it. Without the one variable or a home folder there is no path:
// the error wraps xdg.ErrNoHome.
func Path(dirs xdg.Dirs) (string, error) {
	dir, err := dirs.Config()
	if err != nil {
		return "", fmt.Errorf("config: no settings file: %w", err)
	}
	return filepath.Join(dir, "config.toml"), nil
}

// Load reads and checks the file at path, whose providers are of the
// types ts. A file that does not exist is an empty File, not an error.
func (ts Types) Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return ts.Parse(path, data)
}

// raw is the file as decoded; APIKey is there only to be refused.
type raw struct {
	Model     string                 `toml:"model"`
	Providers map[string]rawProvider `toml:"providers"`
	MCP       map[string]rawMCP      `toml:"mcp"`
}

type rawProvider struct {
	Type      string  `toml:"type"`
	BaseURL   string  `toml:"base_url"`
	APIKeyEnv *string `toml:"api_key_env"`
	APIKey    *string `toml:"api_key"`
	NumCtx    *int    `toml:"num_ctx"`
}

// Parse reads and checks a settings file, whose providers are of the
// types ts; path names it in errors. Errors are of type *Error.
func (ts Types) Parse(path string, data []byte) (*File, error) {
	f := &File{Path: path, lines: make(map[string]int)}
	fail := func(key string, err error) error {
		return &Error{Path: path, Line: f.lines[key], Key: key, Err: err}
	}
	// The parser tells bad TOML from good TOML that does not fit: both
	// are errors of the decoder, which knows where they are.
	kinds := make(map[string]unstable.Kind)
	syntaxErr := index(data, f.lines, kinds)
	var r raw
	if err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(&r); err != nil || syntaxErr != nil {
		kind := ErrInvalid
		if syntaxErr != nil {
			kind = ErrSyntax
		}
		if err == nil {
			err = syntaxErr
		}
		return nil, decodeError(path, err, kind, kinds)
	}
	f.Model = r.Model
	f.Providers = make(map[string]Provider, len(r.Providers))
	for _, name := range sortedKeys(r.Providers) {
		p := r.Providers[name]
		key := "providers." + name
		if name == "" || strings.Contains(name, "/") {
			return nil, fail(key, fmt.Errorf("%w: a provider's name must not be empty or hold a /", ErrInvalid))
		}
		if p.APIKey != nil {
			return nil, fail(key+".api_key", fmt.Errorf("%w: the file holds no keys; put the key in an environment variable and name it with api_key_env", ErrUnknownKey))
		}
		out := Provider{Type: p.Type, BaseURL: p.BaseURL}
		if _, ok := ts.lookup(name); ok && out.Type == "" {
			out.Type = name // a built-in provider, redefined
		}
		t, ok := ts.lookup(out.Type)
		switch {
		case out.Type == "":
			return nil, fail(key, fmt.Errorf("%w: type is missing: want type = %s", ErrInvalid, ts.names(true, func(Type) bool { return true })))
		case !ok:
			return nil, fail(key+".type", fmt.Errorf("%w: want %s, not %q", ErrInvalid, ts.names(true, func(Type) bool { return true }), out.Type))
		}
		if out.BaseURL != "" {
			if err := t.checkURL(out.BaseURL); err != nil {
				return nil, fail(key+".base_url", err)
			}
		} else if t.NeedsURL != "" && name != t.Name {
			return nil, fail(key, fmt.Errorf("%w: base_url is missing: %s", ErrInvalid, t.NeedsURL))
		}
		if p.NumCtx != nil {
			if t.NumCtx == 0 {
				return nil, fail(key+".num_ctx", fmt.Errorf("%w: num_ctx is for %s providers only", ErrInvalid, ts.names(false, func(t Type) bool { return t.NumCtx > 0 })))
			}
			if *p.NumCtx <= 0 {
				return nil, fail(key+".num_ctx", fmt.Errorf("%w: num_ctx must be positive, not %d", ErrInvalid, *p.NumCtx))
			}
			out.NumCtx = *p.NumCtx
		}
		if p.APIKeyEnv != nil {
			if t.KeyEnv == "" {
				return nil, fail(key+".api_key_env", fmt.Errorf("%w: api_key_env is for %s providers only", ErrInvalid, ts.names(false, func(t Type) bool { return t.KeyEnv != "" })))
			}
			// The value is not quoted: it may be a key written in the
			// wrong place.
			if !envName().MatchString(*p.APIKeyEnv) {
				return nil, fail(key+".api_key_env", fmt.Errorf("%w: api_key_env must name an environment variable (letters, digits and _), not hold the key", ErrInvalid))
			}
			out.APIKeyEnv = *p.APIKeyEnv
		}
		f.Providers[name] = out
	}
	f.MCP = make(map[string]MCPServer, len(r.MCP))
	for _, name := range sortedKeys(r.MCP) {
		s, err := parseMCP(name, r.MCP[name], fail)
		if err != nil {
			return nil, err
		}
		f.MCP[name] = s
	}
	if f.Model != "" {
		if _, _, err := ts.splitModel(f, f.Model); err != nil {
			return nil, fail("model", err)
		}
	}
	return f, nil
}

// envName is compiled when first needed, not before main: only a
// settings file that names variables needs it.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// decodeError turns an error of the TOML library into an *Error wrapping
// kind, or ErrUnknownKey for keys the harness does not know. A value of
// the wrong type is said in plain words, by what the key takes and what
// kinds (the kind of each key's value, by dotted path) says it holds.
func decodeError(path string, err, kind error, kinds map[string]unstable.Kind) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 && kind != ErrSyntax {
		first := &strict.Errors[0]
		line, _ := first.Position()
		msg := "not a setting"
		if n := len(strict.Errors); n > 1 {
			msg += fmt.Sprintf(" (and %d more unknown keys)", n-1)
		}
		return &Error{Path: path, Line: line, Key: strings.Join(first.Key(), "."), Err: fmt.Errorf("%w: %s", ErrUnknownKey, msg)}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		k := strings.Join(de.Key(), ".")
		if kind != ErrSyntax {
			if msg, ok := mismatch(de.Key(), kinds[k]); ok {
				return &Error{Path: path, Line: line, Key: k, Err: fmt.Errorf("%w: %s", kind, msg)}
			}
		}
		return &Error{Path: path, Line: line, Key: k, Err: fmt.Errorf("%w: %s", kind, strings.TrimPrefix(de.Error(), "toml: "))}
	}
	return &Error{Path: path, Err: fmt.Errorf("%w: %w", kind, err)}
}

// index records in lines the line of every key of the document, by dotted
// path, table headers included, and in kinds the kind of each key's value.
func index(data []byte, lines map[string]int, kinds map[string]unstable.Kind) error {
	p := unstable.Parser{}
	p.Reset(data)
	var table []string
	set := func(parts []string, line int) {
		for i := range parts {
			k := strings.Join(parts[:i+1], ".")
			if _, ok := lines[k]; !ok {
				lines[k] = line
			}
		}
	}
	var keyval func(prefix []string, n *unstable.Node)
	keyval = func(prefix []string, n *unstable.Node) {
		parts, line := key(&p, n)
		full := append(append([]string(nil), prefix...), parts...)
		set(full, line)
		v := n.Value()
		kinds[strings.Join(full, ".")] = v.Kind
		if v.Kind == unstable.InlineTable {
			it := v.Children()
			for it.Next() {
				if c := it.Node(); c.Kind == unstable.KeyValue {
					keyval(full, c)
				}
			}
		}
	}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var line int
			table, line = key(&p, e)
			set(table, line)
			kinds[strings.Join(table, ".")] = unstable.Table
		case unstable.KeyValue:
			keyval(table, e)
		}
	}
	return p.Error()
}

// key returns the parts of the key of a table header or key-value node,
// and the line it starts on.
func key(p *unstable.Parser, n *unstable.Node) ([]string, int) {
	var parts []string
	line := 0
	it := n.Key()
	for it.Next() {
		k := it.Node()
		if line == 0 {
			line = p.Shape(k.Raw).Start.Line
		}
		parts = append(parts, string(k.Data))
	}
	return parts, line
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
