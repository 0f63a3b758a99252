package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"harness/fakemodel"
	"harness/loop"
	"harness/protocol"
	"harness/record"
	"harness/subagent"
	"harness/tools"
	"harness/window"
)

const (
	firstTurn = `>>> expect=go
Two at once.
TOOL_CALL {"name":"echo","arguments":{"text":"a"}}
TOOL_CALL {"name":"echo","arguments":{"text":"b"}}
>>> expect="TOOL_RESULT call_2 echo SUCCESS"
done
`
	secondTurn = `>>> expect=again
TOOL_CALL {"name":"echo","arguments":{"text":"c"}}
>>> expect="TOOL_RESULT call_3 echo SUCCESS"
done again
`
)

type echoArgs struct {
	Text string `arg:"text" help:"what to echo"`
}

func echoTools(t testing.TB) loop.Tools {
	t.Helper()
	set, err := tools.NewSet(tools.New("echo", "Echo text back.", false, func(_ context.Context, a echoArgs) (string, error) {
		return "echo: " + a.Text, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func model(t testing.TB, script string) loop.Model {
	t.Helper()
	s, err := fakemodel.Parse("test.fake", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return fakemodel.New(s)
}

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state", "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var start = record.Start{Version: "test", Model: "fake", Backend: "fake", Workspace: "/ws"}

// commits is a hook that keeps the Agent's state at every point where a
// session writes a complete step, in order.
type commits struct {
	agent  *loop.Agent
	states []loop.State
}

func (c *commits) Event(e loop.Event) error {
	if e.Origin == "" && (e.Kind == loop.StepStarted || e.Kind == loop.TurnEnded) {
		c.states = append(c.states, c.agent.State())
	}
	return nil
}

// run starts a saved conversation over script, runs a turn for each input
// and returns the writer, the agent and the states at each complete step.
func run(t *testing.T, s *Store, cfg loop.Config, script string, inputs ...string) (*Writer, *loop.Agent, *commits) {
	t.Helper()
	w := s.Create(start)
	c := &commits{}
	a := loop.New(model(t, script), echoTools(t), cfg, w, c)
	w.Follow(a)
	c.agent = a
	for _, in := range inputs {
		if _, err := a.Turn(context.Background(), in); err != nil {
			t.Fatalf("turn %q: %v", in, err)
		}
	}
	return w, a, c
}

func TestSavedStateIsTheAgents(t *testing.T) {
	s := openStore(t)
	w, a, _ := run(t, s, loop.Config{System: "SYSTEM"}, firstTurn+secondTurn, "go", "again")
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := a.State(); !reflect.DeepEqual(sv.State, want) {
		t.Fatalf("loaded state\n%+v\nwant\n%+v", sv.State, want)
	}
	if sv.Cut || sv.Dropped != 0 || sv.ID() != w.ID() || sv.Start.Workspace != "/ws" {
		t.Errorf("cut %v, dropped %d, id %q, start %+v", sv.Cut, sv.Dropped, sv.ID(), sv.Start)
	}
	if !sv.State.Usage.Known {
		t.Error("the last reply's usage was lost")
	}
	w.Close()
}

// TestResumedAgentSendsTheSameRequest: an Agent resumed from the file sends
// what the original sends when it goes on, and numbers calls on.
func TestResumedAgentSendsTheSameRequest(t *testing.T) {
	s := openStore(t)
	cfg := loop.Config{System: "SYSTEM"}
	w, a, _ := run(t, s, cfg, firstTurn+secondTurn, "go")
	w.Close()
	var sent []protocol.Request
	keep := loop.Observe(func(e loop.Event) {
		if e.Kind == loop.StepStarted {
			sent = append(sent, e.Request)
		}
	})
	w2, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	resumed, err := loop.Resume(model(t, secondTurn), echoTools(t), cfg, sv.State, w2, keep)
	if err != nil {
		t.Fatal(err)
	}
	w2.Follow(resumed)
	if _, err := resumed.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err) // the script expects call_3: call ids go on
	}
	if want := append(a.Messages(), protocol.Message{Role: protocol.User, Content: "again"}); !reflect.DeepEqual(sent[0].Messages, want) {
		t.Errorf("first request after resuming:\n%q\nwant\n%q", sent[0].Messages, want)
	}
	sv2, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := resumed.State(); !reflect.DeepEqual(sv2.State, want) {
		t.Errorf("after continuing, the file holds\n%+v\nwant\n%+v", sv2.State, want)
	}
}

// TestEveryPrefixReads is what a kill at any moment leaves: every prefix
// of a session file reads as the state of its last complete step, or as
// empty before the first.
func TestEveryPrefixReads(t *testing.T) {
	s := openStore(t)
	w, _, c := run(t, s, loop.Config{System: "SYSTEM"}, firstTurn+secondTurn, "go", "again")
	w.Close()
	data, err := os.ReadFile(s.Path(w.ID()))
	if err != nil {
		t.Fatal(err)
	}
	// ends[i] is where the line of commit i ends.
	var ends []int
	off := 0
	for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		off += len(line) + 1
		if strings.HasPrefix(line, `{"type":"request"`) || strings.HasPrefix(line, `{"type":"turn_end"`) {
			ends = append(ends, off)
		}
	}
	if len(ends) != len(c.states) {
		t.Fatalf("%d commit lines, %d commits", len(ends), len(c.states))
	}
	for n := 0; n <= len(data); n++ {
		sv, err := read(bytes.NewReader(data[:n]))
		// A commit line cut just before its newline is whole.
		done := 0
		for done < len(ends) && ends[done]-1 <= n {
			done++
		}
		if done == 0 {
			if !errors.Is(err, ErrEmpty) {
				t.Fatalf("prefix %d: %v, want ErrEmpty", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("prefix %d: %v", n, err)
		}
		if !reflect.DeepEqual(sv.State, c.states[done-1]) {
			t.Fatalf("prefix %d: state\n%+v\nwant commit %d\n%+v", n, sv.State, done-1, c.states[done-1])
		}
		last := data[bytes.LastIndexByte(data[:n], '\n')+1 : n]
		if cut := len(last) > 0 && !json.Valid(last); sv.Cut != cut {
			t.Fatalf("prefix %d: cut %v, want %v", n, sv.Cut, cut)
		}
	}
}

// TestContinueCutsAnIncompleteStep: continuing a session killed in the
// middle of a step cuts its incomplete end off the file before appending,
// so the file reads whole afterwards.
func TestContinueCutsAnIncompleteStep(t *testing.T) {
	s := openStore(t)
	cfg := loop.Config{System: "SYSTEM"}
	w, _, c := run(t, s, cfg, firstTurn, "go")
	w.Close()
	path := s.Path(w.ID())
	data, _ := os.ReadFile(path)
	// Keep the file up to half of the last step's first message line.
	end := bytes.LastIndex(data, []byte(`{"type":"request"`))
	end = bytes.Index(data[end:], []byte("\n")) + end + 1
	cut := end + bytes.Index(data[end:], []byte("\n"))/2
	if err := os.WriteFile(path, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	w2, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !sv.Cut || sv.Dropped != 0 || !reflect.DeepEqual(sv.State, c.states[1]) {
		t.Fatalf("cut %v, dropped %d, state %+v", sv.Cut, sv.Dropped, sv.State)
	}
	if fi, _ := os.Stat(path); fi.Size() != int64(end) {
		t.Errorf("file is %d bytes, want it cut back to %d", fi.Size(), end)
	}
	a, err := loop.Resume(model(t, secondTurn), echoTools(t), cfg, sv.State, w2)
	if err != nil {
		t.Fatal(err)
	}
	w2.Follow(a)
	if _, err := a.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	sv, err = s.Load(w.ID())
	if err != nil || sv.Cut || !reflect.DeepEqual(sv.State, a.State()) {
		t.Fatalf("after continuing: err %v, cut %v, state %+v", err, sv != nil && sv.Cut, sv)
	}
}

func TestDroppedLinesOfAnIncompleteStep(t *testing.T) {
	s := openStore(t)
	w, _, c := run(t, s, loop.Config{System: "SYSTEM"}, firstTurn, "go")
	w.Close()
	data, _ := os.ReadFile(s.Path(w.ID()))
	// Drop the last line (turn_end): the final answer's message line stays,
	// after the last complete step.
	data = data[:bytes.LastIndex(data[:len(data)-1], []byte("\n"))+1]
	sv, err := read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if sv.Cut || sv.Dropped != 1 || !reflect.DeepEqual(sv.State, c.states[1]) {
		t.Errorf("cut %v, dropped %d, state %+v", sv.Cut, sv.Dropped, sv.State)
	}
}

// compactor keeps the system prompt and the last message once the
// conversation has more than max messages.
type compactor struct{ max int }

func (c compactor) Compact(_ context.Context, conv loop.Conversation) ([]protocol.Message, bool, error) {
	if len(conv.Messages) <= c.max {
		return nil, false, nil
	}
	return []protocol.Message{conv.Messages[0], {Role: protocol.User, Content: "SUMMARY"}, conv.Messages[len(conv.Messages)-1]}, true, nil
}

func TestCompactionReplacesTheSavedConversation(t *testing.T) {
	s := openStore(t)
	script := `>>> expect=go
TOOL_CALL {"name":"echo","arguments":{"text":"a"}}
>>> expect="TOOL_RESULT call_1 echo SUCCESS"
done
>>> expect=again
TOOL_CALL {"name":"echo","arguments":{"text":"c"}}
>>> expect="TOOL_RESULT call_2 echo SUCCESS"
done again
`
	w, a, _ := run(t, s, loop.Config{System: "SYSTEM", Compactor: compactor{max: 4}}, script, "go", "again")
	w.Close()
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := a.State(); !reflect.DeepEqual(sv.State, want) {
		t.Fatalf("loaded\n%q\nwant\n%q", sv.State.Messages, want.Messages)
	}
	if !slices.Contains(sv.State.Messages, protocol.Message{Role: protocol.User, Content: "SUMMARY"}) {
		t.Errorf("the compaction is not in the saved conversation: %q", sv.State.Messages)
	}
	data, _ := os.ReadFile(s.Path(w.ID()))
	if !bytes.Contains(data, []byte(`"type":"replace"`)) {
		t.Error("no replace line")
	}
}

// TestFailedFirstStepIsTakenBack: a turn whose first step fails leaves the
// conversation as it was, and so does the session.
func TestFailedFirstStepIsTakenBack(t *testing.T) {
	s := openStore(t)
	w := s.Create(start)
	a := loop.New(model(t, ">>> expect=go\nhi\n"), echoTools(t), loop.Config{System: "SYSTEM"}, w)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Turn(context.Background(), "the script has no reply for this"); err == nil {
		t.Fatal("want the model's error")
	}
	w.Close()
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := a.State(); !reflect.DeepEqual(sv.State, want) {
		t.Fatalf("loaded\n%q\nwant\n%q", sv.State.Messages, want.Messages)
	}
}

// TestFailedFirstRequestLeavesNoFile: a new conversation whose first
// request fails leaves no session to list or continue; the turn after it
// starts the file, and the failed turn is not counted.
func TestFailedFirstRequestLeavesNoFile(t *testing.T) {
	s := openStore(t)
	w := s.Create(start)
	a := loop.New(model(t, ">>> expect=never\nx\n>>> expect=go\nhi\n"), echoTools(t), loop.Config{System: "SYSTEM"}, w)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "lost"); err == nil {
		t.Fatal("want the model's error")
	}
	if _, err := os.Stat(s.Path(w.ID())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a conversation with no completed step has a file: %v", err)
	}
	if infos, err := s.List(""); err != nil || len(infos) != 0 {
		t.Fatalf("listed %+v, %v", infos, err)
	}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	// A later turn whose first step fails is taken back, and not counted.
	if _, err := a.Turn(context.Background(), "the script has no reply for this"); err == nil {
		t.Fatal("want the model's error")
	}
	w.Close()
	infos, err := s.List("")
	if err != nil || len(infos) != 1 {
		t.Fatalf("listed %+v, %v", infos, err)
	}
	if infos[0].Turns != 1 || infos[0].Prompt != "go" {
		t.Errorf("listed %d turns, first prompt %q; want 1, \"go\"", infos[0].Turns, infos[0].Prompt)
	}
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := a.State(); !reflect.DeepEqual(sv.State, want) || want.Turn != 1 {
		t.Errorf("loaded\n%+v\nwant\n%+v", sv.State, want)
	}
}

// TestNotes: a note is saved as it is made, and read back until a turn
// that counts follows it; a turn taken back leaves it to tell; continuing
// the session keeps it.
func TestNotes(t *testing.T) {
	s := openStore(t)
	w := s.Create(start)
	if err := w.Note(0, "before any step"); err != nil {
		t.Fatal(err) // no file yet: kept nowhere, and no error
	}
	a := loop.New(model(t, ">>> expect=go\nhi\n"), echoTools(t), loop.Config{System: "SYSTEM"}, w)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	load := func() *Saved {
		t.Helper()
		sv, err := s.Load(w.ID())
		if err != nil {
			t.Fatal(err)
		}
		return sv
	}
	if err := w.Note(1, "one"); err != nil {
		t.Fatal(err)
	}
	if err := w.Note(1, "two"); err != nil {
		t.Fatal(err)
	}
	if got := load().Note; got != "one\ntwo" {
		t.Errorf("note %q, want both", got)
	}
	w.Close()

	w, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if sv.Note != "one\ntwo" {
		t.Errorf("continued with note %q", sv.Note)
	}
	a, err = loop.Resume(model(t, ">>> expect=never\nx\n>>> expect=\"one\\ntwo\\n\\nnext\"\nok\n"), echoTools(t), loop.Config{System: "SYSTEM"}, sv.State, w)
	if err != nil {
		t.Fatal(err)
	}
	w.Follow(a)
	if _, err := a.Turn(context.Background(), sv.Note+"\n\nlost"); err == nil {
		t.Fatal("want the model's error")
	}
	if got := load().Note; got != "one\ntwo" {
		t.Errorf("after a turn taken back, note %q, want it still to tell", got)
	}
	if _, err := a.Turn(context.Background(), sv.Note+"\n\nnext"); err != nil {
		t.Fatal(err)
	}
	if got := load().Note; got != "" {
		t.Errorf("after a turn that told it, note %q", got)
	}
	w.Close()
}

func TestNestedEventsAreNotSaved(t *testing.T) {
	s := openStore(t)
	w := s.Create(start)
	w.Follow(loop.New(model(t, ""), echoTools(t), loop.Config{System: "SYSTEM"}))
	for _, k := range []loop.Kind{loop.StepStarted, loop.TurnEnded} {
		if err := w.Event(loop.Event{Kind: k, Turn: 1, Step: 1, Origin: "call_1"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(s.Path(w.ID())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a nested conversation's events created the file: %v", err)
	}
}

func TestWriterWithoutSource(t *testing.T) {
	w := openStore(t).Create(start)
	if err := w.Event(loop.Event{Kind: loop.StepStarted}); !errors.Is(err, ErrNoSource) {
		t.Errorf("got %v, want ErrNoSource", err)
	}
}

func TestModes(t *testing.T) {
	s := openStore(t)
	w, _, _ := run(t, s, loop.Config{System: "SYSTEM"}, firstTurn, "go")
	w.Close()
	for path, want := range map[string]os.FileMode{s.Dir(): 0o700 | os.ModeDir, filepath.Dir(s.Dir()): 0o700 | os.ModeDir, s.Path(w.ID()): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
}

func TestOpenNamesTheFolder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	_, err := Open(filepath.Join(file, "sessions"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(file, "sessions")) {
		t.Errorf("got %v, want an error naming the folder", err)
	}
}

func TestContinueTwiceIsRefused(t *testing.T) {
	s := openStore(t)
	w, _, _ := run(t, s, loop.Config{System: "SYSTEM"}, firstTurn, "go")
	if _, _, err := s.Continue(w.ID()); !errors.Is(err, ErrInUse) && locking {
		t.Errorf("continuing a session its writer holds: %v, want ErrInUse", err)
	}
	w.Close()
	w2, _, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, _, err := s.Continue(w.ID()); !errors.Is(err, ErrInUse) && locking {
		t.Errorf("continuing a continued session: %v, want ErrInUse", err)
	}
}

// writeSession writes a session file by hand.
func writeSession(t *testing.T, s *Store, id, body string) {
	t.Helper()
	if err := os.WriteFile(s.Path(id), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownFormat(t *testing.T) {
	s := openStore(t)
	id := "20300101-000000-abcd"
	writeSession(t, s, id, `{"type":"start","format":2,"session":"`+id+`","workspace":"/ws","future":true}`+"\n{\"type\":\"hologram\"}\n")
	_, err := s.Load(id)
	var fe *record.FormatError
	if !errors.As(err, &fe) || fe.Format != 2 || !errors.Is(err, record.ErrFormat) {
		t.Fatalf("got %v, want a *record.FormatError", err)
	}
	if _, _, err := s.Continue(id); !errors.As(err, &fe) {
		t.Errorf("continue: %v", err)
	}
	infos, err := s.List("/ws")
	if err != nil || len(infos) != 1 || !errors.As(infos[0].Err, &fe) {
		t.Errorf("listed %+v, %v", infos, err)
	}
}

func TestInvalidSessions(t *testing.T) {
	const head = `{"type":"start","format":1,"session":"x","workspace":"/ws"}` + "\n"
	const sys = `{"type":"message","role":"system","content":"S"}` + "\n"
	for name, body := range map[string]string{
		"no start":         sys,
		"unknown role":     head + `{"type":"message","role":"tool","content":"S"}` + "\n",
		"keep too many":    head + sys + `{"type":"replace","keep":2}` + "\n",
		"miscounted":       head + sys + `{"type":"request","messages":2,"calls_so_far":0}` + "\n",
		"no call count":    head + sys + `{"type":"request","messages":1}` + "\n",
		"no system prompt": head + `{"type":"request","messages":0,"calls_so_far":0}` + "\n",
		"record line":      head + sys + `{"type":"reply","content":"hi"}` + "\n",
		"bad middle line":  head + "{oops\n" + sys,
		"second start":     head + head,
		"nothing complete": head + sys,
		"empty":            "",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(strings.NewReader(body))
			switch name {
			case "nothing complete", "empty":
				if !errors.Is(err, ErrEmpty) {
					t.Errorf("got %v, want ErrEmpty", err)
				}
			case "bad middle line":
				if err == nil || errors.Is(err, record.ErrCutLine) {
					t.Errorf("got %v", err)
				}
			default:
				if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "line ") {
					t.Errorf("got %v, want ErrInvalid naming the line", err)
				}
			}
		})
	}
}

func TestListLatestFind(t *testing.T) {
	s := openStore(t)
	var ids []string
	for i, ws := range []string{"/ws", "/ws", "/other"} {
		st := start
		st.Workspace = ws
		w := s.Create(st)
		a := loop.New(model(t, firstTurn+secondTurn), echoTools(t), loop.Config{System: "SYSTEM"}, w)
		w.Follow(a)
		for _, in := range []string{"go", "again"}[:i%2+1] {
			if _, err := a.Turn(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		ids = append(ids, w.ID())
	}
	// The first session changed last.
	old := time.Now().Add(-time.Hour)
	for i, id := range ids {
		os.Chtimes(s.Path(id), old, old.Add(time.Duration(-i)*time.Minute))
	}
	infos, err := s.List("/ws")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].Turns+infos[1].Turns != 3 || infos[0].Prompt != "go" || infos[0].Err != nil {
		t.Fatalf("listed %+v", infos)
	}
	if all, _ := s.List(""); len(all) != 3 {
		t.Errorf("listed %d sessions of every workspace, want 3", len(all))
	}
	latest, err := s.Latest("/ws")
	if err != nil || latest.ID != ids[0] {
		t.Errorf("latest %v, %v; want %s", latest.ID, err, ids[0])
	}
	if _, err := s.Latest("/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("latest of a workspace without sessions: %v", err)
	}

	sv, err := s.Load(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Save("before the refactor", sv.Start, sv.State)
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "before the refactor" || info.ID == ids[1] || info.Turns != sv.State.Turn {
		t.Errorf("saved %+v", info)
	}
	found, err := s.Find("/ws", "before the refactor")
	if err != nil || found.ID != info.ID {
		t.Errorf("found %+v, %v", found, err)
	}
	// The copy changed last, but the latest conversation is not a copy.
	if latest, err := s.Latest("/ws"); err != nil || latest.ID != ids[0] {
		t.Errorf("latest after a save: %v, %v; want %s", latest.ID, err, ids[0])
	}
	copied, err := s.Load(found.ID)
	if err != nil || !reflect.DeepEqual(copied.State, sv.State) {
		t.Errorf("the copy holds %+v, %v", copied, err)
	}
	if found, err := s.Find("/ws", ids[2]); err != nil || found.Workspace != "/other" {
		t.Errorf("an id finds the session of any workspace: %+v, %v", found, err)
	}
	for _, ref := range []string{"nothing by this name", "20300101-000000-abcd", "../../etc/passwd"} {
		if _, err := s.Find("/ws", ref); !errors.Is(err, ErrNotFound) {
			t.Errorf("find %q: %v", ref, err)
		}
	}
	if _, err := s.Load("../x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("load of a path: %v", err)
	}
}

// TestLastTurnReadsTheEnd: the turn count comes from the end of a file
// longer than the first window, and from a commit line that straddles it.
func TestLastTurnReadsTheEnd(t *testing.T) {
	big := strings.Repeat("x", 40<<10)
	for name, body := range map[string]string{
		"short":            `{"type":"turn_end","turn":3}` + "\n",
		"after big line":   `{"type":"turn_end","turn":4}` + "\n" + `{"type":"message","content":"` + big + `"}` + "\n",
		"cut last line":    `{"type":"request","turn":5}` + "\n" + `{"type":"turn_end","tu`,
		"none":             `{"type":"message"}` + "\n",
		"straddles window": `{"type":"request","turn":6,"pad":"` + big[:16<<10] + `"}` + "\n" + big[:10] + "\n",
	} {
		want := map[string]int{"short": 3, "after big line": 4, "cut last line": 5, "none": 0, "straddles window": 6}[name]
		turn, found := lastTurn(strings.NewReader(body), int64(len(body)))
		if turn != want || found != (want != 0) {
			t.Errorf("%s: turn %d (found %v), want %d", name, turn, found, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"start","format":1,"session":"x"}` + "\n" + `{"type":"message","role":"system","content":"S"}` + "\n" +
		`{"type":"replace","keep":1}` + "\n" + `{"type":"turn_end","turn":1,"messages":1,"calls_so_far":2}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sv, err := read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if sv.ID() == "" || sv.State.Calls < 0 || sv.State.Messages[0].Role != protocol.System {
			t.Errorf("read %+v", sv)
		}
	})
}

// TestContinueAfterACommitWithoutItsNewline: a file cut just before the
// newline of its last line ends in a whole line; continuing it must not
// glue the next line to it.
func TestContinueAfterACommitWithoutItsNewline(t *testing.T) {
	s := openStore(t)
	cfg := loop.Config{System: "SYSTEM"}
	w, a, _ := run(t, s, cfg, firstTurn, "go")
	w.Close()
	path := s.Path(w.ID())
	data, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.TrimSuffix(data, []byte("\n")), 0o600)
	w2, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if sv.Cut || !reflect.DeepEqual(sv.State, a.State()) {
		t.Fatalf("cut %v, state %+v", sv.Cut, sv.State)
	}
	b, err := loop.Resume(model(t, secondTurn), echoTools(t), cfg, sv.State, w2)
	if err != nil {
		t.Fatal(err)
	}
	w2.Follow(b)
	if _, err := b.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if sv, err := s.Load(w.ID()); err != nil || !reflect.DeepEqual(sv.State, b.State()) {
		t.Fatalf("after continuing: %v", err)
	}
}

type bigArgs struct {
	N int `arg:"n" help:"which"`
}

// TestWindowMaskingIsSaved runs the context window's own compactor, which
// rewrites old results in the middle of the conversation: the session holds
// the conversation as compacted, as the Agent does.
func TestWindowMaskingIsSaved(t *testing.T) {
	set, err := tools.NewSet(tools.New("big", "A big result.", false, func(_ context.Context, a bigArgs) (string, error) {
		return strings.Repeat(fmt.Sprintf("line %d of a long result\n", a.N), 120), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	for n := 1; n <= 8; n++ {
		fmt.Fprintf(&script, ">>>\nTOOL_CALL {\"name\":\"big\",\"arguments\":{\"n\":%d}}\n", n)
	}
	script.WriteString(">>>\ndone\n")
	s := openStore(t)
	w := s.Create(start)
	cfg := loop.Config{System: "SYSTEM", Window: 4000, Compactor: window.New(window.Config{Keep: 1})}
	a := loop.New(model(t, script.String()), set, cfg, w)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	masked := slices.ContainsFunc(a.Messages(), func(m protocol.Message) bool {
		_, body, _ := strings.Cut(m.Content, "\n")
		return window.IsMasked(body)
	})
	if !masked {
		t.Fatal("nothing was masked: the test no longer compacts")
	}
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sv.State, a.State()) {
		t.Fatalf("loaded\n%q\nwant\n%q", sv.State.Messages, a.State().Messages)
	}
}

// TestNestedLinesAreSkipped: lines of a nested conversation (with an
// origin) do not change the main one, nor its turn count.
func TestNestedLinesAreSkipped(t *testing.T) {
	s := openStore(t)
	id := "20260101-000000-abcd"
	writeSession(t, s, id, `{"type":"start","format":1,"session":"`+id+`","workspace":"/ws"}
{"type":"message","turn":1,"role":"system","content":"S"}
{"type":"message","turn":1,"role":"user","content":"go"}
{"type":"request","turn":1,"messages":2,"calls_so_far":0}
{"type":"message","turn":1,"origin":"call_1","role":"system","content":"HELPER"}
{"type":"request","turn":1,"origin":"call_1","messages":1,"calls_so_far":0}
{"type":"turn_end","turn":7,"origin":"call_1","messages":1,"calls_so_far":0}
`)
	sv, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(sv.State.Messages) != 2 || sv.State.Turn != 1 || sv.Dropped != 0 {
		t.Errorf("state %+v, dropped %d", sv.State, sv.Dropped)
	}
	if infos, _ := s.List("/ws"); len(infos) != 1 || infos[0].Turns != 1 {
		t.Errorf("listed %+v", infos)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"wip":                    true,
		"before the refactor":    true,
		"v1.2_fix-3":             true,
		"café":                   true,
		strings.Repeat("a", 64):  true,
		strings.Repeat("a", 65):  false,
		"":                       false,
		"a/b":                    false,
		`a\b`:                    false,
		".hidden":                false,
		"..":                     false,
		" padded":                false,
		"padded ":                false,
		"tab\there":              false,
		"new\nline":              false,
		"bad \xff utf8":          false,
		"20261201-101500-ab12":   false,
		"20261201-101500-ab12 x": true,
	} {
		err := CheckName(name)
		if ok != (err == nil) || (err != nil && !errors.Is(err, ErrName)) {
			t.Errorf("CheckName(%q) = %v, want ok %v", name, err, ok)
		}
	}
}

// TestSaveRefusesBadAndTakenNames: a name that is not valid, or that a
// session of the workspace already has, saves nothing; another
// workspace's session may have the same name.
func TestSaveRefusesBadAndTakenNames(t *testing.T) {
	s := openStore(t)
	st := loop.State{Messages: []protocol.Message{{Role: protocol.System, Content: "S"}, {Role: protocol.User, Content: "hi"}}, Turn: 1}
	first, err := s.Save("wip", start, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save("../wip", start, st); !errors.Is(err, ErrName) {
		t.Errorf("a bad name: %v, want ErrName", err)
	}
	_, err = s.Save("wip", start, st)
	var taken *TakenError
	if !errors.As(err, &taken) || !errors.Is(err, ErrNameTaken) || taken.ID != first.ID {
		t.Errorf("a taken name: %v, want a *TakenError naming %s", err, first.ID)
	}
	other := start
	other.Workspace = "/other"
	if _, err := s.Save("wip", other, st); err != nil {
		t.Errorf("the name in another workspace: %v", err)
	}
	if all, _ := s.List(""); len(all) != 2 {
		t.Errorf("%d sessions, want 2", len(all))
	}
}

// TestModelLines: a model named before the file exists goes into its start
// line; one named later is a line of its own, which a continued session
// keeps. Saved.Model is the last one named.
func TestModelLines(t *testing.T) {
	s := openStore(t)
	w := s.Create(start) // start names the model "fake"
	a := loop.New(model(t, firstTurn+secondTurn), echoTools(t), loop.Config{System: "SYSTEM"}, w)
	w.Follow(a)
	if err := w.Model(1, "fake", "early"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if sv, err := s.Load(w.ID()); err != nil || sv.Model != "early" || sv.Start.Model != "early" {
		t.Fatalf("before any model line: %+v, %v", sv, err)
	}
	if err := w.Model(2, "early", "late"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w2, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if sv.Model != "late" || sv.Start.Model != "early" || sv.Dropped != 0 || !reflect.DeepEqual(sv.State, a.State()) {
		t.Fatalf("after a model line: model %q, start %q, dropped %d", sv.Model, sv.Start.Model, sv.Dropped)
	}
	if sv, err := s.Load(w.ID()); err != nil || sv.Model != "late" {
		t.Errorf("continuing cut the model line off: %+v, %v", sv, err)
	}
}

// TestHelpersAreSaved runs the agent tool, two helpers in parallel, with
// Done writing each helper's conversation into the session: the file holds
// it after the message with the call and before its result, it reads back
// as the helper had it, by the call's id, and a continued session keeps it
// and adds the next.
func TestHelpersAreSaved(t *testing.T) {
	const script = `>>> expect=go
TOOL_CALL {"name":"agent","arguments":{"task":"say hi"}}
TOOL_CALL {"name":"agent","arguments":{"task":"say ho"}}
>>> when="say hi"
TOOL_CALL {"name":"echo","arguments":{"text":"x"}}
>>> when="say hi"
hi
>>> when="say ho"
ho
>>> expect="TOOL_RESULT call_2 agent SUCCESS"
done
>>> expect=again
TOOL_CALL {"name":"agent","arguments":{"task":"say bye"}}
>>> when="say bye"
bye
>>> expect="TOOL_RESULT call_3 agent SUCCESS"
done again
`
	s := openStore(t)
	helpers := map[string]loop.State{}
	var mu sync.Mutex // helpers end together
	var w *Writer
	build := func(m loop.Model, st *loop.State) *loop.Agent {
		t.Helper()
		ts, err := subagent.New(echoTools(t), subagent.Config{Model: m, Root: "/ws", Done: func(origin string, st loop.State) {
			mu.Lock()
			helpers[origin] = st
			mu.Unlock()
			if err := w.Child(origin, st); err != nil {
				t.Error(err)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := loop.Config{System: "SYSTEM"}
		if st == nil {
			return loop.New(m, ts, cfg, w)
		}
		a, err := loop.Resume(m, ts, cfg, *st, w)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	m := model(t, script)
	w = s.Create(start)
	a := build(m, nil)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	w.Close()

	data, _ := os.ReadFile(s.Path(w.ID()))
	call := bytes.Index(data, []byte(`TOOL_CALL {\"name\":\"agent\"`))
	child := bytes.Index(data, []byte(`"origin":"call_1","role":"system"`))
	result := bytes.Index(data, []byte(`TOOL_RESULT call_1 agent SUCCESS`))
	if call < 0 || child < call || result < child {
		t.Fatalf("call at %d, helper at %d, result at %d: want them in that order\n%s", call, child, result, data)
	}
	w2, sv, err := s.Continue(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sv.State, a.State()) || !reflect.DeepEqual(sv.Children, helpers) || len(helpers) != 2 {
		t.Fatalf("read back\n%+v\n%+v\nwant\n%+v\n%+v", sv.State, sv.Children, a.State(), helpers)
	}
	if hi := helpers["call_1"]; len(hi.Messages) != 5 || hi.Messages[1].Content != "say hi" || hi.Calls != 1 {
		t.Errorf("the helper's conversation: %+v", hi)
	}
	w = w2
	b := build(m, &sv.State)
	w.Follow(b)
	if _, err := b.Turn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	sv, err = s.Load(w.ID())
	if err != nil || !reflect.DeepEqual(sv.State, b.State()) || !reflect.DeepEqual(sv.Children, helpers) || len(helpers) != 3 {
		t.Fatalf("after continuing: %v\n%+v\nwant\n%+v", err, sv.Children, helpers)
	}
}

// TestHelperOfAStepThatNeverCompleted: a helper's lines after the last
// complete step belong to that step; they are not read back, and
// continuing cuts them off.
func TestHelperOfAStepThatNeverCompleted(t *testing.T) {
	s := openStore(t)
	id := "20260101-000000-abcd"
	body := `{"type":"start","format":1,"session":"` + id + `","workspace":"/ws"}
{"type":"message","turn":1,"role":"system","content":"S"}
{"type":"message","turn":1,"role":"user","content":"go"}
{"type":"request","turn":1,"messages":2,"calls_so_far":0}
`
	tail := `{"type":"message","turn":1,"role":"assistant","content":"TOOL_CALL agent"}
{"type":"message","turn":1,"origin":"call_1","role":"system","content":"HELPER"}
{"type":"message","turn":1,"origin":"call_1","role":"user","content":"task"}
{"type":"turn_end","turn":1,"origin":"call_1","messages":2,"calls_so_far":0}
`
	writeSession(t, s, id, body+tail)
	w, sv, err := s.Continue(id)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if sv.Children != nil || sv.Dropped != 1 || len(sv.State.Messages) != 2 {
		t.Errorf("children %+v, dropped %d", sv.Children, sv.Dropped)
	}
	if data, _ := os.ReadFile(s.Path(id)); string(data) != body {
		t.Errorf("continuing left\n%s", data)
	}
}

// TestCutCalls: a session killed while calls ran says which had ended and
// which were cut off, each with its id, though the step is not restored.
func TestCutCalls(t *testing.T) {
	s := openStore(t)
	w := s.Create(start)
	var snaps []string // the file as a kill would leave it, by point
	snap := loop.Observe(func(e loop.Event) {
		if e.Kind == loop.CallStarted || e.Kind == loop.CallEnded {
			data, err := os.ReadFile(s.Path(w.ID()))
			if err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, fmt.Sprintf("%s %s", e.Kind, e.Call.ID), string(data))
		}
	})
	a := loop.New(model(t, firstTurn), echoTools(t), loop.Config{System: "SYSTEM"}, w, snap)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	want := map[string][2]string{ // ended, cut
		"call call_1":   {"", "call_1 echo, call_2 echo"},
		"call call_2":   {"", "call_1 echo, call_2 echo"},
		"result call_1": {"call_1 echo", "call_2 echo"},
		"result call_2": {"call_1 echo, call_2 echo", ""},
	}
	if len(snaps) != 2*len(want) {
		t.Fatalf("%d snapshots", len(snaps)/2)
	}
	names := func(cs []protocol.Call) string {
		var s []string
		for _, c := range cs {
			s = append(s, c.ID+" "+c.Name)
		}
		return strings.Join(s, ", ")
	}
	for i := 0; i < len(snaps); i += 2 {
		sv, err := read(strings.NewReader(snaps[i+1]))
		if err != nil {
			t.Fatalf("%s: %v", snaps[i], err)
		}
		if len(sv.State.Messages) != 2 || sv.State.Calls != 0 || len(sv.Unfinished) == 0 {
			t.Errorf("%s: state %+v, unfinished %q", snaps[i], sv.State, sv.Unfinished)
		}
		ended, cut := sv.CutCalls(protocol.Parse)
		if got := [2]string{names(ended), names(cut)}; got != want[snaps[i]] {
			t.Errorf("%s: ended, cut = %q, want %q", snaps[i], got, want[snaps[i]])
		}
		if len(cut) > 0 && cut[0].Args["text"] != "a" && cut[0].Args["text"] != "b" {
			t.Errorf("%s: the cut call lost its arguments: %+v", snaps[i], cut[0])
		}
	}
	// Once the step completed, nothing is left unfinished.
	sv, err := s.Load(w.ID())
	if err != nil {
		t.Fatal(err)
	}
	if ended, cut := sv.CutCalls(protocol.Parse); sv.Unfinished != nil || ended != nil || cut != nil {
		t.Errorf("a complete session has unfinished %q, calls %v %v", sv.Unfinished, ended, cut)
	}
}

// The folder's sync that makes a new session's name durable does not hold
// up the first write, which is on disk while it runs, and is done by the
// time the turn has ended, the file synced.
func TestFolderSyncBesideTheFirstWrite(t *testing.T) {
	s := openStore(t)
	release := make(chan struct{})
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	defer let()
	time.AfterFunc(10*time.Second, let) // a writer that waits for the sync first goes on then
	var synced atomic.Bool
	s.syncDir = func(string) {
		<-release
		time.Sleep(100 * time.Millisecond)
		synced.Store(true)
	}
	w := s.Create(start)
	var early error
	probe := loop.HookFunc(func(e loop.Event) error {
		if e.Kind != loop.Replied {
			return nil
		}
		if synced.Load() {
			early = errors.New("the first write waited for the folder's sync")
		} else if data, err := os.ReadFile(s.Path(w.ID())); err != nil || !bytes.Contains(data, []byte(`"type":"request"`)) {
			early = fmt.Errorf("the first step is not in the file once its reply came: %q, %v", data, err)
		}
		let()
		return nil
	})
	a := loop.New(model(t, ">>> expect=go\nhi\n"), echoTools(t), loop.Config{System: "SYSTEM"}, w, probe)
	w.Follow(a)
	if _, err := a.Turn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if early != nil {
		t.Error(early)
	}
	if !synced.Load() {
		t.Error("the turn ended before the folder holding the new session was synced")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// An id is the time and four hex digits that differ from one session to
// the next: ids made in the same second are an id's form, and seldom the
// same (create takes another when one is taken).
func TestNewID(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 100 {
		id := newID(now)
		if !IsID(id) || !strings.HasPrefix(id, "20261201-101500-") {
			t.Fatalf("newID = %q, not an id of the time", id)
		}
		seen[id] = true
	}
	if len(seen) < 90 {
		t.Errorf("100 ids made in one second hold %d different ones", len(seen))
	}
}
