package shell

import (
	"errors"
	"fmt"
	"strings"
)

// A script is a list of pipelines, run in order; the first error stops it.
type list struct {
	items []*pipeline
}

// pipeline is commands joined by '|': each one's output is the next one's
// input.
type pipeline struct {
	cmds []command
	line int    // where it starts, for errors
	text string // its source, for errors
}

// command is one of simple, *forLoop, *eachTab or *scriptSave.
type command interface{ at() int }

// simple is a command and its arguments: `ls -l main`, `click e14`.
type simple struct {
	words []word
	line  int
}

// forLoop is `for NAME in WORDS; do LIST; done`.
type forLoop struct {
	name  string
	items []word
	body  *list
	line  int
}

// eachTab is `each tab do LIST done` or `each tab PIPELINE`: the body runs
// once in every tab.
type eachTab struct {
	body *list
	line int
}

// scriptSave is `script save NAME do LIST done`: the body is kept, not run.
type scriptSave struct {
	name   string
	source string
	line   int
}

func (c *simple) at() int     { return c.line }
func (c *forLoop) at() int    { return c.line }
func (c *eachTab) at() int    { return c.line }
func (c *scriptSave) at() int { return c.line }

// parser reads tokens into a list.
type parser struct {
	src  []rune
	toks []token
	i    int
}

// parse reads a script. firstLine numbers its first line (a
// substitution's command keeps its script's line numbers).
func parse(src string, firstLine int) (*list, error) {
	toks, err := lex(src, firstLine)
	if err != nil {
		return nil, err
	}
	p := &parser{src: []rune(src), toks: toks}
	l, err := p.list(false)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errorf(t, "unexpected %q", p.text(t))
	}
	return l, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) take() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// Incomplete reports whether src ends inside a quote, a $( or a loop, or
// after a '|': a REPL reads another line before running it.
func Incomplete(src string) bool {
	_, err := parse(src, 1)
	var se *SyntaxError
	return errors.As(err, &se) && se.Incomplete
}

func (p *parser) errorf(t token, f string, args ...any) error {
	e := &SyntaxError{Line: t.line, Col: t.col}
	e.Msg = fmt.Sprintf(f, args...)
	return e
}

// text is a token's source.
func (p *parser) text(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokLine:
		return "newline"
	}
	return string(p.src[t.off:t.end])
}

// keyword reports whether t is the bare word kw.
func keyword(t token, kw string) bool {
	return t.kind == tokWord && t.word.lit() == kw
}

// skipSeparators passes over ';' and newlines.
func (p *parser) skipSeparators() {
	for k := p.peek().kind; k == tokSemi || k == tokLine; k = p.peek().kind {
		p.take()
	}
}

// list reads pipelines up to the end, or up to `done` when inBlock.
func (p *parser) list(inBlock bool) (*list, error) {
	l := &list{}
	for {
		p.skipSeparators()
		t := p.peek()
		if t.kind == tokEOF || (inBlock && keyword(t, "done")) {
			return l, nil
		}
		if keyword(t, "done") || keyword(t, "do") {
			return nil, p.errorf(t, "%q without a for or each before it", p.text(t))
		}
		pl, err := p.pipeline()
		if err != nil {
			return nil, err
		}
		l.items = append(l.items, pl)
	}
}

// pipeline reads commands joined by '|'.
func (p *parser) pipeline() (*pipeline, error) {
	first := p.peek()
	pl := &pipeline{line: first.line}
	for {
		c, err := p.command()
		if err != nil {
			return nil, err
		}
		pl.cmds = append(pl.cmds, c)
		if p.peek().kind != tokPipe {
			break
		}
		bar := p.take()
		if k := p.peek().kind; k != tokWord {
			err := p.errorf(bar, "| needs a command after it").(*SyntaxError)
			err.Incomplete = k == tokEOF
			return nil, err
		}
	}
	pl.text = strings.TrimSpace(string(p.src[first.off:p.toks[p.i-1].end]))
	return pl, nil
}

