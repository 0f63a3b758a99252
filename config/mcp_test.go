package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"harness/config"
)

func TestParseMCP(t *testing.T) {
	doc := `[mcp.files]
command = "mcp-files"
args = ["--root", "/tmp"]
env = { PATH = "/usr/bin:/bin", LANG = "C" }
tools = ["read", "list"]
timeout = "10s"

[mcp.web]
url = "http://127.0.0.1:8080/mcp"
enabled = false
`
	f, err := types.Parse("config.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := config.MCPServer{Name: "files", Command: "mcp-files", Args: []string{"--root", "/tmp"}, Env: map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C"}, Enabled: true, Tools: []string{"read", "list"}, Timeout: 10 * time.Second}
	if got := f.MCP["files"]; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %+v\nwant    %+v", got, want)
	}
	if got := f.MCP["web"]; got.URL != "http://127.0.0.1:8080/mcp" || got.Enabled || got.Tools != nil || len(got.Env) != 0 {
		t.Errorf("web = %+v", got)
	}
	if got := f.MCPNames(); !reflect.DeepEqual(got, []string{"files", "web"}) {
		t.Errorf("MCPNames = %v", got)
	}
	if f.Line("mcp.web.enabled") != 10 {
		t.Errorf("line of mcp.web.enabled = %d", f.Line("mcp.web.enabled"))
	}
}

func TestParseMCPErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		is        error
		line      int
		key       string
		want      string
	}{
		{"neither", "[mcp.x]\nenabled = true\n", config.ErrInvalid, 1, "mcp.x", "command or url is missing"},
		{"both", "[mcp.x]\ncommand = \"a\"\nurl = \"http://h/mcp\"\n", config.ErrInvalid, 3, "mcp.x.url", "not both"},
		{"dot in name", "[mcp.\"a.b\"]\ncommand = \"a\"\n", config.ErrInvalid, 1, "mcp.a.b", "NAME.TOOL"},
		{"bad url", "[mcp.x]\nurl = \"ftp://h\"\n", config.ErrInvalid, 2, "mcp.x.url", "http or https"},
		{"password in url", "[mcp.x]\nurl = \"https://me:pw@h/mcp\"\n", config.ErrInvalid, 2, "mcp.x.url", "no passwords"},
		{"args with url", "[mcp.x]\nurl = \"http://h/mcp\"\nargs = [\"a\"]\n", config.ErrInvalid, 3, "mcp.x.args", "started by command"},
		{"secret env", "[mcp.x]\ncommand = \"a\"\nenv = { OPENAI_API_KEY = \"sk\" }\n", config.ErrInvalid, 3, "mcp.x.env.OPENAI_API_KEY", "no secrets"},
		{"secret value", "[mcp.x]\ncommand = \"a\"\n[mcp.x.env]\nX = \"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"\n", config.ErrInvalid, 4, "mcp.x.env.X", "looks like"},
		{"secret arg", "[mcp.x]\ncommand = \"a\"\nargs = [\"--token\", \"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\"]\n", config.ErrInvalid, 3, "mcp.x.args", "looks like"},
		{"bad env name", "[mcp.x]\ncommand = \"a\"\nenv = { \"A-B\" = \"1\" }\n", config.ErrInvalid, 3, "mcp.x.env", "not the name"},
		{"bad timeout", "[mcp.x]\ncommand = \"a\"\ntimeout = \"soon\"\n", config.ErrInvalid, 3, "mcp.x.timeout", "positive duration"},
		{"tool twice", "[mcp.x]\ncommand = \"a\"\ntools = [\"t\", \"t\"]\n", config.ErrInvalid, 3, "mcp.x.tools", "twice"},
		{"unknown key", "[mcp.x]\ncommand = \"a\"\nallow = [\"t\"]\n", config.ErrUnknownKey, 3, "mcp.x.allow", ""},
		{"args not strings", "[mcp.x]\ncommand = \"a\"\nargs = [1]\n", config.ErrInvalid, 3, "mcp.x.args", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := types.Parse("config.toml", []byte(tt.doc))
			var e *config.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want a *config.Error", err, err)
			}
			if !errors.Is(err, tt.is) || e.Line != tt.line || e.Key != tt.key {
				t.Errorf("err = %v\n(line %d, key %q), want %v at line %d, key %q", err, e.Line, e.Key, tt.is, tt.line, tt.key)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q in it", err, tt.want)
			}
		})
	}
}
