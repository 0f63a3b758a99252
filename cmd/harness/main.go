// Command harness puts a local language model to work in a workspace
// through a plain-text tool protocol. Run `harness --help` for its use.
package main

import (
	"context"
	"fmt"
	"os"

	"harness/sandbox"
)

func main() {
	// Started by the sandbox to run a command under Landlock, this
	// program restricts itself and becomes the command: nothing else of
	// it runs. Launch returns only when it could not.
	if err := sandbox.Launch(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	ctx, exitCode := stopOnSignal(context.Background())
	os.Exit(exitCode(execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)))
}
