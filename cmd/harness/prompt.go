package main

import (
	"context"
	"fmt"
	"harness/chat"
	"harness/xdg"
)

type promptCmd struct {
	workspaceFlags `embed:""`
	mcpFlags       `embed:""`
}

func (c *promptCmd) Run(ctx context.Context, std stdio, dirs xdg.Dirs) error {
	servers, err := c.startMCP(ctx, dirs, nil, c.Workspace, std.err)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	defer servers.Close()
	tb, err := c.tools(&safetyFlags{}, servers, nil)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	specs, err := c.specs(tb)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	system, _ := chat.SystemPrompt(tb.ws, c.mainSpecs(specs), dirs, std.err)
	_, err = fmt.Fprint(std.out, system)
	return err
}
