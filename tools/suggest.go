package tools

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// maxSuggestDepth bounds the folders of a path that a suggestion may
// correct besides its last name: each costs a read of a folder.
const maxSuggestDepth = 3

// didYouMean returns "did you mean NAME? If not, ", NAME being the path the model
// may see closest to abs, which does not exist: a folder when dir is set,
// else a file. It returns "" when nothing is close. Only what list_files
// would show is suggested (see visible): nothing hidden, secret or
// ignored, in no folder the model may not read.
func didYouMean(ctx context.Context, ws *Workspace, abs string, dir bool) string {
	found := suggest(ctx, ws, abs, dir, maxSuggestDepth)
	if found == "" {
		return ""
	}
	return "did you mean " + ws.Rel(found) + "? If not, "
}

// suggest returns the absolute path of the entry closest to abs in abs's
// folder, correcting that folder too, up to depth folders up, when it does
// not exist; or "".
func suggest(ctx context.Context, ws *Workspace, abs string, dir bool, depth int) string {
	parent := filepath.Dir(abs)
	if parent == abs || !ws.contains(parent) || !ws.contains(abs) || abs == ws.Root() {
		return ""
	}
	fi, err := os.Stat(parent)
	switch {
	case err == nil && !fi.IsDir():
		return ""
	case err != nil && depth > 0:
		if parent = suggest(ctx, ws, parent, true, depth-1); parent == "" {
			return ""
		}
	case err != nil:
		return ""
	}
	if ws.checkRead(ctx, parent, ws.Rel(parent)) != nil {
		return ""
	}
	names, err := visible(ctx, ws, parent, ws.Rel(parent))
	if err != nil {
		return ""
	}
	var kept []string
	for _, n := range names {
		if strings.HasSuffix(n, "/") == dir {
			kept = append(kept, strings.TrimSuffix(n, "/"))
		}
	}
	best := closestName(filepath.Base(abs), kept)
	if best == "" {
		return ""
	}
	found := filepath.Join(parent, best)
	if found == abs {
		return "" // the path exists after all: nothing to correct
	}
	return found
}

// closestName returns the name of names nearest to want, as a typo or a
// slip of case or of an extension would make them differ, or "" when
// none is near: the same name in another case, want with an extension
// added or changed (README for README.md, main.c for main.go), or a name
// a few letters away (at most 1 for every 6, plus 1, counted without
// case, two letters swapped counting as one). The nearest wins, the first
// of names among equals.
func closestName(want string, names []string) string {
	if want == "" {
		return ""
	}
	lower := strings.ToLower(want)
	stem := strings.TrimSuffix(lower, path.Ext(lower))
	limit := 1 + utf8.RuneCountInString(want)/6
	best, bestD := "", limit+1
	for _, n := range names {
		if n == want {
			return n
		}
		l := strings.ToLower(n)
		var d int
		switch {
		case l == lower:
			d = 0
		case stem != "" && strings.TrimSuffix(l, path.Ext(l)) == stem:
			d = 1
		default:
			d = distance(l, lower)
		}
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the number of edits that turn a into b, counted in runes:
// a rune added, removed or changed, or two next to each other swapped
// (the optimal string alignment distance).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows of the table: the one before the last, the last, this.
	prev2, prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
