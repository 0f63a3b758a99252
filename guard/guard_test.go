package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"harness/fence"
)

// testWorkspace is a folder with the rules tools.Workspace applies, kept
// small: a path must stay inside after symlinks, .git is protected and
// .env is a secret when it exists or is written.
type testWorkspace struct{ root string }

var (
	errOutside   = errors.New("outside the workspace")
	errProtected = errors.New("protected")
)

func (w testWorkspace) Root() string { return w.root }

func (w testWorkspace) CheckPath(p string, write bool) error {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.root, abs)
	}
	abs = filepath.Clean(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	if !fence.Within(w.root, abs) {
		return fmt.Errorf("path %q is %w", p, errOutside)
	}
	rel, _ := filepath.Rel(w.root, abs)
	_, statErr := os.Lstat(abs)
	switch {
	case rel == ".git" || strings.HasPrefix(rel, ".git/"):
		return fmt.Errorf("path %q is %w: inside .git", p, errProtected)
	case filepath.Base(rel) == ".env" && (write || statErr == nil):
		return fmt.Errorf("path %q is %w: a secret", p, errProtected)
	}
	return nil
}

func newTestWorkspace(t testing.TB) testWorkspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ws")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{root, outside, filepath.Join(root, "sub"), filepath.Join(root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"main.go": "package main\n", "a.txt": "a\n", "b.txt": "b\n", ".env": "TOKEN=x\n",
		"sub/x.txt": "x\n", ".git/config": "[core]\n[remote \"origin\"]\n\turl = https://example.com/a.git\n[remote \"upstream\"]\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	return testWorkspace{root: root}
}

