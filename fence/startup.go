package fence

import "path/filepath"

// startupFiles are the files and folders in the home folder that git and
// the shells read when they start, and run what they say: git's user
// configuration (an alias, a pager, core.fsmonitor), and the shells'
// start-up and login files.
var startupFiles = []string{
	".gitconfig", ".config/git",
	".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".inputrc",
	".zshenv", ".zshrc", ".zprofile", ".zlogin", ".zlogout",
	".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login", ".logout",
	".config/fish", ".config/nushell", ".config/environment.d", ".pam_environment",
}

// StartupPlaces lists the places in home (if not empty) whose files git
// and the shells read and act on when they start (see startupFiles), and
// git's folder of configHome, the XDG_CONFIG_HOME git reads, when that is
// set elsewhere. Writing there makes the user's next shell or git run
// what was written, outside any sandbox; the file tools never do,
// whatever the workspace holds.
func StartupPlaces(home, configHome string) []string {
	var out []string
	if home != "" {
		for _, rel := range startupFiles {
			out = append(out, filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	if filepath.IsAbs(configHome) {
		out = append(out, filepath.Join(configHome, "git"))
	}
	return out
}
