package shell

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// arg is a word after expansion: its value, and its text for the step
// parser (quoted parts quoted again, so `name:"Sign in"` stays a
// selector's value and `"a@b.c"` stays an argument).
type arg struct {
	val, raw string
	quoted   bool // the word began with a quote: a step's argument
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
	var val, raw strings.Builder
	quoted := len(w.parts) > 0 && w.parts[0].quote != 0
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
			text = v
		case subst:
			lines, err := sh.substitute(ctx, p, fr, st)
			if err != nil {
				return nil, err
			}
			if p.quote == 0 && len(w.parts) == 1 {
				// A bare $(…) is one word per line: for x in $(ls) …
				out := make([]arg, len(lines))
				for i, l := range lines {
					out[i] = arg{val: l, raw: l}
				}
				return out, nil
			}
			text = strings.Join(lines, "\n")
		}
		val.WriteString(text)
		if p.quote != 0 {
			raw.WriteString(requote(text))
		} else {
			raw.WriteString(text)
		}
	}
	return []arg{{val: val.String(), raw: raw.String(), quoted: quoted}}, nil
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
