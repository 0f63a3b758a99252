package protocol

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// harnessTools are the tools the harness gives a model by default, as the
// corpus's replies call them.
var harnessTools = []ToolSpec{
	{Name: "read_file", Args: []Arg{{Name: "path", Type: String, Required: true}, {Name: "offset", Type: Integer}, {Name: "limit", Type: Integer}}},
	{Name: "list_files", Args: []Arg{{Name: "path", Type: String}}},
	{Name: "write_file", Writes: true, Args: []Arg{{Name: "path", Type: String, Required: true}, {Name: "content", Type: String, Required: true}}},
	{Name: "edit_file", Writes: true, Args: []Arg{{Name: "path", Type: String, Required: true}, {Name: "old_text", Type: String, Required: true}, {Name: "new_text", Type: String, Required: true}}},
	{Name: "bash", Writes: true, Args: []Arg{{Name: "command", Type: String, Required: true}}},
	{Name: "read_output", Args: []Arg{{Name: "ref", Type: String, Required: true}, {Name: "offset", Type: Integer}, {Name: "limit", Type: Integer}}},
	{Name: "agent", Writes: true, Args: []Arg{{Name: "task", Type: String, Required: true}, {Name: "tools", Type: String}}},
}

// outcome is what the harness does with one call of a reply: the tool and
// its arguments as compact JSON when it runs, "error" when it is refused.
func outcome(c Call) string {
	if err := Check(harnessTools, &c); err != nil {
		return "error"
	}
	return c.Name + " " + compact(c.Args) // map keys come sorted
}

// TestCorpus reads the replies in testdata/replies, each in a shape a real
// model writes and naming its public source, and checks that the harness
// runs exactly the calls each says (or refuses the attempt, or runs
// nothing), and that no refusal shows the model Go's error text.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/replies/*.txt")
	if len(files) < 100 {
		t.Fatalf("%d replies in the corpus, want at least 100", len(files))
	}
	r := NewReader(harnessTools)
	counts := map[string]int{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(a.Comment), "source: ") {
				t.Errorf("no source: line")
			}
			var reply, want string
			for _, file := range a.Files {
				switch file.Name {
				case "reply":
					reply = string(file.Data)
				case "want":
					want = strings.TrimSpace(string(file.Data))
				}
			}
			p := r.Parse(reply)
			var got []string
			for _, c := range p.Calls {
				got = append(got, outcome(c))
				if c.Err != nil || Check(harnessTools, &c) != nil {
					body := Rejected(c, Check(harnessTools, &c)).Body
					for _, leak := range []string{"json:", "Go value", "map[string]", "unmarshal", "invalid character", "\\u00"} {
						if strings.Contains(body, leak) {
							t.Errorf("the error shows %q:\n%s", leak, body)
						}
					}
				}
			}
			gotText := strings.Join(got, "\n")
			if len(got) == 0 {
				gotText = "none"
			}
			if gotText != want {
				t.Errorf("reply:\n%s\ngot:\n%s\nwant:\n%s", reply, gotText, want)
				for _, c := range p.Calls {
					t.Logf("call line %d shape %q repairs %q err %v", c.Line, c.Shape, c.Repairs, c.Err)
				}
			}
			switch {
			case want == "none":
				counts["answers"]++
			case strings.Contains(want, "error"):
				counts["refused attempts"]++
			default:
				counts["runs"]++
			}
		})
	}
	t.Logf("%d replies: %v", len(files), counts)
}
