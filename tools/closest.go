package tools

import (
	"fmt"
	"strings"
)

// closest describes the part of text nearest to old, an old_text that
// matched nothing, so that the model can copy the real lines instead of
// guessing again: first the same lines with other indentation or trailing
// spaces, then the line most like old's first line.
func closest(text, old string) string {
	const advice = "Read the file again and copy old_text exactly, spaces and indentation included"
	file := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	want := strings.Split(strings.TrimSuffix(old, "\n"), "\n")
	for i := 0; i+len(want) <= len(file); i++ {
		same := true
		for j, w := range want {
			if strings.TrimSpace(file[i+j]) != strings.TrimSpace(w) {
				same = false
				break
			}
		}
		if same {
			return fmt.Sprintf("The same text with other indentation or spacing is at %s; copy it exactly:\n%s",
				lineRange(i+1, i+len(want)), withNumbers(file, i, i+len(want)))
		}
	}
	first := ""
	for _, w := range want {
		if first = strings.TrimSpace(w); first != "" {
			break
		}
	}
	best, score := -1, 0.5 // below half the words in common, nothing is close
	for i, line := range file {
		if s := likeness(first, strings.TrimSpace(line)); s > score {
			best, score = i, s
		}
	}
	if best < 0 {
		return advice
	}
	from, to := max(best-1, 0), min(best+2, len(file))
	return fmt.Sprintf("The closest line is %d:\n%s\n%s", best+1, withNumbers(file, from, to), advice)
}

// likeness is the share of words two lines have in common, from 0 to 1.
func likeness(a, b string) float64 {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, w := range wa {
		count[w]++
	}
	common := 0
	for _, w := range wb {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	return float64(common) / float64(max(len(wa), len(wb)))
}

func lineRange(from, to int) string {
	if from == to {
		return fmt.Sprintf("line %d", from)
	}
	return fmt.Sprintf("lines %d-%d", from, to)
}

// withNumbers shows lines[from:to] with their numbers.
func withNumbers(lines []string, from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		fmt.Fprintf(&b, "%d: %s\n", i+1, lines[i])
	}
	return strings.TrimSuffix(b.String(), "\n")
}
