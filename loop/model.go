package loop

import (
	"context"

	"harness/protocol"
)

// Model produces the next reply of a conversation. Each backend's adapter
// (Ollama, OpenAI-compatible) and the scripted fake model satisfy it.
//
// Chat streams the reply through stream (which may be nil) as it arrives
// and returns the complete reply. It returns an error only when no complete
// reply could be had; a reply cut off by an output limit is a reply with
// DoneReason protocol.DoneLength, not an error.
type Model interface {
	Chat(ctx context.Context, req protocol.Request, stream func(protocol.Delta)) (protocol.Reply, error)
}

// Tools runs the calls the loop has accepted. Specs says what the model may
// call; Run is only given calls that passed protocol.Validate against Specs.
// A tool that fails reports it in the Result (OK false); Run has no error
// of its own to return.
type Tools interface {
	Specs() []protocol.ToolSpec
	Run(ctx context.Context, call protocol.Call) protocol.Result
}

// CallWrites may be implemented by Tools in which whether a call may change
// the workspace depends on the call, not only on its tool: a sub-agent
// that is given writing tools or not. The loop then asks Writes of each
// call it accepts, instead of reading the tool's spec, to schedule the
// call (calls that only read run together, one that may write alone) and
// in its events.
type CallWrites interface {
	Writes(call protocol.Call) bool
}
