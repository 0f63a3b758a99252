package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"harness/fakemodel"
)

type fakeOllamaCmd struct {
	Script string `required:"" placeholder:"FILE" help:"Fake-model script to serve."`
	Addr   string `default:"127.0.0.1:0" help:"Address to listen on; port 0 picks a free one."`
	Model  string `default:"fake" help:"Model name the server answers to; others get Ollama's 404."`
	Log    string `placeholder:"FILE" help:"Append each chat request received to FILE as a JSON line."`
}

// Run serves until interrupted. It prints the address it listens on, alone
// on a line of stdout, ready for OLLAMA_HOST or --host.
func (c *fakeOllamaCmd) Run(ctx context.Context, std stdio) error {
	script, err := fakemodel.Load(c.Script)
	if err != nil {
		return &exitCodeError{code: exitUsage, err: err}
	}
	opts := []fakemodel.Option{fakemodel.WithModelName(c.Model)}
	if c.Log != "" {
		f, err := os.OpenFile(c.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		opts = append(opts, fakemodel.WithLog(f))
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintln(std.out, ln.Addr().String())
	if f, ok := std.out.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	fmt.Fprintf(std.err, "fake-ollama: serving %s as model %q at http://%s; use it with: harness --host %s --model %s\n",
		c.Script, c.Model, ln.Addr(), ln.Addr(), c.Model)
	srv := fakemodel.NewServer(script, opts...)
	return srv.Serve(ctx, ln)
}
