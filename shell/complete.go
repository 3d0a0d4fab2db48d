package shell

import (
	"context"
	"strings"
)

// Complete lists what may finish the word that ends at pos in line, for a
// REPL's Tab: command names where a command starts, else the paths of the
// folder the word is in. head and tail are the line before and after the
// word, as a line editor's word completer returns them. Listing a folder
// reads the workspace through the executor, as ls does.
func (sh *Shell) Complete(ctx context.Context, line string, pos int) (head string, items []string, tail string) {
	rs := []rune(line)
	pos = min(max(pos, 0), len(rs))
	start := wordStart(rs, pos)
	head, tail = string(rs[:start]), string(rs[pos:])
	typed := unshell(string(rs[start:pos]))
	if commandPosition(head) {
		for _, n := range commandNames() {
			if strings.HasPrefix(n, typed) {
				items = append(items, n+" ")
			}
		}
		return head, items, tail
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	dir, base := "", typed
	if i := strings.LastIndex(typed, "/"); i >= 0 {
		dir, base = typed[:i+1], typed[i+1:]
	}
	c := &call{sh: sh, ctx: ctx}
	where := dir
	if where == "" {
		where = "."
	}
	l, err := c.locateOne(where)
	if err != nil {
		return head, nil, tail
	}
	names, _, err := c.entries(l)
	if err != nil {
		return head, nil, tail
	}
	// The names are escaped as paths print them (%2F, %40…); what was
	// typed may be either way.
	low, plain := strings.ToLower(base), strings.ToLower(unescape(base))
	for _, n := range names {
		if l := strings.ToLower(n); strings.HasPrefix(l, low) || strings.HasPrefix(unescape(l), plain) {
			items = append(items, shellWord(dir+n))
		}
	}
	return head, items, tail
}

// wordStart finds where the word ending at pos starts: after unescaped
// whitespace or an operator.
func wordStart(rs []rune, pos int) int {
	i := pos
	for i > 0 {
		r := rs[i-1]
		if (r == ' ' || r == '\t' || r == ';' || r == '|') && !(i >= 2 && rs[i-2] == '\\') {
			break
		}
		i--
	}
	return i
}

// commandPosition reports whether a word after head starts a command.
func commandPosition(head string) bool {
	h := strings.TrimSpace(head)
	if h == "" || strings.HasSuffix(h, ";") || strings.HasSuffix(h, "|") {
		return true
	}
	f := strings.Fields(h)
	last := f[len(f)-1]
	return last == "do" || (len(f) >= 2 && f[len(f)-2] == "each" && last == "tab")
}

// unshell removes a word's backslash escapes (what shellWord adds).
func unshell(s string) string {
	var b strings.Builder
	esc := false
	for _, r := range s {
		if r == '\\' && !esc {
			esc = true
			continue
		}
		esc = false
		b.WriteRune(r)
	}
	return b.String()
}

// shellWord escapes the characters the shell would read otherwise.
func shellWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(" \t;|&<>'\"$\\#()", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
