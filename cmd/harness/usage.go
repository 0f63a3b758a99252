package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/kong"
)

// promptText is the value of -p. It is read by its own decoder so that a
// -p with no text after it says so plainly, rather than as a parser's
// error about tokens.
type promptText string

// errNoPrompt is the error of a -p given nothing to send.
var errNoPrompt = errors.New(`-p needs the text to send after it, as in: harness -p "what does this project do?"`)

func (p *promptText) Decode(ctx *kong.DecodeContext) error {
	t := ctx.Scan.Pop()
	if !t.IsValue() {
		return errNoPrompt
	}
	s, ok := t.Value.(string)
	if !ok {
		return errNoPrompt
	}
	*p = promptText(s)
	return nil
}

// wordsError is the error for words given to harness that name no command:
// most likely a question meant for -p.
func wordsError(words []string) error {
	text := strings.Join(words, " ")
	return fmt.Errorf("%s is not a command of harness. To ask the model, use -p: harness -p %s; for a conversation, run harness with no words (the REPL); harness --help lists the commands",
		strconv.Quote(words[0]), strconv.Quote(text))
}
