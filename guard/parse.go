package guard

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds the places where the programs the guard allows read a
// command line differently from how its words look: abbreviated long
// options, array subscripts that bash evaluates, and here-documents whose
// lines bash joins.

// longOption reports whether arg, written --NAME or --NAME=VALUE, may name
// the long option opt (written "--compress-program"). GNU getopt_long and
// git accept any unambiguous prefix of a long option's name, so
// --compress-prog is --compress-program; which prefixes are unambiguous
// depends on the tool and its version, so every prefix of at least one
// letter counts.
func longOption(arg, opt string) bool {
	if !strings.HasPrefix(arg, "--") || !strings.HasPrefix(opt, "--") {
		return false
	}
	name, _, _ := strings.Cut(arg, "=")
	return len(name) > 2 && strings.HasPrefix(opt, name)
}

// anyLongOption returns the first of opts that arg may name, or "".
func anyLongOption(arg string, opts ...string) string {
	for _, o := range opts {
		if longOption(arg, o) {
			return o
		}
	}
	return ""
}

// arithmeticTests are the operators of test, [ and [[ whose operands bash
// may evaluate as arithmetic, and the unary ones that take a variable name;
// both evaluate an array subscript, and with it any $(...) inside.
var (
	arithmeticTests = []string{"-eq", "-ne", "-lt", "-le", "-gt", "-ge"}
	variableTests   = []string{"-v", "-R"}
)

const subscriptReason = "test and [[ ]] evaluate the operand of -v, -R and of -eq, -ne, -lt, -le, -gt, -ge, array subscripts and the commands in them included; give a plain number or variable name there"

// testRefusal checks the arguments of test or [ (name): the operand of a
// variable test must be a plain name, the operands of an arithmetic
// comparison plain integers or names.
func testRefusal(name string, args []string) string {
	if name == "[" && len(args) > 0 && args[len(args)-1] == "]" {
		args = args[:len(args)-1]
	}
	for i, a := range args {
		switch {
		case slices.Contains(variableTests, a):
			if i+1 < len(args) && !isName(args[i+1]) {
				return subscriptReason
			}
		case slices.Contains(arithmeticTests, a):
			if i > 0 && !plainOperand(args[i-1]) || i+1 < len(args) && !plainOperand(args[i+1]) {
				return subscriptReason
			}
		}
	}
	return ""
}

// testClauseRefusal checks a [[ ]] test as testRefusal checks test;
// literal gives the value of a word.
func testClauseRefusal(tc *syntax.TestClause, literal func(*syntax.Word) (string, bool)) string {
	plain := func(x syntax.TestExpr, ok func(string) bool) bool {
		w, isWord := x.(*syntax.Word)
		if !isWord {
			return false
		}
		v, known := literal(w)
		return known && ok(v)
	}
	why := ""
	syntax.Walk(tc.X, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.UnaryTest:
			if (n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar) && !plain(n.X, isName) {
				why = subscriptReason
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
				if !plain(n.X, plainOperand) || !plain(n.Y, plainOperand) {
					why = subscriptReason
				}
			}
		}
		return why == ""
	})
	return why
}

// plainOperand reports whether s is an integer (with an optional sign) or
// a variable name: nothing bash would evaluate further.
func plainOperand(s string) bool {
	return isName(s) || isDigits(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"))
}

// isName reports whether s is a shell variable name.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

const hdocReason = "a line of this here-document ends in a backslash, which bash joins with the next line, so it may end the here-document where the guard does not see it; remove the backslash or quote the delimiter (<<'EOF')"

// hdocJoins reports whether the here-document of rd, in the source src,
// has a line ending in a backslash while its delimiter is unquoted: bash
// then joins the lines, also into a delimiter (EO\ and F make EOF) the
// parser does not see, and runs what follows as commands.
func hdocJoins(src string, rd *syntax.Redirect) bool {
	if rd.Hdoc == nil || rd.Op != syntax.Hdoc && rd.Op != syntax.DashHdoc {
		return false
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.Contains(l.Value, `\`) {
			quoted = true
		}
	}
	if quoted {
		return false
	}
	start, end := int(rd.Hdoc.Pos().Offset()), int(rd.Hdoc.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return true
	}
	// The body's end is at the delimiter line; take the rest of the line
	// too, so a last line ending in a backslash counts.
	if nl := strings.IndexByte(src[end:], '\n'); nl >= 0 {
		end += nl + 1
	} else {
		end = len(src)
	}
	return strings.Contains(src[start:end], "\\\n")
}
