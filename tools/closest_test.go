package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	file := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")  \n\treturn\n}\n"
	tests := []struct {
		name, old string
		want      []string
	}{
		{name: "indentation differs", old: "    fmt.Println(\"hello\")\n    return\n",
			want: []string{"The same text with other indentation or spacing is at lines 4-5", "4: \tfmt.Println(\"hello\")  \n5: \treturn"}},
		{name: "one line, trailing spaces", old: "fmt.Println(\"hello\")", want: []string{"at line 4;"}},
		{name: "similar words", old: "func main() { // entry\n", want: []string{"The closest line is 3:\n2: \n3: func main() {\n4: ", "copy old_text exactly"}},
		{name: "nothing alike", old: "completely different\n", want: []string{"Read the file again"}},
		{name: "a letter missing from a whole line", old: "fmt.Println(\"helo\")\n\treturn\n",
			want: []string{"The closest line is 4, where the text of old_text's first line differs in 1 character:\n3: func main() {\n4: \tfmt.Println(\"hello\")  \n5: \treturn"}},
		{name: "a letter changed inside a line", old: "Println(\"jello\"", want: []string{"The closest line is 4, where", "in 1 character"}},
		{name: "a letter too many at the end of a part", old: "main() {{", want: []string{"The closest line is 3, where", "in 1 character"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := closest(file, tt.old)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("closest = %q, want it to contain %q", got, w)
				}
			}
		})
	}
	if strings.Contains(closest(file, "nothing alike at all"), "closest line") {
		t.Error("an unrelated line was offered as close")
	}
}

// The example a learner trips on: one letter missing in a greeting.
func TestClosestTypo(t *testing.T) {
	file := "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello, wrold!\")\n}\n"
	got := closest(file, "Hello, wrld!")
	want := "The closest line is 6, where the text of old_text's first line differs in 1 character:\n5: func main() {\n6: \tfmt.Println(\"Hello, wrold!\")\n7: }\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("closest = %q, want it to start %q", got, want)
	}
	for _, far := range []string{"Goodbye, moon!", "abc", "Hello, there, everyone at all!"} {
		if got := closest(file, far); strings.Contains(got, "differs in") {
			t.Errorf("closest(%q) took a different text for a typo: %q", far, got)
		}
	}
}

func BenchmarkClosestTypo(b *testing.B) {
	var file strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&file, "\tresult%d := compute(input%d, options) // step %d of the pipeline\n", i, i, i)
	}
	text := file.String()
	for b.Loop() {
		closest(text, "result1999 := compute(inptu1999, options)")
	}
}
