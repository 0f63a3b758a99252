package fence

import "testing"

func TestHomeSetting(t *testing.T) {
	tests := []struct {
		sys        System
		home, path string
		want       bool
	}{
		{Unix, "/home/u", "/home/u/.config/go/env", true},
		{Unix, "/home/u", "/home/u/.cargo", true}, // whether it exists or not
		{Unix, "/home/u", "/home/u/.cargo/config.toml", true},
		{Unix, "/home/u", "/home/u/.local/lib/python3.12/site-packages/usercustomize.py", true},
		{Unix, "/home/u", "/home/u/.bashrc", true},
		{Unix, "/home/u", "/home/u/..x", true},
		{Unix, "/home/u", "/home/u/bin/git", true},
		{Unix, "/home/u", "/home/u/bin", true},
		{Unix, "/home/u", "/home/u", false}, // the home folder itself
		{Unix, "/home/u/", "/home/u/./", false},
		{Unix, "/home/u", "/home/u/code/.config/x", false}, // a project's own
		{Unix, "/home/u", "/home/u/code/bin/x", false},
		{Unix, "/home/u", "/home/u/binaries/x", false},
		{Unix, "/home/u", "/home/u/Library/LaunchAgents/x.plist", false},
		{Unix, "/home/u", "/home/u/AppData/x", false},
		{Unix, "/home/u", "/home/u/Bin/x", false}, // case counts on Linux
		{Unix, "/home/u", "/home/.u/x", false},    // outside home
		{Unix, "/home/u", "/home/u2/.config/x", false},
		{Unix, "/home/u", "/etc/.x", false},
		{Unix, "/home/u", "/home/u/code/../.config/x", true}, // ".." spellings, cleaned
		{Unix, "/home/u", "/home/u/.config/../code/x", false},
		{Unix, "/home/u", "/home/u/../u/.cargo/x", true},
		{Unix, "/home/u", "/home/u/.././u/bin", true},
		{Unix, "/home/u", "/home/u/../v/.cargo", false},
		{Unix, "/home/u", ".cargo", false}, // relative paths are nowhere
		{Unix, "home/u", "home/u/.cargo", false},
		{Unix, "", "/.cargo", false},
		{Unix, "/", "/.cargo", true}, // a home of / has settings too
		{MacOS, "/Users/u", "/Users/u/Library/LaunchAgents/x.plist", true},
		{MacOS, "/Users/u", "/users/U/library/launchagents/x.plist", true},
		{MacOS, "/Users/u", "/Users/u/BIN/x", true},
		{MacOS, "/Users/u", "/Users/u/.zshrc", true},
		{MacOS, "/Users/u", "/Users/u/AppData/x", false},
		{MacOS, "/Users/u", "/Users/u/code/Library/x", false},
		{Windows, `C:\Users\u`, `C:\Users\u\AppData\Roaming\Microsoft\Windows\Start Menu\Programs\Startup\x.bat`, true},
		{Windows, `C:\Users\u`, `c:/users/u/appdata/x`, true},
		{Windows, `C:\Users\u`, `C:\Users\u\.gitconfig`, true},
		{Windows, `C:\Users\u`, `C:\Users\u\.cargo.\config.toml`, true}, // Windows drops the trailing dot
		{Windows, `C:\Users\u`, `C:\Users\u\bin.\x.exe`, true},
		{Windows, `C:\Users\u`, `\\?\C:\Users\u\AppData\x`, true},
		{Windows, `C:\Users\u`, `C:\Users\u\Library\x`, false},
		{Windows, `C:\Users\u`, `D:\Users\u\.cargo`, false},
		{Windows, `C:\Users\u`, `C:\Users\u\code\.vscode\tasks.json`, false},
	}
	for _, tt := range tests {
		if got := tt.sys.HomeSetting(tt.home, tt.path); got != tt.want {
			t.Errorf("%v.HomeSetting(%q, %q) = %v, want %v", tt.sys, tt.home, tt.path, got, tt.want)
		}
		if HomeSetting(tt.home, tt.path) != Host.HomeSetting(tt.home, tt.path) {
			t.Errorf("HomeSetting(%q, %q) is not Host.HomeSetting", tt.home, tt.path)
		}
	}
}
