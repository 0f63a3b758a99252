package ollama

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/ollama/ollama/api"

	"harness/protocol"
)

// TestSentBody sends conversations that grow, go back and change, and
// checks each body against json.Marshal of the whole request, and that a
// body made earlier still reads as it did.
func TestSentBody(t *testing.T) {
	msg := func(role protocol.Role, content string) protocol.Message {
		return protocol.Message{Role: role, Content: content}
	}
	sys, u1, a1 := msg(protocol.System, "You call tools."), msg(protocol.User, "read a.go"), msg(protocol.Assistant, "TOOL_CALL {\"name\":\"read_file\"}")
	r1, u2 := msg(protocol.User, "TOOL_RESULT call_1 read_file SUCCESS\n<a> & \"b\" \u2028 \\ é\n"), msg(protocol.User, "something else")
	yes, no := true, false
	req := api.ChatRequest{
		Model:    `tricky"messages":[name`,
		Stream:   &yes,
		Truncate: &no,
		Shift:    &no,
		Options:  map[string]any{"num_ctx": 4096, "stop": []string{`"messages":[`}},
	}
	var s sent
	frame, err := frameOf(req)
	if err != nil {
		t.Fatal(err)
	}
	var earlier []body
	var earlierBytes [][]byte
	for i, conv := range [][]protocol.Message{
		{sys}, {sys, u1}, {sys, u1, a1, r1}, {sys, u1}, {sys, u2}, {sys, u2, a1}, {}, {sys, u1, a1, r1, a1, r1},
	} {
		b, err := s.framed(frame, conv)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(b.reader())
		if err != nil {
			t.Fatal(err)
		}
		whole := req
		whole.Messages = make([]api.Message, len(conv))
		for j, m := range conv {
			whole.Messages[j] = api.Message{Role: string(m.Role), Content: m.Content}
		}
		want, err := json.Marshal(whole)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || b.size() != int64(len(want)) {
			t.Fatalf("conversation %d: body (%d bytes said)\n%s\nwant\n%s", i, b.size(), got, want)
		}
		// One Read takes all it has room for: net/http writes each to the
		// connection.
		room := make([]byte, len(want)+1)
		if n, err := b.reader().Read(room); n != len(want) || err != nil {
			t.Fatalf("conversation %d: one Read of %d bytes read %d (%v)", i, len(room), n, err)
		}
		var copied bytes.Buffer // through WriteTo
		if n, err := io.Copy(&copied, b.reader()); err != nil || n != int64(len(want)) || !bytes.Equal(copied.Bytes(), want) {
			t.Fatalf("conversation %d: body written %d bytes (%v):\n%s", i, n, err, copied.Bytes())
		}
		earlier, earlierBytes = append(earlier, b), append(earlierBytes, got)
	}
	for i, b := range earlier {
		if got, _ := io.ReadAll(b.reader()); !bytes.Equal(got, earlierBytes[i]) {
			t.Errorf("body %d changed after later requests:\n%s\nwas\n%s", i, got, earlierBytes[i])
		}
	}
}
