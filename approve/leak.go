package approve

import "harness/fence"

// Leak returns what secret text seems to hold, such as "a private key", or
// "" when it holds none that Leak knows the shape of. The shapes are
// fence's, which the sandbox also uses to keep secrets out of commands'
// environment.
func Leak(text string) string { return fence.Leak(text) }
