package openai_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"harness/fakemodel"
	"harness/openai"
	"harness/protocol"
)

func ExampleModel_Chat() {
	// A scripted model served over the OpenAI API stands in for a real server.
	script, _ := fakemodel.Parse("demo.fake", []byte(">>> expect=\"what is here\" think=\"I should look.\"\nTOOL_CALL {\"name\":\"list_files\",\"arguments\":{}}\n"))
	srv := httptest.NewServer(fakemodel.NewServer(script, fakemodel.WithModelName("qwen3-8b")).Handler())
	defer srv.Close()

	base, err := openai.ParseBaseURL(srv.URL) // /v1 is added
	if err != nil {
		fmt.Println(err)
		return
	}
	m := openai.New(base, "qwen3-8b", openai.Options{APIKey: "not-needed-here", KeyVar: "LMSTUDIO_KEY"})
	reply, err := m.Chat(context.Background(), protocol.Request{
		Messages: []protocol.Message{{Role: protocol.User, Content: "what is here?"}},
		Stop:     protocol.StopSequences(),
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Content)
	fmt.Println("thinking:", reply.Thinking)
	fmt.Println("done:", reply.DoneReason, "usage known:", reply.Usage.Known)
	// Output:
	// TOOL_CALL {"name":"list_files","arguments":{}}
	// thinking: I should look.
	// done: stop usage known: true
}
