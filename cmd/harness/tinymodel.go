package main

import (
	"fmt"
	"path/filepath"

	"harness/fakemodel/tiny"
)

type tinyModelCmd struct {
	Out string `required:"" type:"path" placeholder:"DIR" help:"Folder to write the model file and its Modelfile into; created if missing."`
}

// Run writes the tiny model and says how to load it into Ollama.
func (c *tinyModelCmd) Run(std stdio) error {
	if err := tiny.Write(c.Out); err != nil {
		return err
	}
	_, err := fmt.Fprintf(std.out, "wrote %s and %s\nload it into Ollama with:\n  ollama create tiny -f %s\n",
		filepath.Join(c.Out, tiny.GGUFName), filepath.Join(c.Out, tiny.ModelfileName),
		filepath.Join(c.Out, tiny.ModelfileName))
	return err
}