func TestCheckAllows(t *testing.T) {
	ws := newTestWorkspace(t)
	p, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"ls",
		"ls -la sub",
		"go test ./...",
		"go vet ./... && go test -run 'TestX|TestY' ./sub",
		"go test ./... 2>&1 | tail -50",
		"GOFLAGS=-count=1 go test ./...",
		"CGO_ENABLED=0 go build -o bin/app .",
		"git status",
		"git diff HEAD~1",
		"git log --oneline -5",
		"git commit -m 'fix: paths such as /etc/passwd'",
		"git push origin main",
		"git restore --staged a.txt",
		"grep -rn 'func main' .",
		"grep -r /api/v1 .",
		"grep -e /etc -r .",
		"find . -name '*.go' -type f",
		"find . -path '/x/*'",
		"cat main.go | head -20",
		"cat *.go",
		"cat sub/*.txt",
		"echo hello > out.txt",
		"echo /usr/bin is just text",
		"echo '~' \\~",
		"ls 2>/dev/null",
		"cat a.txt >> b.txt",
		"wc -l < a.txt",
		"cat <<'EOF'\nhello $HOME $(id)\nEOF",
		"if test -f go.mod; then go build ./...; else echo none; fi",
		"for f in a.txt b.txt; do echo hi; done",
		"f() { ls; }; f; f",
		"true || false",
		"! grep -q x a.txt",
		"time go test ./...",
		"(ls sub)",
		"{ ls; echo done; }",
		"case x in x) echo yes;; esac",
		"[[ -f a.txt && x == x ]]",
		"[ -f a.txt ]",
		"python3 -m pytest -q",
		"cargo test --all",
		"mkdir -p build && touch build/keep",
		"env",
		"ls |& cat",
		"printf '%s\\n' a b",
		"ls -I'*.tmp'",
		"rg -n TODO",
	} {
		t.Run(cmd, func(t *testing.T) {
			if err := p.Check(t.Context(), cmd, ws); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

func TestCheckRefuses(t *testing.T) {
	ws := newTestWorkspace(t)
	p, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want string // part of the refusal
	}{
		// not on the allowlist, or destructive
		{"rm -rf build", "deletes files"},
		{"\\rm -rf build", "deletes files"},
		{"r\"m\" -rf build", "deletes files"},
		{"shred a.txt", "deletes files"},
		{"mkfs.ext4 /dev/sda1", "disks"},
		{"dd if=/dev/zero of=a.txt", "disks"},
		{"shutdown -h now", "machine"},
		{"chmod 777 a.txt", "permissions"},
		{"curl http://example.com", "network"},
		{"ln -s /etc x", "links"},
		{"cp a.txt c.txt", "write_file"},
		{"frobnicate", "not on the allowlist"},
		// each simple command on its own: chains, pipes, groups, functions
		{"ls; rm a.txt", "deletes files"},
		{"ls && rm a.txt", "deletes files"},
		{"ls || rm a.txt", "deletes files"},
		{"ls | rm a.txt", "deletes files"},
		{"ls\nrm a.txt", "deletes files"},
		{"(rm a.txt)", "deletes files"},
		{"{ rm a.txt; }", "deletes files"},
		{"if true; then rm a.txt; fi", "deletes files"},
		{"while false; do rm a.txt; done", "deletes files"},
		{"case x in x) rm a.txt;; esac", "deletes files"},
		{"! rm a.txt", "deletes files"},
		{"time rm a.txt", "deletes files"},
		{"f() { rm a.txt; }; f", "deletes files"},
		{"f() { f | f; }; f", "recurse"},
		{"ls() { echo; }; ls", "may not be named"},
		// commands the guard cannot see through
		{"eval ls", "eval"},
		{"exec ls", "exec"},
		{"exec 3>out.txt", "exec"},
		{"source x.sh", "file"},
		{". x.sh", "file"},
		{"bash -c 'rm -rf /'", "another shell"},
		{"sh -c ls", "another shell"},
		{"ls | xargs rm", "xargs"},
		{"find . -exec rm {} \\;", "-exec"},
		{"find . -name x -execdir cat {} +", "-execdir"},
		{"find . -delete", "deletes"},
		{"env rm a.txt", "env with arguments"},
		{"env -i PATH=. ls", "env with arguments"},
		{"nohup ls", "another command"},
		{"command rm a.txt", "another command"},
		{"timeout 5 ls", "another command"},
		{"sudo ls", "another user"},
		{"su -c ls", "another user"},
		// substitutions and expansions
		{"echo $(whoami)", "command substitution"},
		{"echo `id`", "command substitution"},
		{"echo \"$(id)\"", "command substitution"},
		{"diff <(ls) <(ls -a)", "process substitution"},
		{"ls > >(cat)", "process substitution"},
		{"ls $HOME", "variable"},
		{"cat \"${HOME}/.ssh/id_rsa\"", "variable"},
		{"cat <<EOF\n$(id)\nEOF", "command substitution"},
		{"echo $((1+2))", "arithmetic"},
		{"((x=1))", "arithmetic"},
		{"for ((i=0;i<3;i++)); do ls; done", "arithmetic"},
		{"echo {a,b}", "brace"},
		{"cat {.,..}/passwd", "brace"},
		{"ls ~", "~"},
		{"ls ~/.ssh", "~"},
		{"echo a=~", "~"},
		{"ls @(a|b)", "extended globs"},
		// background jobs and shell state
		{"sleep 100 &", "background"},
		{"ls & ls", "background"},
		{"coproc ls", "coproc"},
		{"cd .. && ls", "working folder"},
		{"cd sub", "working folder"},
		{"export PATH=.", "export"},
		{"declare -x A=1", "declare"},
		{"read x", "shell's own state"},
		{"set -o noglob", "shell's own state"},
		{"trap 'rm a.txt' EXIT", "shell's own state"},
		{"alias ls=rm", "shell's own state"},
		{"kill -9 1", "processes"},
		{"printf -v PATH x", "printf -v"},
		{"select x in a b; do ls; done", "select"},
		// variables
		{"PATH=. ls", "setting PATH"},
		{"LD_PRELOAD=x.so ls", "setting LD_PRELOAD"},
		{"GIT_SSH_COMMAND=x git status", "setting GIT_SSH_COMMAND"},
		{"BASH_ENV=x.sh ls", "setting BASH_ENV"},
		{"A=(1 2) ls", "array"},
		{"GOFLAGS=-toolexec=sh go test ./...", "toolexec"},
		// programs by path
		{"/bin/rm -rf x", "by name"},
		{"./run.sh", "by name"},
		{"sub/x.txt", "by name"},
		// paths leaving the workspace, in arguments and redirections
		{"cat /etc/passwd", "outside"},
		{"cat ../outside/passwd", "outside"},
		{"cat ../../../../../../etc/passwd", "outside"},
		{"cat sub/../../outside/passwd", "outside"},
		{"cat link/passwd", "outside"},
		{"cat ../*", "outside"},
		{"ls /", "outside"},
		{"cat /proc/self/environ", "outside"},
		{"grep -r root /etc", "outside"},
		{"ls -I../x", "outside"},
		{"git log --output=/tmp/x", "outside"},
		{"echo x > /tmp/x", "outside"},
		{"echo x >> ../x", "outside"},
		{"echo x > link/new", "outside"},
		{"cat < /etc/shadow", "outside"},
		{"ls >& /tmp/x", "outside"},
		{"ls &> ../x", "outside"},
		{"echo hi > /dev/tcp/127.0.0.1/80", "outside"},
		{"for f in /etc/*; do echo x; done", "outside"},
		{"[[ -f /etc/shadow ]]", "outside"},
		{"find / -name passwd", "outside"},
		// protected paths
		{"cat .env", "protected"},
		{"grep TOKEN .env", "protected"},
		{"cat .e*", "protected"},
		{"echo x >> .git/config", "protected"},
		{"echo x > .git/hooks/pre-commit", "protected"},
		{"touch .git/hooks/pre-commit", "protected"},
		{"echo A=1 > .env", "protected"},
		// dangerous git
		{"git push --force", "forces"},
		{"git push -f origin main", "forces"},
		{"git push origin +main", "forces"},
		{"git push origin :main", "forces"},
		{"git push --force-with-lease", "forces"},
		{"git reset --hard HEAD~1", "throws away"},
		{"git clean -fdx", "deletes untracked"},
		{"git clean -n", "deletes untracked"},
		{"git config user.name x", "git config"},
		{"git -c core.pager=sh log", "configuration"},
		{"git -C /tmp status", "another folder"},
		{"git --git-dir=/tmp/x status", "another folder"},
		{"git checkout -- .", "overwrites"},
		{"git checkout -f main", "overwrites"},
		{"git checkout a.go", "overwrites"},
		{"git checkout HEAD a.go", "overwrites"},
		{"git checkout main", "git switch"},
		{"git restore a.txt", "restore"},
		{"git branch -D old", "force"},
		{"git stash drop", "stash drop"},
		{"git rebase -i HEAD~3", "not allowed"},
		{"git fetch --upload-pack=sh origin", "another program"},
		{"git grep -O vim x", "program of its choice"},
		{"git grep --open-files-in-pager=sh x", "another program"},
		{"git filter-branch", "not allowed"},
		// build tools that run what a file says
		{"npm test", "package scripts"},
		{"npm run build", "package scripts"},
		{"npx evil", "package scripts"},
		{"yarn install", "package scripts"},
		{"make", "package scripts"},
		{"go generate ./...", "go:generate"},
		{"go test -exec sh ./...", "-exec"},
		{"go run -toolexec=x .", "toolexec"},
		{"go build -ldflags=-extld=sh .", "extld"},
		{"go env -w GOFLAGS=-x", "settings"},
		{"go install example.com/x@latest", "outside the workspace"},
		{"go -C /tmp test", "another folder"},
		{"cargo install ripgrep", "not allowed"},
		{"cargo --config 'target.x.runner=\"sh\"' run", "--config"},
		{"python3 -c 'import os'", "python"},
		{"python3 evil.py", "python"},
		{"sed -i s/a/b/ a.txt", "sed"},
		{"awk 'BEGIN{system(\"id\")}'", "awk"},
		{"rg --pre sh x", "--pre"},
		{"sort --compress-program=sh a.txt", "compress-program"},
		{"date -s 2020-01-01", "clock"},
		// malformed lines
		{"", "empty"},
		{"   ", "empty"},
		{"ls 'unclosed", "parse"},
		{"ls\x00", "NUL"},
		{strings.Repeat("ls;", maxCommand), "long"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			err := p.Check(t.Context(), tt.cmd, ws)
			if err == nil {
				t.Fatalf("allowed, want a refusal mentioning %q", tt.want)
			}
			var r *Refusal
			if !errors.As(err, &r) || !errors.Is(err, ErrRefused) {
				t.Fatalf("error %v (%T) is not a *Refusal", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("refusal %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestRefusalPosition(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	err := p.Check(t.Context(), "ls -l\necho ok && rm -rf sub", ws)
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v", err)
	}
	if r.Line != 2 || r.Col != 12 || r.Text != "rm -rf sub" {
		t.Errorf("refusal at %d:%d of %q, want 2:12 of \"rm -rf sub\"", r.Line, r.Col, r.Text)
	}
	if want := "2:12: rm -rf sub: rm deletes files"; !strings.HasPrefix(r.Error(), want) {
		t.Errorf("Error() = %q, want it to start with %q", r.Error(), want)
	}
}

func TestPolicyLists(t *testing.T) {
	ws := newTestWorkspace(t)
	p, err := New([]string{"rm", "make"}, []string{"git"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want string // "" when allowed
	}{
		{"rm -rf sub", ""},
		{"make test", ""},
		{"rm -rf /", "outside"},
		{"rm -rf ..", "outside"},
		{"git status", "blocklist"},
		{"ls", ""},
	}
	for _, tt := range tests {
		err := p.Check(t.Context(), tt.cmd, ws)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.cmd, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want a refusal mentioning %q", tt.cmd, err, tt.want)
		}
	}
	if got := p.Allowed(); !contains(got, "rm") || contains(got, "git") {
		t.Errorf("Allowed() = %v", got)
	}
}

func TestNewRefusesBadNames(t *testing.T) {
	for _, tt := range []struct{ allow, block []string }{
		{allow: []string{"eval"}},
		{allow: []string{"bash"}},
		{allow: []string{"sudo"}},
		{allow: []string{"/bin/rm"}},
		{allow: []string{""}},
		{block: []string{"a b"}},
	} {
		if _, err := New(tt.allow, tt.block); err == nil {
			t.Errorf("New(%q, %q) succeeded", tt.allow, tt.block)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The guard reads whatever the model writes: it must never panic, and every
// failure must be a *Refusal.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{"ls", "go test ./... && rm -rf /", "echo $(id) `x` <(y)", "f() { f; }; f", "cat <<EOF\n$X\nEOF", "a=(1) b[$(x)]=2", "{a,b}", "ls @(x|y) ~/z"} {
		f.Add(seed)
	}
	ws := newTestWorkspace(f)
	p, _ := New(nil, nil)
	f.Fuzz(func(t *testing.T, cmd string) {
		err := p.Check(t.Context(), cmd, ws)
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Fatalf("Check(%q) = %v, not a refusal", cmd, err)
		}
	})
}

// Globs are matched only in folders inside the workspace: a sibling whose
// name starts with the root's is outside, and so is the root's parent.
func TestGlobReadsOnlyTheWorkspace(t *testing.T) {
	ws := newTestWorkspace(t)
	sibling := ws.root + "x"
	if err := os.MkdirAll(sibling, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sibling, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readDir := (&checker{ctx: t.Context(), ws: ws}).readDir
	for _, dir := range []string{ws.root, filepath.Join(ws.root, "sub"), ws.root + "/sub/.."} {
		if entries, _ := readDir(dir); len(entries) == 0 {
			t.Errorf("%s: no entries read inside the workspace", dir)
		}
	}
	for _, dir := range []string{sibling, filepath.Dir(ws.root), ws.root + "/..", ws.root + "/sub/../../" + filepath.Base(sibling), "sub"} {
		if entries, err := readDir(dir); entries != nil || err != nil {
			t.Errorf("%s: read %d entries (err %v) outside the workspace", dir, len(entries), err)
		}
	}
}

// The holes an attack on the guard found, each closed: every line here ran
// before, reading or writing where it should not.
func TestCheckRefusesAttacks(t *testing.T) {
	ws := newTestWorkspace(t)
	p, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want string // part of the refusal
	}{
		// a value glued after more than one short option
		{"sort -uo.git/commondir a.txt", "protected"},
		{"sort -uo../outside/x a.txt", "outside"},
		{"sort -xo/tmp/x a.txt", "outside"},
		{"sort -ruo.env a.txt", "protected"},
		{"grep -rf.env .", "protected"},
		// patterns the guard's matcher reads differently from bash
		{"cat .[[=e=]]nv", "matches no file"},
		{"cat .[[.e.]]nv", "matches no file"},
		{"cat < .[[=e=]]nv", "matches no file"},
		{"cat .[[:alpha:]]nv", "protected"},
		{"ls nothing-here*", "matches no file"},
		{"for f in .[[=e=]]nv; do echo; done", "matches no file"},
		// remotes that are paths
		{"git fetch file:///etc", "by its path"},
		{"git push file://../outside main", "outside"},
		{"git ls-remote FILE:///tmp", "by its path"},
		{"git pull file://localhost/etc/x", "by its path"},
		{"git fetch file://..%2Foutside", "outside"},
		// a repository on this machine, which git talks to without the
		// harness's protections (hole 2 of the third security round)
		{"git push ./docs HEAD:refs/heads/main", "by its path"},
		{"git push docs/ HEAD:refs/heads/main", "by its path"},
		{"git push sub HEAD:refs/heads/main", "by its path"},
		{"git push --repo=./docs", "by its path"},
		{"git fetch ../elsewhere", "by its path"},
		{"git fetch /tmp/x main", "by its path"},
		{"git fetch --depth 1 ./docs", "by its path"},
		{"git pull . main", "by its path"},
		{"git ls-remote /srv/other", "by its path"},
		{"git fetch file://sub", "by its path"},
		// Hole 6 of the third round: git's network by a URL, or by a name
		// no remote of the repository has.
		{"git fetch https://example.com/repo.git", "reaches the network"},
		{"git fetch git@example.com:org/repo.git", "reaches the network"},
		{"git ls-remote https://example.com/x.git", "reaches the network"},
		{"git ls-remote git://example.com/x.git", "reaches the network"},
		{"git pull ssh://example.com/x.git main", "reaches the network"},
		{"git push https://example.com/x.git HEAD:main", "reaches the network"},
		{"git push --repo=https://example.com/x.git", "reaches the network"},
		{"git fetch --depth 1 http://example.com/x.git", "reaches the network"},
		{"git fetch --multiple origin https://example.com/x.git", "reaches the network"},
		{"git remote show https://example.com/x.git", "reaches the network"},
		{"git fetch example.com", "not a remote of the repository"},
		{"git push elsewhere main", "not a remote of the repository"},
		{"git clone https://example.com/x.git", "not allowed"},
		// a command that rewrites the tree, chained with another
		{"git switch main && touch lnk/x", "rewrites files"},
		{"git stash; ls", "rewrites files"},
		{"git pull && ls", "rewrites files"},
		{"git reset HEAD~1; cat a.txt", "rewrites files"},
		{"ls && git switch main", "rewrites files"},
		{"git restore --staged a.txt && ls", "rewrites files"},
		{"f() { git switch x; }; f", "rewrites files"},
		{"for b in a b; do git switch main; done", "rewrites files"},
		{"! git switch main", "rewrites files"},
		// go flags in values
		{"GOFLAGS=-o=/tmp/x go build .", "outside"},
		{"GOFLAGS=-modfile=../outside/go.mod go build .", "outside"},
		{"GOFLAGS=-ldflags=-o=/tmp/x go build .", "-o inside -ldflags"},
		{"go build -ldflags='-o /tmp/x' .", "-o inside -ldflags"},
		{"go build -ldflags=all=-o=/tmp/x .", "-o inside -ldflags"},
		{"go build -gcflags '-cpuprofile /tmp/p' .", "-cpuprofile inside -gcflags"},
		{"go test -asmflags=-o=x ./...", "-o inside -asmflags"},
		// secrets through git
		{"git show HEAD:.env", "secret"},
		{"git show :.env.local", "secret"},
		{"git show :0:.env", "secret"},
		{"git log -p -- .env.production", "secret"},
		{"git grep TOKEN -- '.e*'", "secret"},
		{"git diff HEAD -- ':(glob)**/.env'", "secret"},
		{"git log -p -- ':!main.go' ':/keys/id_rsa'", "secret"},
		{"git cat-file -p HEAD:keys/id_rsa", "secret"},
		{"git add -A", "by name"},
		{"git add .", "by name"},
		{"git add --all", "by name"},
		{"git add -u", "by name"},
		{"git add -f a.txt", "by name"},
		{"git add '*'", "by name"},
		{"git add :/", "by name"},
		{"git add sub", "by name"},
		{"git stash -u", "untracked"},
		// git init inside the repository, and its options
		{"git init", "inside a repository"},
		{"git init sub", "inside a repository"},
		{"git init --separate-git-dir=gd", "--separate-git-dir"},
		{"git init --template=t", "--template"},
		{"git init --bare gd", "--bare"},
		// abbreviated long options
		{"sort -S 1K --compress-prog=bash a.txt", "--compress-program"},
		{"sort --compress-p bash a.txt", "--compress-program"},
		{"git ls-remote --upload-pac='touch x; false' .", "--upload-pack"},
		{"git push --receive-pa=x origin main", "--receive-pack"},
		{"git grep --no-index --open-files-in-pag=bash -e x a.txt", "--open-files-in-pager"},
		{"git diff --ext-d", "--ext-diff"},
		{"git reset --har", "--hard"},
		{"git reset --k", "--hard"},
		{"git push --force-w origin main", "forces"},
		{"git push --forc origin main", "forces"},
		{"git push --mir origin", "forces"},
		{"git push --del origin x", "forces"},
		{"git switch --disc main", "--force"},
		{"git restore --work --staged a.txt", "--staged"},
		{"git restore --stag --w a.txt", "--staged"},
		{"git branch --forc x", "-D"},
		{"git tag --del v1", "deletes"},
		{"git stash --include-u", "untracked"},
		{"git stash --al", "untracked"},
		{"git add --al", "by name"},
		{"git add --pathspec-from=list.txt", "by name"},
		{"git init --templ=t", "--template"},
		{"git rm --forc a.txt", "-f"},
		{"date --se=2020-01-01", "clock"},
		{"date --s 2020-01-01", "clock"},
		{"date -us 2020-01-01", "clock"},
		{"rg --pr=cat x", "--pre"},
		{"cargo --conf x build", "cargo"},
		// array subscripts bash evaluates
		{"test -v 'a[$(touch x)]'", "subscripts"},
		{"[ -v 'x[$(touch x)]' ]", "subscripts"},
		{"[ -R 'x[1]' ]", "subscripts"},
		{"test 'x[$(touch x)]' -eq 0", "subscripts"},
		{"[ 1 -lt 'x[$(touch x)]' ]", "subscripts"},
		{"[[ 'x[$(touch x; rm a.txt)]' -eq 0 ]]", "subscripts"},
		{"[[ 0 -ge 'x[1]' ]]", "subscripts"},
		{"[[ -v 'x[$(touch x)]' ]]", "subscripts"},
		{"[[ -R 'x[1]' ]]", "subscripts"},
		// here-document lines bash joins
		{"cat <<EOF\nEO\\\nF\ntouch ../outside/pwned\nEOF\n", "here-document"},
		{"cat <<-EOF\nEO\\\nF\ntouch x\nEOF\n", "here-document"},
		{"cat <<EOF\na \\\nEOF\ntouch x\nEOF\n", "here-document"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			err := p.Check(t.Context(), tt.cmd, ws)
			if err == nil {
				t.Fatalf("allowed, want a refusal mentioning %q", tt.want)
			}
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("error %v (%T) is not a *Refusal", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("refusal %q does not mention %q", err, tt.want)
			}
		})
	}
}

// What the checks above must not refuse.
func TestCheckAllowsNearAttacks(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	for _, cmd := range []string{
		"sort -uo out.txt a.txt",
		"sort -uoout.txt a.txt",
		"ls -la sub",
		"git switch main",
		"git stash list && ls",
		"git stash show -p | head",
		"git reset HEAD~1 > out.txt",
		"GOFLAGS=-mod=mod go test ./...",
		"go build -ldflags='-s -w' .",
		"go build -ldflags='-X main.version=1.2' .",
		"git show HEAD:main.go",
		"git grep -n id_rsa",
		"git log -- '*.go'",
		"git log -p -- ':!*.txt'",
		"git add a.txt b.txt",
		"git add -- main.go",
		"git log --format=%H:%s",
		"git fetch origin",
		"git push origin main",
		"echo '*' '?' '[x]'",
		"find . -name '*.go'",
		"git push --dry-run origin main",
		"git push -o ci.skip origin main",
		"git fetch --depth 1 origin",
		"git fetch upstream main",
		"git pull origin main",
		"git reset --soft HEAD~1",
		"git restore --staged a.txt",
		"sort --reverse a.txt",
		"date --utc",
		"date -d yesterday",
		"date -u +%s",
		"test -v HOME",
		"[ -v x ]",
		"[ 1 -lt 2 ]",
		"[ -3 -eq n ]",
		"test a.txt -nt b.txt",
		"[[ 1 -eq 1 && -v x ]]",
		"[ a = -v ]",
		"cat <<'EOF'\nEO\\\nF\nEOF\n",
		"cat <<\\EOF\na \\\nEOF\n",
		"cat <<EOF\na\\b\nEOF\n",
	} {
		t.Run(cmd, func(t *testing.T) {
			if err := p.Check(t.Context(), cmd, ws); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}

// Outside a repository, git init makes one; its options stay refused.
func TestGitInitOutsideRepository(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := testWorkspace{root: root}
	p, _ := New(nil, nil)
	if err := p.Check(t.Context(), "git init", ws); err != nil {
		t.Errorf("git init: %v", err)
	}
	if err := p.Check(t.Context(), "git init --separate-git-dir=gd", ws); err == nil {
		t.Error("git init --separate-git-dir: allowed")
	}
}

// Globs never descend a symlinked folder, so two links to the root and a
// pattern thirty folders deep end at once instead of reading without end.
func TestGlobSkipsLinkedFolders(t *testing.T) {
	ws := newTestWorkspace(t)
	for _, l := range []string{"l1", "l2"} {
		if err := os.Symlink(".", filepath.Join(ws.root, l)); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := New(nil, nil)
	deep := "ls " + strings.Repeat("*/", 30) + "*"
	err := p.Check(t.Context(), deep, ws)
	if err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("30 levels: err = %v, want a pattern that matches no file", err)
	}
	err = p.Check(t.Context(), "cat l1/*.txt", ws)
	if err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("through a link: err = %v", err)
	}
	if err := p.Check(t.Context(), "cat */x.txt", ws); err != nil {
		t.Errorf("a plain folder: %v", err)
	}
}

// The globs of one line read at most maxEntries entries, and nothing once
// the call's context is done.
func TestGlobBounds(t *testing.T) {
	ws := newTestWorkspace(t)
	c := &checker{ctx: t.Context(), ws: ws, entries: maxEntries - 2}
	if _, err := c.readDir(ws.root); !errors.Is(err, errTooManyEntries) || !errors.Is(c.halt, errTooManyEntries) {
		t.Errorf("past the bound: err = %v, halt = %v", err, c.halt)
	}
	p, _ := New(nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := p.Check(ctx, "cat *.txt", ws)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("cancelled: err = %v", err)
	}
}

// slowWorkspace takes a while over every path, as a large workspace's
// checks may.
type slowWorkspace struct{ testWorkspace }

func (w slowWorkspace) CheckPath(p string, write bool) error {
	time.Sleep(time.Millisecond)
	return w.testWorkspace.CheckPath(p, write)
}

// A check ends at the policy's limit, however many paths are left, and
// says why, though the caller gave no deadline.
func TestCheckTimeBounded(t *testing.T) {
	ws := slowWorkspace{newTestWorkspace(t)}
	p, _ := New(nil, nil)
	p.SetCheckLimit(50 * time.Millisecond)
	cmd := "cat" + strings.Repeat(" -abcdefghijklmnopqrstuvwxyz", 500)
	start := time.Now()
	err := p.Check(t.Context(), cmd, ws)
	if err == nil || !strings.Contains(err.Error(), "took more than the 50ms a check may take") {
		t.Errorf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the check took %v", took)
	}
	if got := maxCheckTime; got <= 0 || got > time.Minute {
		t.Errorf("maxCheckTime = %v", got)
	}
	if q, _ := New(nil, nil); q.limit != maxCheckTime {
		t.Errorf("New's limit = %v, want %v", q.limit, maxCheckTime)
	}
}

// Reads names the paths whose contents a command may read, not those it
// only looks at, writes, or takes as text.
func TestReads(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	tests := []struct {
		cmd  string
		want []string // each must be among the paths
		not  []string // none may be
	}{
		{"rev a.txt", []string{"a.txt"}, nil},
		{"xxd -g1 a.txt | head", []string{"a.txt"}, nil},
		{"tr a b < a.txt", []string{"a.txt"}, nil},
		{"git show HEAD:a.txt", []string{"a.txt"}, nil},
		{"grep b.txt a.txt", []string{"a.txt"}, []string{"b.txt"}},
		{"cut -c1- *.txt", []string{"a.txt", "b.txt"}, nil},
		{"ls a.txt; wc -l b.txt; stat main.go", nil, []string{"a.txt", "b.txt", "main.go"}},
		{"echo a.txt > b.txt", nil, []string{"a.txt", "b.txt"}},
		// jq's program is text: "." is not the workspace.
		{"jq -c . a.txt", []string{"a.txt"}, []string{"b.txt", "main.go"}},
		{"jq --arg k b.txt --indent 2 '.[$k]' a.txt", []string{"a.txt"}, []string{"b.txt", "main.go"}},
		{"jq -n --rawfile t b.txt '$t'", []string{"b.txt"}, []string{"a.txt", "main.go"}},
		{"jq -n '$ARGS' --args b.txt main.go", nil, []string{"a.txt", "b.txt", "main.go"}},
	}
	for _, tt := range tests {
		checkReads(t, p, ws, tt.cmd, tt.want, tt.not)
	}
	if _, err := p.Reads(t.Context(), "rm a.txt", ws); !errors.Is(err, ErrRefused) {
		t.Errorf("a refused command: err = %v", err)
	}
}

// Options that make a names-only command read contents count as reading;
// --files0-from, whose list of files the guard cannot see, is refused.
func TestReadsNamesOnlyOptions(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	for _, tt := range []struct {
		cmd   string
		reads bool
	}{
		{"date -f a.txt", true},
		{"date -fa.txt", true},
		{"date -uf a.txt", true},
		{"date --file=a.txt 2>&1 | rev", true},
		{"date --fi a.txt", true},
		{"date -r a.txt", false},
		{"date -d tomorrow a.txt", false},
		{"date -- -f a.txt", false},
		{"wc -l a.txt", false},
		{"file -f a.txt", true},
		{"file -bf a.txt 2>&1 | rev", true},
		{"file --files-from=a.txt", true},
		{"file a.txt", false},
		{"tree --fromfile a.txt | rev", true},
		{"tree -f a.txt", false},
		{"find a.txt -name x", false},
	} {
		got, err := p.Reads(t.Context(), tt.cmd, ws)
		if err != nil {
			t.Errorf("%s: %v", tt.cmd, err)
			continue
		}
		if contains(got, "a.txt") != tt.reads {
			t.Errorf("%s: reads %q, want a.txt read %v", tt.cmd, got, tt.reads)
		}
	}
	for _, cmd := range []string{
		"wc --files0-from=a.txt", "du --files0-from a.txt", "sort --files0-from=a.txt", "wc --f=a.txt",
		"sort --fil a.txt", "cat --files0-from=a.txt",
		"find -files0-from a.txt", "find -files0-from a.txt -type f",
	} {
		if _, err := p.Reads(t.Context(), cmd, ws); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err = %v, want refused", cmd, err)
		}
	}
	tar, _ := New([]string{"tar"}, nil)
	for _, tt := range []struct {
		cmd     string
		refused bool
	}{
		{"tar -cf - -T a.txt", true},
		{"tar -cTa.txt -f -", true},
		{"tar cTf a.txt -", true},
		{"tar --files-from=a.txt -cf -", true},
		{"tar --files a.txt -cf -", true},
		{"tar -cf - a.txt", false},
		{"tar --file=- -c a.txt", false},
	} {
		if _, err := tar.Reads(t.Context(), tt.cmd, ws); errors.Is(err, ErrRefused) != tt.refused {
			t.Errorf("%s: err = %v, want refused %v", tt.cmd, err, tt.refused)
		}
	}
	if _, err := p.Reads(t.Context(), "sort --field-separator=, a.txt", ws); err != nil {
		t.Errorf("sort --field-separator: %v", err)
	}
}

// A recursive search reads the root, where it starts when no folder is
// named; a plain grep does not.
func TestReadsRecursiveSearch(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	for _, tt := range []struct {
		cmd  string
		root bool
	}{
		{"grep -r '' | rev", true},
		{"grep -R x", true},
		{"grep -rn -e x", true},
		{"grep --recursive x", true},
		{"grep --directories=recurse x", true},
		{"grep -d recurse x", true},
		{"rg x", true},
		{"git grep --no-index -h -e . | rev", true},
		{"git --no-pager grep -e x", true},
		{"git log --grep x", false},
		{"grep x a.txt", false},
		{"grep -n x a.txt", false},
	} {
		got, err := p.Reads(t.Context(), tt.cmd, ws)
		if err != nil {
			t.Errorf("%s: %v", tt.cmd, err)
			continue
		}
		if contains(got, ".") != tt.root {
			t.Errorf("%s: reads %q, want the root read %v", tt.cmd, got, tt.root)
		}
	}
}

// A line parsed once is checked, asked whether it only reads, and given
// back as it was, without being parsed again; Parse refuses what Check
// refuses before parsing.
func TestParseOnce(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	l, err := p.Parse("rev a.txt | wc -l")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if reads, err := p.CheckLine(t.Context(), l, ws); err != nil || !slices.Equal(reads, []string{"a.txt"}) {
			t.Errorf("CheckLine = %q, %v", reads, err)
		}
	}
	if !l.ReadOnly() || l.String() != "rev a.txt | wc -l" {
		t.Errorf("ReadOnly %v, String %q", l.ReadOnly(), l.String())
	}
	if n := p.Parsed(); n != 1 {
		t.Errorf("Parsed = %d, want 1", n)
	}
	for _, cmd := range []string{"", "ls\x00", "echo (", strings.Repeat("x", maxCommand+1)} {
		if _, err := p.Parse(cmd); !errors.Is(err, ErrRefused) {
			t.Errorf("Parse(%.20q) = %v, want a refusal", cmd, err)
		}
	}
	if _, err := p.CheckLine(t.Context(), mustParse(t, p, "sudo ls"), ws); !errors.Is(err, ErrRefused) {
		t.Errorf("CheckLine(sudo ls) = %v", err)
	}
}

func mustParse(t *testing.T, p *Policy, cmd string) *Line {
	t.Helper()
	l, err := p.Parse(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Hole 10 of the third round: a workspace that is a folder of a larger
// repository. Git takes REV:path and top-magic pathspecs from the
// repository's top, and git log -p, show and diff print the whole
// repository's changes, so each is held to the workspace's folder.
func TestGitHeldToWorkspaceFolder(t *testing.T) {
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "svc-a/sub", "svc-b"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws := testWorkspace{root: filepath.Join(top, "svc-a")}
	p, _ := New(nil, nil)
	for _, tt := range []struct{ cmd, want string }{
		{"git show HEAD:svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git show main:svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git show :svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git show :0:svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git show HEAD:svc-a/../svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git show HEAD:svc-ab/x", "outside the workspace's folder svc-a"},
		{"git show HEAD:", "the whole repository"},
		{"git cat-file -p HEAD:svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git cat-file --batch-all-objects --batch", "every object"},
		{"git rev-parse HEAD:svc-b/settings.txt", "outside the workspace's folder svc-a"},
		{"git log -p -- :/svc-b", "outside the workspace's folder svc-a"},
		{"git log -p -- ':(top)svc-b'", "outside the workspace's folder svc-a"},
		{"git log -p -- :/", "the whole repository"},
		{"git grep -e secret HEAD -- :/", "the whole repository"},
		{"git show 4a059a4", "by its id"},
		{"git cat-file -p 78981922613b2afb6025042ff6bd878ac1994e85", "by its id"},
		{"git show 4a059a4:settings.txt", "by its id"},
		{"git tag t 78981922", "by its id"},
		{"git diff 7898192 4a059a4", "by its id"},
		{"git log -p", "whole repository"},
		{"git log --stat", "whole repository"},
		{"git log -p --", "whole repository"},
		{"git show", "whole repository"},
		{"git show HEAD", "whole repository"},
		{"git show HEAD --stat", "whole repository"},
		{"git diff HEAD~1", "whole repository"},
		{"git diff", "whole repository"},
		{"git diff-tree -p HEAD", "whole repository"},
		{"git whatchanged", "whole repository"},
		{"git reflog -p", "whole repository"},
		{"git log -p -- ../svc-b", "outside"},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			err := p.Check(t.Context(), tt.cmd, ws)
			if err == nil {
				t.Fatal("allowed")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("refusal %q does not mention %q", err, tt.want)
			}
		})
	}
	for _, cmd := range []string{
		"git show HEAD:svc-a/main.go",
		"git show HEAD:./main.go",
		"git show :svc-a/sub/x.txt",
		"git show HEAD~1:svc-a",
		"git log -p -- .",
		"git log -p HEAD~3 -- sub ':(top)svc-a/sub'",
		"git log --oneline -n 1000",
		"git log --oneline -5 --format=%H:%s",
		"git log",
		"git reflog",
		"git reflog show --oneline",
		"git show HEAD -- .",
		"git diff HEAD~1 -- .",
		"git diff --no-index a.txt b.txt",
		"git grep -e TODO HEAD",
		"git status",
		"git blame main.go",
	} {
		t.Run(cmd, func(t *testing.T) {
			if err := p.Check(t.Context(), cmd, ws); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	// At the repository's top, none of this applies.
	top1 := testWorkspace{root: top}
	for _, cmd := range []string{"git show HEAD:svc-b/settings.txt", "git log -p", "git show 4a059a4"} {
		if err := p.Check(t.Context(), cmd, top1); err != nil {
			t.Errorf("%s at the top: refused: %v", cmd, err)
		}
	}
}

// go doc reads the Go files of the package it documents, which it finds
// anywhere in the module by its path: the folders it is given are read,
// and with no folder, the root, whole.
func TestReadsGoDoc(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	for _, tt := range []struct {
		cmd  string
		want []string
	}{
		{"go doc -all -u | rev", []string{"."}},
		{"go doc", []string{"."}},
		{"go doc Thing", []string{"."}},
		{"go doc example.com/demo/sub", []string{"."}},
		{"go doc ./sub", []string{"./sub"}},
		{"go doc -u -src sub", []string{"sub"}},
		{"go doc ./sub Thing", []string{"."}},
		{"go vet", nil},
		{"go version", nil},
	} {
		var not []string
		if tt.want == nil {
			not = []string{"."} // the root is not read
		}
		checkReads(t, p, ws, tt.cmd, tt.want, not)
	}
}

// jq programs that load modules or data files by name, or come from a
// file, are refused; the words as fields, strings or parts of names are
// not.
func TestJqModules(t *testing.T) {
	ws := newTestWorkspace(t)
	p, _ := New(nil, nil)
	for _, cmd := range []string{
		`jq -n 'import "./cfg/service" as s; s::token'`,
		`jq -n 'include "service"; token'`,
		`jq -n -L sub 'import "data" as $d; $d'`,
		`jq -n '"service" | modulemeta'`,
		`jq -n 'include"x";.'`,
		`jq -f prog.jq a.txt`,
		`jq -nrf prog.jq`,
		`jq --from-file prog.jq`,
	} {
		if err := p.Check(t.Context(), cmd, ws); err == nil || !strings.Contains(err.Error(), "jq") {
			t.Errorf("%s: %v, want a refusal of jq", cmd, err)
		}
	}
	// The files jq is given by name are checked as paths.
	for _, cmd := range []string{`jq --rawfile t .env -n '$t'`, `jq --slurpfile t .env -n '$t'`, `jq . .env`} {
		if err := p.Check(t.Context(), cmd, ws); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ".env") {
			t.Errorf("%s: %v, want a refusal naming .env", cmd, err)
		}
	}
	for _, cmd := range []string{
		`jq .import a.txt`,
		`jq '.include' a.txt`,
		`jq '$imports' a.txt`,
		`jq -n '{included: 1}'`,
		`jq -r '.a | ascii_downcase' a.txt`,
		`jq --rawfile t a.txt -n '$t'`,
	} {
		if err := p.Check(t.Context(), cmd, ws); err != nil {
			t.Errorf("%s: refused: %v", cmd, err)
		}
	}
}

// checkReads checks that p says cmd reads each path of want and none of
// not.
func checkReads(t *testing.T, p *Policy, ws Workspace, cmd string, want, not []string) {
	t.Helper()
	got, err := p.Reads(t.Context(), cmd, ws)
	if err != nil {
		t.Errorf("%s: %v", cmd, err)
		return
	}
	for _, w := range want {
		if !contains(got, w) {
			t.Errorf("%s: reads %q, want %q among them", cmd, got, w)
		}
	}
	for _, n := range not {
		if contains(got, n) {
			t.Errorf("%s: reads %q, want no %q", cmd, got, n)
		}
	}
}
