package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

// One turn of a harness, whole: a workspace with one file, the read_file
// tool, a scripted model that calls it and then answers, and the loop
// between them. The hook prints what happens at each point.
func ExampleAgent() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("Hello, world!\n"), 0o644)

	// The workspace bounds every path; read_file reads inside it only.
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	set, _ := tools.NewSet(tools.ReadFile(ws))

	// The model: each >>> starts the reply to the next request.
	script, _ := fakemodel.Parse("example.fake", []byte(`>>>
Let me look.
TOOL_CALL {"name":"read_file","arguments":{"path":"hello.txt"}}
>>> expect="Hello, world!"
The file says hello to the world.
`))

	// The system prompt is built from the tools; the loop owns the
	// conversation and runs the calls the replies hold.
	agent := loop.New(fakemodel.New(script), set, loop.Config{
		System: protocol.SystemPrompt(dir, set.Specs()),
	}, loop.Observe(func(e loop.Event) {
		switch e.Kind {
		case loop.StepStarted:
			fmt.Printf("step %d: %d messages go to the model\n", e.Step, len(e.Request.Messages))
		case loop.CallEnded:
			fmt.Printf("%s %s -> %q\n", e.Call.ID, e.Call.Name, e.Result.Body)
		}
	}))
	answer, err := agent.Turn(context.Background(), "What does hello.txt say?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answer:", answer)
	// Output:
	// step 1: 2 messages go to the model
	// call_1 read_file -> "Hello, world!\n"
	// step 2: 4 messages go to the model
	// answer: The file says hello to the world.
}
