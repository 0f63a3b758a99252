package guard

import "testing"

func TestReadOnly(t *testing.T) {
	tests := []struct {
		line  string
		reads bool
	}{
		{"ls", true},
		{"sort --compress-prog=bash a.txt", false},
		{"sort --outp=x a.txt", false},
		{"date --se=2020-01-01", false},
		{"rg --pr=cat x", false},
		{"git diff --outp=x", false},
		{"git diff --ext-d", false},
		{"git grep --open-files-in-pag=bash x", false},
		{"git reset --har", false},
		{"test -v 'a[$(touch x)]'", false},
		{"[ -v 'x[$(touch x)]' ]", false},
		{"[ 'x[1]' -eq 0 ]", false},
		{"[[ 'x[$(touch x)]' -eq 0 ]]", false},
		{"[[ -v 'x[1]' ]]", false},
		{"cat <<EOF\nEO\\\nF\ntouch x\nEOF\n", false},
		{"test -v HOME", true},
		{"[ 1 -lt 2 ]", true},
		{"[[ 1 -eq 1 ]]", true},
		{"cat <<'EOF'\nEO\\\nF\nEOF\n", true},
		{"ls -la src", true},
		{"cat big.txt", true},
		{"cat 'a file.txt' \"b.txt\"", true},
		{"grep -rn Hello .", true},
		{"head -n 5 a.go | grep func | wc -l", true},
		{"ls && cat a.go; wc -l a.go", true},
		{"grep -q x a.go || echo none", true},
		{"git status", true},
		{"git log --oneline -5", true},
		{"git --no-pager diff HEAD~1", true},
		{"git show HEAD:main.go", true},
		{"git branch", true},
		{"git branch -a", true},
		{"git stash list", true},
		{"go version", true},
		{"go list ./...", true},
		{"sort a.txt", true},
		{"uniq a.txt", true},
		{"find . -name '*.go'", true},
		{"grep x a.go 2>/dev/null", true},
		{"cat a.go 2>&1", true},
		{"wc -l < a.go", true},
		{"NO_COLOR=1 git log", true},
		{"for f in a b; do cat $f; done", false},
		{"cat a.go > b.go", false},
		{"echo hi >> notes.txt", false},
		{"grep x a &> out.txt", false},
		{"ls; rm -rf build", false},
		{"ls | tee out.txt", false},
		{"mkdir out", false},
		{"touch a", false},
		{"go test ./...", false},
		{"go build ./...", false},
		{"go env -w GOFLAGS=-x", false},
		{"git commit -m x", false},
		{"git add .", false},
		{"git branch new", false},
		{"git branch -D old", false},
		{"git stash", false},
		{"git diff --output=patch.txt", false},
		{"git diff --ext-diff", false},
		{"git grep -Oless x", false},
		{"git -c core.pager=x log", false},
		{"sort -o out.txt a.txt", false},
		{"sort -ro out.txt a.txt", false},
		{"sort --output=out.txt a.txt", false},
		{"uniq in.txt out.txt", false},
		{"find . -delete", false},
		{"find . -exec rm {} ;", false},
		{"find . -fprint out", false},
		{"rg --pre ./x pattern", false},
		{"env", true},
		{"env rm x", false},
		{"cat $(ls)", false},
		{"cat `ls`", false},
		{"cat <(ls)", false},
		{"cat $HOME/x", false},
		{"ls &", false},
		{"f() { ls; }; f", false},
		{"X=1", false},
		{"sed -n 1p a", false},
		{"\\rm a", false},
		{"/bin/cat a", false},
		{"", false},
		{"   ", false},
		{"cat 'unterminated", false},
		{"python3 -c 'print(1)'", false},
	}
	for _, tt := range tests {
		if got := ReadOnly(tt.line); got != tt.reads {
			t.Errorf("ReadOnly(%q) = %v, want %v", tt.line, got, tt.reads)
		}
	}
}

func FuzzReadOnly(f *testing.F) {
	for _, s := range []string{"ls", "cat a | grep b > c", "git log", "find . -delete", "$(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ReadOnly(line) // must not panic, whatever the line
	})
}
