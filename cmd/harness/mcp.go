package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"harness/config"
	"harness/mcp"
	"harness/mcp/mcptest"
	"harness/xdg"
)

// mcpFlags choose the MCP servers of a run among those config.toml
// declares.
type mcpFlags struct {
	MCP   []string `name:"mcp" placeholder:"NAME" group:"MCP" help:"Use the MCP server NAME of config.toml in this run, and only the servers so named, enabled or not. Repeatable."`
	NoMCP bool     `name:"no-mcp" group:"MCP" help:"Use no MCP server in this run."`

	named string // what named the servers, for errors: "" for --mcp
}

// chosen returns the servers of the run as the flags and the settings
// file say: those --mcp names, none with --no-mcp, else the enabled ones.
// file is the settings file, when it was read already (nil: it is read
// here).
func (m *mcpFlags) chosen(dirs xdg.Dirs, file *config.File) ([]config.MCPServer, error) {
	if m.NoMCP && len(m.MCP) > 0 {
		return nil, fmt.Errorf("--mcp and --no-mcp: give one")
	}
	if m.NoMCP {
		return nil, nil
	}
	if file == nil {
		var err error
		if file, err = settingsFile(dirs); err != nil {
			return nil, err
		}
	}
	names := file.MCPNames()
	var out []config.MCPServer
	for _, n := range m.MCP {
		if !slices.Contains(names, n) {
			known := "config.toml declares none"
			if len(names) > 0 {
				known = "config.toml declares " + strings.Join(names, ", ")
			}
			what := m.named
			if what == "" {
				what = "--mcp"
			}
			return nil, fmt.Errorf("%s: no MCP server %q: %s (as [mcp.NAME])", what, n, known)
		}
	}
	for _, n := range names {
		s := file.MCP[n]
		if len(m.MCP) > 0 && slices.Contains(m.MCP, n) || len(m.MCP) == 0 && s.Enabled {
			out = append(out, s)
		}
	}
	return out, nil
}

// settingsFile loads config.toml; without a settings folder there is none.
func settingsFile(dirs xdg.Dirs) (*config.File, error) {
	path, err := config.Path(dirs)
	if err != nil {
		return &config.File{}, nil
	}
	return backendTypes().Load(path)
}

// startMCP starts the chosen servers (of file, nil to read it), their
// programs in the workspace root, and says on log what became of each:
// the user must know that a server runs outside the sandbox.
func (m *mcpFlags) startMCP(ctx context.Context, dirs xdg.Dirs, file *config.File, workspace string, log io.Writer) (*mcp.Servers, error) {
	chosen, err := m.chosen(dirs, file)
	if err != nil || len(chosen) == 0 {
		return nil, err
	}
	root, err := filepath.Abs(workspace)
	if err != nil {
		return nil, err
	}
	servers := make([]mcp.Server, len(chosen))
	for i, s := range chosen {
		servers[i] = mcp.Server{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Tools: s.Tools, Timeout: s.Timeout, Dir: root}
	}
	ss := mcp.Start(ctx, servers)
	for _, st := range ss.Status() {
		fmt.Fprintln(log, "mcp: "+st.StartNote())
	}
	return ss, nil
}

// mcpCmd is harness mcp: the MCP servers config.toml declares.
type mcpCmd struct {
	List       mcpListCmd       `cmd:"" default:"withargs" help:"Start the MCP servers of config.toml (the enabled ones, or those named), and show whether each started and its tools with their arguments."`
	TestServer mcpTestServerCmd `cmd:"" name:"test-server" hidden:"" help:"Serve the tests' MCP server over stdin and stdout."`
}

type mcpListCmd struct {
	Names     []string `arg:"" optional:"" name:"NAME" help:"Servers to show, enabled or not (default: the enabled ones)."`
	Workspace string   `short:"w" default:"." placeholder:"DIR" help:"Folder the servers' programs start in."`
}

func (c *mcpListCmd) Run(ctx context.Context, std stdio, dirs xdg.Dirs) error {
	file, err := settingsFile(dirs)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	if len(file.MCPNames()) == 0 {
		fmt.Fprintln(std.out, "No MCP servers: declare them in config.toml as [mcp.NAME] (see the README).")
		return nil
	}
	flags := mcpFlags{MCP: c.Names, named: "mcp list"}
	ss, err := flags.startMCP(ctx, dirs, file, c.Workspace, io.Discard)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	var statuses []mcp.Status
	if ss != nil {
		defer ss.Close()
		statuses = ss.Status()
	}
	for _, n := range file.MCPNames() {
		i := slices.IndexFunc(statuses, func(st mcp.Status) bool { return st.Server.Name == n })
		if i < 0 {
			fmt.Fprintf(std.out, "%s: not started (enabled = false; harness mcp list %s starts it)\n\n", n, n)
			continue
		}
		if err := statuses[i].Write(std.out); err != nil {
			return err
		}
	}
	return nil
}

type mcpTestServerCmd struct{}

func (mcpTestServerCmd) Run(ctx context.Context) error {
	return mcptest.Serve(ctx, mcptest.Options{Process: os.Getenv("MCPTEST_PROCESS") == "1"})
}
