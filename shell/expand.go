package shell

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// arg is a word after expansion: its value, and its text for the step
// parser. A quoted part is quoted again, so `name:"Sign in"` stays a
// selector's value; a word that begins with a quote, or with a value, is
// one quoted argument (`"a@b.c"`, `$x`); and what a variable or $(…)
// gave is always quoted, so page text never reads as step syntax.
type arg struct {
	val, raw string
	// quoted: the word began with a quote or a value: it is one argument
	// of a step, never a keyword or a flag.
	quoted bool
	// data: the word holds what a variable or $(…) gave: it is never a
	// flag, a command's name or commands to run.
	data bool
}

// expand turns words into args: variables take their values, and an
// unquoted $(command) becomes one arg per line of its output.
func (sh *Shell) expand(ctx context.Context, words []word, fr *frame, st *state) ([]arg, error) {
	var out []arg
	for _, w := range words {
		as, err := sh.expandWord(ctx, w, fr, st)
		if err != nil {
			return nil, err
		}
		out = append(out, as...)
	}
	return out, nil
}

func (sh *Shell) expandWord(ctx context.Context, w word, fr *frame, st *state) ([]arg, error) {
	if len(w.parts) == 0 {
		return []arg{{}}, nil
	}
	if vals, ok, err := sh.bare(ctx, w, fr, st); err != nil {
		return nil, err
	} else if ok {
		out := make([]arg, len(vals))
		for i, v := range vals {
			out[i] = arg{val: v, raw: requote(v), quoted: true, data: true}
		}
		return out, nil
	}
	var val, raw strings.Builder
	data := false
	for _, p := range w.parts {
		var text string
		switch p.kind {
		case literal:
			text = p.text
		case variable:
			v, err := fr.lookup(p.text)
			if err != nil {
				return nil, err
			}
			text, data = v, true
		case subst:
			lines, err := sh.substitute(ctx, p, fr, st)
			if err != nil {
				return nil, err
			}
			text, data = strings.Join(lines, "\n"), true
		}
		val.WriteString(text)
		if p.quote != 0 || p.kind != literal {
			raw.WriteString(requote(text))
		} else {
			raw.WriteString(text)
		}
	}
	a := arg{val: val.String(), raw: raw.String(), data: data}
	if first := w.parts[0]; first.quote != 0 || first.kind != literal {
		a.quoted, a.raw = true, requote(a.val)
	}
	return []arg{a}, nil
}

// bare reads a word that is a bare $(…), one word per line of its
// output (for x in $(ls) …), or a bare $@, one word per argument; ok is
// false for any other word.
func (sh *Shell) bare(ctx context.Context, w word, fr *frame, st *state) (vals []string, ok bool, err error) {
	if len(w.parts) != 1 || w.parts[0].quote != 0 {
		return nil, false, nil
	}
	switch p := w.parts[0]; {
	case p.kind == subst:
		lines, err := sh.substitute(ctx, p, fr, st)
		return lines, true, err
	case p.kind == variable && p.text == "@":
		return fr.args, true, nil
	}
	return nil, false, nil
}

// requote writes text as a double-quoted string the step parser and the
// selector grammar read back as text.
func requote(text string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(text) + `"`
}

// substitute runs a $(command) and returns its output's non-empty lines.
func (sh *Shell) substitute(ctx context.Context, p part, fr *frame, st *state) ([]string, error) {
	l, err := parse(p.text, p.line)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := sh.list(ctx, l, fr, st, &b); err != nil {
		return nil, err
	}
	var lines []string
	for _, line := range strings.Split(b.String(), "\n") {
		if s := strings.TrimSpace(line); s != "" {
			lines = append(lines, s)
		}
	}
	return lines, nil
}

// lookup returns a variable's value: a loop variable, a script argument
// ($1…$9), all of them ($@) or their count ($#).
func (fr *frame) lookup(name string) (string, error) {
	switch {
	case name == "@":
		return strings.Join(fr.args, " "), nil
	case name == "#":
		return strconv.Itoa(len(fr.args)), nil
	case name[0] >= '0' && name[0] <= '9':
		i, _ := strconv.Atoi(name)
		if i == 0 || i > len(fr.args) {
			return "", fmt.Errorf("$%s is not set: the script got %d argument(s)", name, len(fr.args))
		}
		return fr.args[i-1], nil
	}
	v, ok := fr.vars[name]
	if !ok {
		return "", fmt.Errorf("$%s is not set (variables are set by for, and $1… by script run)", name)
	}
	return v, nil
}
