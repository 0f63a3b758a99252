// Package plural writes a count with its noun, as the harness's messages
// to the user and to the model say it: "1 file", "3 files", "2 entries".
package plural

import (
	"strconv"
	"strings"
)

// Count returns n followed by noun, made plural unless n is 1. The plural
// is the noun with "s", or "ies" for a final "y" after a consonant
// ("entry", "entries"); a noun of several words has its last made plural
// ("model call", "model calls").
func Count(n int, noun string) string {
	s := strconv.Itoa(n) + " "
	if n == 1 {
		return s + noun
	}
	return s + Of(noun)
}

// Of returns the plural of noun, by the rules Count follows.
func Of(noun string) string {
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsRune("aeiou", rune(stem[len(stem)-1])) {
		return stem + "ies"
	}
	return noun + "s"
}
