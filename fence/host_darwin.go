package fence

// Host is the System this program runs on. macOS file systems ignore case
// unless made otherwise, so paths are compared without it.
const Host = MacOS
