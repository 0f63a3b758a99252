package tools_test

import (
	"context"
	"fmt"
	"strings"

	"harness/loop"
	"harness/protocol"
	"harness/tools"
)

var _ loop.Tools = (*tools.Set)(nil)

func ExampleNew() {
	type shoutArgs struct {
		Text  string `arg:"text" help:"What to shout"`
		Times int    `arg:"times,optional" help:"How many times (default 1)"`
	}
	shout := tools.New("shout", "Shout some text.", false, func(ctx context.Context, a shoutArgs) (string, error) {
		if a.Text == "" {
			return "", fmt.Errorf("text is empty; give something to shout")
		}
		return strings.TrimSpace(strings.Repeat(strings.ToUpper(a.Text)+"! ", max(a.Times, 1))), nil
	})
	for _, a := range shout.Spec().Args {
		fmt.Printf("%s %s required=%v\n", a.Name, a.Type, a.Required)
	}

	set, err := tools.NewSet(shout)
	if err != nil {
		panic(err)
	}
	res := set.Run(context.Background(), protocol.Call{
		ID:   "call_1",
		Name: "shout",
		Args: map[string]any{"text": "hi", "times": int64(2)},
	})
	fmt.Println(res.Header())
	fmt.Println(res.Body)
	// Output:
	// text string required=true
	// times integer required=false
	// TOOL_RESULT call_1 shout SUCCESS
	// HI! HI!
}
