// Command harness puts a local language model to work in a workspace
// through a plain-text tool protocol. Run `harness --help` for its use.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
