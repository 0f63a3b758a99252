package tools

import (
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
