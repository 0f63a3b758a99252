package tools

import (
	"fmt"
	"harness/plural"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"
)

// closest describes the part of text nearest to old, an old_text that
// matched nothing, so that the model can copy the real lines instead of
// guessing again: first the same lines with other indentation or trailing
// spaces, then a line holding old's first line with a few letters changed
// (a typo), then the line with the most words of old's first line.
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
	if at, d := typo(file, first); at >= 0 && d > 0 {
		from, to := max(at-1, 0), min(at+2, len(file))
		return fmt.Sprintf("The closest line is %d, where the text of old_text's first line differs in %s:\n%s\n%s",
			at+1, plural.Count(d, "character"), withNumbers(file, from, to), advice)
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

// typo finds the line that holds want, or text a few letters from it, as
// a copy with a typo would be: the whole line, or the part of it that
// starts or ends as want does. It returns the line's index and the edit
// distance (at most 1 for every 12 characters of want, plus 1), or -1.
// The first line with the smallest distance wins.
func typo(file []string, want string) (int, int) {
	n := utf8.RuneCountInString(want)
	if n < 4 {
		return -1, 0 // too short to tell a typo from another word
	}
	limit := 1 + n/12
	k := min(3, n/3) // runes of want's head and tail that must be intact
	head := want[:runeOffset(want, k)]
	tail := want[runeOffset(want, n-k):]
	best, bestD := -1, limit+1
	var bag [256]int
	for i := 0; i < len(want); i++ {
		bag[want[i]]++
	}
	// In bytes, an edit of one rune may change up to UTFMax of them; in
	// ASCII text, one.
	ascii := isASCII(want)
	try := func(i int, part string) {
		slack := limit * utf8.UTFMax
		if ascii && isASCII(part) {
			slack = limit
		}
		if abs(len(part)-len(want)) > slack || bagDistance(bag, part) > slack || !utf8.ValidString(part) {
			return
		}
		if d := levenshtein.ComputeDistance(part, want); d < bestD {
			best, bestD = i, d
		}
	}
	for i, line := range file {
		t := strings.TrimSpace(line)
		try(i, t)
		for _, j := range indexes(t, head) {
			for end := j + len(want) - limit; end <= j+len(want)+limit; end++ {
				if end > j && end <= len(t) {
					try(i, t[j:end])
				}
			}
		}
		for _, j := range indexes(t, tail) {
			end := j + len(tail)
			for start := end - len(want) - limit; start <= end-len(want)+limit; start++ {
				if start >= 0 && start < end {
					try(i, t[start:end])
				}
			}
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, bestD
}

// bagDistance is a lower bound of the edit distance in bytes between s and
// the text whose byte counts are want, cheap to compute: the bytes one has
// and the other lacks, the larger of the two counts. Every edit changes it
// by at most one.
func bagDistance(want [256]int, s string) int {
	for i := 0; i < len(s); i++ {
		want[s[i]]--
	}
	more, fewer := 0, 0
	for _, n := range want {
		if n > 0 {
			more += n
		} else {
			fewer -= n
		}
	}
	return max(more, fewer)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexes returns where sub occurs in s, at most 8 times.
func indexes(s, sub string) []int {
	var at []int
	for i := 0; len(at) < 8; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + 1
	}
	return at
}

// runeOffset returns the byte offset of the n-th rune of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func abs(n int) int { return max(n, -n) }

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
