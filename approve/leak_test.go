package approve

import (
	"strings"
	"testing"

	"harness/fence"
)

// Every secret word holds a hint, or an assignment to a name with that
// word would be passed over unchecked.
func TestAssignHintsCoverSecretWords(t *testing.T) {
	for _, w := range fence.SecretWords() {
		if !containsAny(strings.ToLower(w), assignHints) {
			t.Errorf("no hint of the assignment leak is in %q", w)
		}
		if !assignment(fence.SecretWords())("X_"+w+"_Y=abcdefgh12") || Leak(strings.ToLower(w)+": abcdefgh12") == "" {
			t.Errorf("an assignment to a name holding %q is no leak", w)
		}
	}
}
