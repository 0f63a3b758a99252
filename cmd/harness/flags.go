package main

import (
	"harness/protocol"
	"slices"
	"time"

	"github.com/alecthomas/kong"
)

// workspaceFlags choose the folder the tools work in and what they say.
type workspaceFlags struct {
	Workspace string   `short:"w" default:"." placeholder:"DIR"`
	Lie       []string `placeholder:"MODE"`
	Tools     *string  `placeholder:"LIST"`
}

// help is the help of each flag of workspaceFlags, by field (see flagHelper).
func (workspaceFlags) help(field string) string {
	switch field {
	case "Workspace":
		return "Folder the tools may read and change; nothing outside it is reachable."
	case "Lie":
		return "Make the tools lie, to see that the model believes them: joke (read_file returns a joke), invent (list_files adds files that do not exist), ext:FROM=TO (e.g. ext:.go=.js renames extensions). Repeatable; files are never renamed, and the terminal says what each lie changed."
	case "Tools":
		return "Give the model only these tools, comma-separated (read_file, list_files, edit_file, write_file, bash, read_output, agent, and those of MCP servers as SERVER.TOOL); none, or \"\", for a plain chat. Default: all."
	}
	return ""
}

// modelFlags choose the model and how it is asked.
type modelFlags struct {
	providerFlags `embed:""`
	MaxTokens     int      `placeholder:"N"`
	Temperature   *float64 `placeholder:"T"`
	Seed          *int     `placeholder:"N"`
	Fake          string   `placeholder:"FILE"`
}

// help is the help of each flag of modelFlags, by field (see flagHelper).
func (modelFlags) help(field string) string {
	switch field {
	case "MaxTokens":
		return "Most tokens one reply may have (Ollama's num_predict, OpenAI's max_tokens); a reply cut there has its calls refused, not run."
	case "Temperature":
		return "Sampling temperature (default: the model's own)."
	case "Seed":
		return "Sampling seed, for repeatable replies."
	case "Fake":
		return "Use the scripted fake model in FILE instead of a server (see the fakemodel package for the format)."
	}
	return ""
}

// sessionFlags say whether the conversation is saved, and which saved one
// it continues.
type sessionFlags struct {
	Continue  bool   `short:"c" xor:"resume"`
	Resume    string `placeholder:"ID" xor:"resume"`
	NoSession bool
}

// help is the help of each flag of sessionFlags, by field (see flagHelper).
func (sessionFlags) help(field string) string {
	switch field {
	case "Continue":
		return "Continue the most recent session of this workspace (in the REPL, or for one turn with -p)."
	case "Resume":
		return "Continue the session ID, or the one saved under that name (harness sessions lists them)."
	case "NoSession":
		return "Save nothing of this conversation; with -c or --resume, continue a session without adding to it."
	}
	return ""
}

type chatCmd struct {
	Prompt         promptText `short:"p" placeholder:"PROMPT"`
	Output         string     `default:"text" enum:"text,json,stream-json" placeholder:"FORMAT"`
	Record         string     `placeholder:"FILE"`
	TestPattern    string     `placeholder:"REGEXP"`
	Compact        bool       `default:"true" negatable:""`
	ShowWire       bool
	Parser         string `default:"tolerant" enum:"tolerant,strict"`
	sessionFlags   `embed:"" group:"Sessions"`
	workspaceFlags `embed:""`
	modelFlags     `embed:""`
	budgetFlags    `embed:"" group:"Limits"`
	safetyFlags    `embed:"" group:"Safety"`
	mcpFlags       `embed:""`
}

