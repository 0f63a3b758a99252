package sandbox

// alive reports false: the pids a Windows bash prints are its own, not
// Windows', so the tests that ask cannot tell here.
func alive(int) bool { return false }
