package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sync"
	"time"

	"harness/fence"
)

// MCPServer is an MCP server as the file declares it, under [mcp.NAME]:
// a program to start and speak to over its standard input and output
// (Command, Args, Env), or an address to speak streamable HTTP to (URL).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	// Env is the whole environment of the program: nothing of the
	// harness's own environment is added to it.
	Env map[string]string
	URL string
	// Enabled says whether a chat starts the server when no --mcp flag
	// names the servers of the run; it is true unless the file says
	// enabled = false.
	Enabled bool
	// Tools, when not nil, are the only tools of the server the model is
	// given; nil gives all of them.
	Tools []string
	// Timeout bounds the start of the server and each call of its tools;
	// 0 when the file does not set it (the caller's default applies).
	Timeout time.Duration
}

type rawMCP struct {
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	URL     string            `toml:"url"`
	Enabled *bool             `toml:"enabled"`
	Tools   []string          `toml:"tools"`
	Timeout string            `toml:"timeout"`
}

// mcpName is what a server's name may hold: no dot, since the model
// calls its tools NAME.TOOL, nor anything a shell or a terminal treats
// specially.
var mcpName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// parseMCP checks the [mcp.NAME] table of server name; fail makes the
// error of a key under it.
func parseMCP(name string, r rawMCP, fail func(key string, err error) error) (MCPServer, error) {
	key := "mcp." + name
	s := MCPServer{Name: name, Command: r.Command, Args: r.Args, URL: r.URL, Enabled: r.Enabled == nil || *r.Enabled, Tools: r.Tools}
	if !mcpName().MatchString(name) {
		return s, fail(key, fmt.Errorf("%w: a server's name is made of letters, digits, - and _ (its tools are called NAME.TOOL)", ErrInvalid))
	}
	switch {
	case r.Command == "" && r.URL == "":
		return s, fail(key, fmt.Errorf("%w: command or url is missing: give the program to start (command = \"...\") or the server's address (url = \"http://...\")", ErrInvalid))
	case r.Command != "" && r.URL != "":
		return s, fail(key+".url", fmt.Errorf("%w: a server has a command or a url, not both", ErrInvalid))
	}
	if r.URL != "" {
		if r.Args != nil {
			return s, fail(key+".args", fmt.Errorf("%w: args are for a server started by command", ErrInvalid))
		}
		if r.Env != nil {
			return s, fail(key+".env", fmt.Errorf("%w: env is for a server started by command", ErrInvalid))
		}
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return s, fail(key+".url", fmt.Errorf("%w: want an http or https address, such as http://127.0.0.1:8080/mcp", ErrInvalid))
		}
		if u.User != nil {
			return s, fail(key+".url", fmt.Errorf("%w: the file holds no passwords: the url must not name a user", ErrInvalid))
		}
	}
	for _, a := range r.Args {
		if what := fence.Leak(a); what != "" {
			return s, fail(key+".args", fmt.Errorf("%w: the file holds no secrets, and an argument looks like %s", ErrInvalid, what))
		}
	}
	if what := fence.Leak(r.URL); what != "" {
		return s, fail(key+".url", fmt.Errorf("%w: the file holds no secrets, and the url looks like it holds %s", ErrInvalid, what))
	}
	s.Env = make(map[string]string, len(r.Env))
	for _, v := range sortedKeys(r.Env) {
		value := r.Env[v]
		switch {
		case !envName().MatchString(v):
			return s, fail(key+".env", fmt.Errorf("%w: %q is not the name of an environment variable (letters, digits and _)", ErrInvalid, v))
		case fence.SecretVar(v):
			return s, fail(key+".env."+v, fmt.Errorf("%w: the file holds no secrets, and %s is named like one", ErrInvalid, v))
		case fence.Leak(value) != "":
			return s, fail(key+".env."+v, fmt.Errorf("%w: the file holds no secrets, and this value looks like %s", ErrInvalid, fence.Leak(value)))
		}
		s.Env[v] = value
	}
	for i, t := range r.Tools {
		if t == "" || slices.Contains(r.Tools[:i], t) {
			return s, fail(key+".tools", fmt.Errorf("%w: a tool is named twice, or with an empty name", ErrInvalid))
		}
	}
	if r.Timeout != "" {
		d, err := time.ParseDuration(r.Timeout)
		if err != nil || d <= 0 {
			return s, fail(key+".timeout", fmt.Errorf("%w: want a positive duration, such as \"30s\" or \"2m\", not %q", ErrInvalid, r.Timeout))
		}
		s.Timeout = d
	}
	return s, nil
}

// MCPNames returns the names of the MCP servers the file declares,
// sorted.
func (f *File) MCPNames() []string {
	if f == nil {
		return nil
	}
	return sortedKeys(f.MCP)
}