// help is the help of each flag of chatCmd, by field (see flagHelper).
func (chatCmd) help(field string) string {
	switch field {
	case "Prompt":
		return "Run one turn and exit: the answer goes to stdout, everything else to stderr. Exit codes: 0 answer, 1 error, 2 bad usage, 3 a limit ended the turn, 130 interrupted."
	case "Output":
		return "What -p writes to stdout: text, the answer alone; json (or stream-json, the same), one JSON object a line as the run goes (its start, each step, reply, call, result, approval and compaction, the report) and last the answer with the exit code (the schema is in the README). Only with -p."
	case "Record":
		return "Append a record of the run to FILE, one JSON object a line, written as it happens (read it with: harness replay FILE). A new FILE is made readable by you alone (0600), as it holds everything the model read; an existing one keeps its mode."
	case "TestPattern":
		return "Command lines matching this count as test runs in the turn report (by default, or when empty, a test command at the start of the line or after && or ;)."
	case "Compact":
		return "Keep the conversation inside --num-ctx: mask old tool results, then have the model summarize older turns (--no-compact: the server refuses a request that does not fit, and the turn ends)."
	case "ShowWire":
		return "Show every message exactly as sent to and received from the model, with its direction, role and size (stderr with -p)."
	case "Parser":
		return "How replies are read: tolerant forgives prose around calls, fences and the like; strict runs a call only when it is the whole reply, as the simplest harness does."
	}
	return ""
}

// budgetFlags are the limits that stop a run the model would not stop, each
// in its own unit. For the run budgets, 0 turns one off; the per-turn
// limits fall back to their defaults.
type budgetFlags struct {
	MaxSteps        int           `default:"25"`
	MaxFormatErrors int           `default:"3"`
	MaxModelCalls   int           `default:"200"`
	MaxTime         time.Duration `default:"30m"`
	MaxOutputTokens int           `default:"200000"`
	MaxRepeats      int           `default:"3"`
	AgentMaxSteps   int           `default:"15"`
}

// help is the help of each flag of budgetFlags, by field (see flagHelper).
func (budgetFlags) help(field string) string {
	switch field {
	case "MaxSteps":
		return "Most model calls in one turn (0 means the default, 25: a turn always has a limit)."
	case "MaxFormatErrors":
		return "Most replies in a row with a malformed tool call (0 means the default, 3)."
	case "MaxModelCalls":
		return "Most model calls in the run (all turns; 0: no limit)."
	case "MaxTime":
		return "Most wall-clock time the run may spend in turns (waiting at the prompt does not count); a model call or tool still running then is interrupted (0: no limit)."
	case "MaxOutputTokens":
		return "Most output tokens the backend may report for the run (0: no limit)."
	case "MaxRepeats":
		return "Stop when the same call with the same arguments gets the same result this many times within the last 8 calls (or the last N, when N is over 8; 0: no limit)."
	case "AgentMaxSteps":
		return "Most model calls in the turn of a helper that the agent tool starts; its calls, time and tokens count in the run's limits too."
	}
	return ""
}

// flagsGiven names the flags given on the command line, as they were
// given; flags set by their environment variable or default are not.
func flagsGiven(k *kong.Context) []string {
	var names []string
	for _, p := range k.Path {
		if p.Flag != nil && !p.Resolved {
			names = append(names, p.Flag.Name)
		}
	}
	return names
}

// flagSetting pairs a model flag with the backend setting it sets.
type flagSetting struct {
	flag    string
	setting protocol.Setting
	// still says what the flag does when the backend ignores the
	// setting, or "" when it then does nothing.
	still string
}

// modelSettings lists the model flags that set a backend setting.
func modelSettings() []flagSetting {
	return []flagSetting{
		{"num-ctx", protocol.NumCtx, "the harness still keeps the conversation inside that many tokens; set the server's own context size to match"},
		{"max-tokens", protocol.NumPredict, ""},
		{"temperature", protocol.Temperature, ""},
		{"seed", protocol.Seed, ""},
	}
}

// settingsOf returns the backend settings of flags.
func settingsOf(flags []flagSetting) []protocol.Setting {
	var out []protocol.Setting
	for _, fs := range flags {
		out = append(out, fs.setting)
	}
	return out
}

// ignored returns the model flags among given whose setting b ignores.
func ignored(b protocol.Backend, given []string) []flagSetting {
	var out []flagSetting
	for _, fs := range modelSettings() {
		if slices.Contains(given, fs.flag) && !b.Honours(fs.setting) {
			out = append(out, fs)
		}
	}
	return out
}

// testPattern is the default --test-pattern: a test command at the start of
// the line or after && or ;, so that "echo go test" is no test run. It is
// not given to the parser as a variable for the flag's tag: the parser
// expands every variable once for every flag, at every start.
const testPattern = `(^|&&|;)\s*(go test|cargo test|pytest|python3? -m (pytest|unittest))\b`
