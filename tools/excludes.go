package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"harness/gitdir"
)

// globalExcludes returns the rules of the ignore file that git reads for
// every repository of the user (core.excludesFile, by default
// $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore), for the
// workspace at root: a file ignored only there is as secret as one its
// .gitignore names. The file is found as git finds it, without running
// git: core.excludesFile of the system's, the user's and the
// repository's configuration, the last one set winning. Its patterns are
// taken from the workspace root.
func globalExcludes(root string) []ignoreRule {
	name := excludesFile(root)
	if name == "" {
		return nil
	}
	data, _, err := ReadHead(name, maxIgnoreFile)
	if err != nil {
		return nil
	}
	source := name
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, name); err == nil && filepath.IsLocal(rel) {
			source = "~/" + filepath.ToSlash(rel)
		}
	}
	return parseIgnore(bytes.NewReader(data), "", source)
}

// excludesFile returns the path of the user's global excludes file, or
// "" when there is none to read.
func excludesFile(root string) string {
	home, _ := os.UserHomeDir()
	base := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(base) {
		if home == "" {
			base = ""
		} else {
			base = filepath.Join(home, ".config")
		}
	}
	var file string
	if base != "" {
		file = filepath.Join(base, "git", "ignore")
	}
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		system := "/etc/gitconfig"
		if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
			system = s
		}
		configs = append(configs, system)
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = append(configs, g)
	} else {
		if base != "" {
			configs = append(configs, filepath.Join(base, "git", "config"))
		}
		if home != "" {
			configs = append(configs, filepath.Join(home, ".gitconfig"))
		}
	}
	l := gitdir.Find(root)
	if l.Git == "" {
		l = enclosing(root)
	}
	configs = append(configs, l.Configs()...)
	for _, c := range configs {
		data, _, err := ReadHead(c, maxConfig)
		if err != nil {
			continue
		}
		v, ok := gitdir.Value(string(data), "core", "excludesfile")
		if !ok {
			continue
		}
		switch {
		case v == "":
			file = ""
		case strings.HasPrefix(v, "~/"):
			if home == "" {
				file = ""
			} else {
				file = filepath.Join(home, v[2:])
			}
		case filepath.IsAbs(v):
			file = v
		default:
			file = filepath.Join(root, v)
		}
	}
	return file
}