// command reads one command: a loop, a saved script, or a simple command.
func (p *parser) command() (command, error) {
	t := p.peek()
	switch {
	case t.kind != tokWord:
		return nil, p.errorf(t, "expected a command, found %s", p.text(t))
	case keyword(t, "for"):
		return p.forLoop()
	case keyword(t, "each"):
		return p.each()
	}
	c := &simple{line: t.line}
	for p.peek().kind == tokWord {
		if len(c.words) == 3 && keyword(p.peek(), "do") && c.words[0].lit() == "script" && c.words[1].lit() == "save" {
			return p.scriptBlock(c)
		}
		c.words = append(c.words, p.take().word)
	}
	return c, nil
}

// forLoop reads `for NAME in WORDS; do LIST; done`.
func (p *parser) forLoop() (command, error) {
	head := p.take()
	name := p.peek()
	if name.kind != tokWord || !validName(name.word.lit()) {
		return nil, p.errorf(name, "for needs a variable name: for x in a b c; do …; done")
	}
	p.take()
	if in := p.peek(); !keyword(in, "in") {
		return nil, p.errorf(in, "for %s needs in: for %s in a b c; do …; done", name.word.lit(), name.word.lit())
	}
	p.take()
	f := &forLoop{name: name.word.lit(), line: head.line}
	for t := p.peek(); t.kind == tokWord && !keyword(t, "do"); t = p.peek() {
		f.items = append(f.items, p.take().word)
	}
	body, err := p.block(head, "for")
	if err != nil {
		return nil, err
	}
	f.body = body
	return f, nil
}

// each reads `each tab do LIST done` or `each tab PIPELINE`.
func (p *parser) each() (command, error) {
	head := p.take()
	if t := p.peek(); !keyword(t, "tab") {
		return nil, p.errorf(t, "each takes tab: each tab do text | head -n 3; done")
	}
	p.take()
	e := &eachTab{line: head.line}
	if keyword(p.peek(), "do") || p.peek().kind == tokSemi || p.peek().kind == tokLine {
		body, err := p.block(head, "each tab")
		if err != nil {
			return nil, err
		}
		e.body = body
		return e, nil
	}
	if p.peek().kind != tokWord {
		return nil, p.errorf(p.peek(), "each tab needs a command: each tab text")
	}
	pl, err := p.pipeline()
	if err != nil {
		return nil, err
	}
	e.body = &list{items: []*pipeline{pl}}
	return e, nil
}

// block reads `[;] do LIST done` after a loop's head.
func (p *parser) block(head token, what string) (*list, error) {
	p.skipSeparators()
	if t := p.peek(); !keyword(t, "do") {
		err := p.errorf(t, "%s needs do after its list: %s …; do …; done", what, what).(*SyntaxError)
		err.Incomplete = t.kind == tokEOF
		return nil, err
	}
	p.take()
	body, err := p.list(true)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); !keyword(t, "done") {
		err := p.errorf(head, "%s without done (the loop that starts here is never closed)", what).(*SyntaxError)
		err.Incomplete = t.kind == tokEOF
		return nil, err
	}
	p.take()
	return body, nil
}

// scriptBlock reads the `do LIST done` of `script save NAME do … done`,
// keeping its source.
func (p *parser) scriptBlock(c *simple) (command, error) {
	name := c.words[2].lit()
	if !validName(strings.ReplaceAll(name, "-", "_")) {
		return nil, p.errorf(p.peek(), "a script's name is letters, digits, - and _")
	}
	do := p.take()
	start := p.i
	if _, err := p.list(true); err != nil {
		return nil, err
	}
	if t := p.peek(); !keyword(t, "done") {
		err := p.errorf(do, "script save %s: do without done", name).(*SyntaxError)
		err.Incomplete = t.kind == tokEOF
		return nil, err
	}
	src := ""
	if p.i > start {
		src = string(p.src[p.toks[start].off:p.toks[p.i-1].end])
	}
	p.take()
	return &scriptSave{name: name, source: strings.TrimSpace(src), line: c.line}, nil
}
