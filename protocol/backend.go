package protocol

import "slices"

// Setting names a setting a backend may honour, by its name among
// Ollama's model options.
type Setting string

const (
	NumCtx      Setting = "num_ctx"     // the context window, in tokens
	NumPredict  Setting = "num_predict" // the most tokens one reply may have
	Temperature Setting = "temperature" // the sampling temperature
	Seed        Setting = "seed"        // the sampling seed
	Stop        Setting = "stop"        // Request.Stop: where generation ends
)

// Backend is what a model backend says about itself as a run uses it, so
// that the harness can tell the user what is in use and which of the
// settings asked for it will ignore.
type Backend struct {
	// Name names the kind of backend: "ollama", "fake".
	Name string
	// Model names the model in use: a model's name, or a script's file.
	Model string
	// Settings lists the settings the backend honours; it ignores the
	// others.
	Settings []Setting
	// Options holds the settings the backend was configured with, by
	// name, with the values every request carries; settings left to the
	// backend's default, and Request.Stop, are not in it.
	Options map[string]any
}

// Honours reports whether the backend applies setting s.
func (b Backend) Honours(s Setting) bool { return slices.Contains(b.Settings, s) }
