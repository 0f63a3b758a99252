package fakemodel_test

import (
	"context"
	"errors"
	"fmt"

	"harness/fakemodel"
	"harness/protocol"
)

func Example() {
	script, err := fakemodel.Parse("demo.txt", []byte(`# A model that reads a file, then answers.
>>> expect="fix the typo" role=user
Let me look.
TOOL_CALL {"name":"read","arguments":{"path":"README.md"}}
>>> expect="TOOL_RESULT call_1 read SUCCESS"
The typo is on line 3.
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := fakemodel.New(script)
	ctx := context.Background()

	req := protocol.Request{Messages: []protocol.Message{{Role: protocol.User, Content: "Please fix the typo."}}}
	reply, _ := m.Chat(ctx, req, nil)
	fmt.Printf("%q\n", reply.Content)

	req.Messages = append(req.Messages,
		protocol.Message{Role: protocol.Assistant, Content: reply.Content},
		protocol.Message{Role: protocol.User, Content: "TOOL_RESULT call_1 read SUCCESS\n..."})
	reply, _ = m.Chat(ctx, req, nil)
	fmt.Printf("%q\n", reply.Content)

	_, err = m.Chat(ctx, req, nil)
	fmt.Println(errors.Is(err, fakemodel.ErrExhausted))
	// Output:
	// "Let me look.\nTOOL_CALL {\"name\":\"read\",\"arguments\":{\"path\":\"README.md\"}}"
	// "The typo is on line 3."
	// true
}

func ExampleParse_error() {
	_, err := fakemodel.Parse("demo.txt", []byte("# comment\n>>> expct=hello\nhi\n"))
	fmt.Println(err)
	// Output:
	// demo.txt:2: unknown attribute "expct"
}
