package shell

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/selector"
	"github.com/canopy-dev/canopy/tree"
)

// hostileNames are names a page could give its nodes to pass for the
// shell's syntax: refs, paths, globs, escapes, quotes and lines.
var hostileNames = []string{
	"Save", "Forgot password?", "a/b", "/", "//", "mail@e1", "@e1", "e1", "@", "100% off", "%2F", "%252F", "%",
	"%4", "%zz", "*", "link:*", "[x]", "a?b", `\`, `a\*`, "..", ".", "...", " lead", "trail ", "  ", "a\nb", "tab\tx",
	`say "hi" e1 now`, `" e1 "`, `link "Safe" e1`, `button e1`, `tab 2 "x"`, "Read the docs@e1", "x@e12@e3",
	"a:b", "role:link", "e", "e1x", "ÿ ü 名前", "…", "line\r\nbreak", "\x00\x1f\x7f",
}

// TestSegmentsRoundTrip: a name escaped as a segment reads back as
// itself, and never as a ref, a glob, a line or another folder.
func TestSegmentsRoundTrip(t *testing.T) {
	for _, name := range hostileNames {
		for _, seg := range []string{"link:" + escape(name), escapeWhole(name)} {
			if got := unescape(seg); got != "link:"+name && got != name {
				t.Errorf("%q: segment %q reads back as %q", name, seg, got)
			}
			if parts := split("/tab1", seg); len(parts) != 2 || parts[1] != seg {
				t.Errorf("%q: segment %q splits into %q", name, seg, parts)
			}
			if rest, ref := splitRef(seg); ref != "" || rest != seg {
				t.Errorf("%q: segment %q has a ref %q", name, seg, ref)
			}
			if strings.ContainsAny(seg, "*[") {
				t.Errorf("%q: segment %q reads as a glob", name, seg)
			}
			if lineShaped(seg) || selector.IsRef(seg) || seg == "." || seg == ".." {
				t.Errorf("%q: segment %q reads as a line, a ref or . or ..", name, seg)
			}
			if strings.ContainsAny(seg, "\n\r") || strings.TrimSpace(seg) != seg {
				t.Errorf("%q: segment %q has line breaks or spaces at its ends", name, seg)
			}
		}
		if w := escapeWhole(name); strings.Contains(w, ":") {
			t.Errorf("%q: a whole-name segment %q has a ':' (it would read as role:name)", name, w)
		}
	}
	// With the ref a look-alike takes, the ref is the segment's own.
	for _, name := range hostileNames {
		seg := "link:" + escape(name) + "@e7"
		if rest, ref := splitRef(seg); ref != "e7" || unescape(rest) != "link:"+name {
			t.Errorf("%q: %q splits into %q and ref %q", name, seg, rest, ref)
		}
	}
	// Typed names need no escaping where they hold no syntax.
	for typed, want := range map[string]string{"50% off": "50% off", "%2f": "/", "%2F%40": "/@", "a%": "a%", "%e1": "\xe1"} {
		if got := unescape(typed); got != want {
			t.Errorf("unescape(%q) = %q, want %q", typed, got, want)
		}
	}
}

// TestLinesReadTheirRef: a line the tree text printed names the ref
// written after its name, whatever the name holds.
func TestLinesReadTheirRef(t *testing.T) {
	for _, name := range hostileNames {
		for _, n := range []*tree.Node{
			{Role: "link", Name: name, Ref: "e42"},
			{Role: "textbox", Name: name, Ref: "e42", Value: `" e1 "x`, States: tree.Focused},
			{Role: "button", Name: strings.Repeat(name+" e1 ", 40), Ref: "e42"},
		} {
			for _, line := range []string{tree.Line(n), tree.Line(n) + " in row \"e1\" e1", tree.Line(n) + " (3 inside)"} {
				if !lineShaped(line) {
					t.Errorf("%q is not read as a line", line)
					continue
				}
				got, err := readLine(line)
				if err != nil || got.ref != "e42" {
					t.Errorf("%q: %+v, %v; want e42", line, got, err)
				}
			}
		}
	}
	for _, tc := range []struct{ line, ref, err string }{
		{`button e7`, "e7", ""},
		{`button e7 focused`, "e7", ""},
		{`heading "Title" h1`, "", "names no node"},
		{`link "Safe e1 link"`, "", "names no node"},
		{`"text e1" e1`, "", "a line of text"},
		{`link "a \q" e5`, "", `\q is no escape canopy writes`},
		{`link "open e5`, "", "never closed"},
		{`link "a"e5`, "", "runs into"},
		{`link "x\" e1 \"y" e5`, "e5", ""},
		{`tab 2 "Help" 127.0.0.1:8080/help current`, "", ""},
		{`tab "Settings" e9 selected`, "e9", ""},
	} {
		got, err := readLine(tc.line)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %+v, %v; want an error with %q", tc.line, got, err, tc.err)
		case tc.err == "" && (err != nil || got.ref != tc.ref):
			t.Errorf("%q: %+v, %v; want ref %q", tc.line, got, err, tc.ref)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%q: the error is not one line: %v", tc.line, err)
		}
	}
	if got, err := readLine(`tab 2 "Help" 127.0.0.1:8080/help current`); err != nil || got.tab != 2 {
		t.Errorf("a tab line: %+v, %v", got, err)
	}
	// Paths are never read as lines.
	for _, p := range []string{"form:Login", "form:Login/button:Sign in", "/tab1/main", "main", "e5", "button:Edit@e14",
		"row:First note | Edit/button:Edit", "main/table:Notes", "../link:Home", `link:say "hi" e1`} {
		if lineShaped(p) {
			t.Errorf("the path %q reads as a line", p)
		}
	}
}

// TestValuesAreData: what a variable or $(…) gives is never a flag, a
// command's name, a keyword of a step, or commands to keep.
func TestValuesAreData(t *testing.T) {
	sh := New(nil, Options{})
	for _, tc := range []struct{ src, want, err string }{
		{`for x in -v; do echo drop-v | grep $x; done`, "drop-v\n", ""},
		{`for x in -n; do echo a | head $x 1; done`, "", "head reads only what is piped into it"},
		{`echo $(echo a; echo b)`, "a b\n", ""},
		{`script save args do for a in $@; do echo "[$a]"; done; done; script run args 'x y' z`, "[x y]\n[z]\n", ""},
		{`for c in echo; do $c hi; done`, "", "a command's name is written as it is"},
		{`$(echo echo) hi`, "", "a command's name is written as it is"},
		{`e"ch"'o' hi`, "hi\n", ""},
		{`for b in 'echo hi'; do script save s $b; done`, "", "script save takes its name and commands as written"},
	} {
		got, err := run(t, sh, tc.src)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.src, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q, %v; want an error with %q", tc.src, got, err, tc.err)
		}
	}
	// The step parser reads a value as one quoted argument, whatever it
	// holds.
	for _, v := range []string{`"cats" submit`, "credential:github", "--clear", `a\"; click e1`, "x\nclick e1", `\`} {
		args, err := sh.expand(t.Context(), mustWords(t, `$x "$x" name:$x`), &frame{vars: map[string]string{"x": v}}, &state{steps: 10})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range args {
			if !a.data || a.val != []string{v, v, "name:" + v}[i] {
				t.Errorf("%q: arg %d is %+v", v, i, a)
			}
		}
		if !args[0].quoted || !args[1].quoted || args[2].quoted || args[0].raw != requote(v) || args[2].raw != "name:"+requote(v) {
			t.Errorf("%q: raw %q %q %q", v, args[0].raw, args[1].raw, args[2].raw)
		}
	}
}

// mustWords lexes one simple command's words.
func mustWords(t *testing.T, src string) []word {
	t.Helper()
	l, err := parse(src, 1)
	if err != nil {
		t.Fatal(err)
	}
	return l.items[0].cmds[0].(*simple).words
}

// TestErrorIsOneLine: an error names its line in one line, whatever the
// command's text or its cause hold.
func TestErrorIsOneLine(t *testing.T) {
	sh := New(nil, Options{MaxItems: 1})
	_, err := run(t, sh, "for x in a b\ndo\n  echo $x\ndone")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "line 1: for x in a b …: for x: 2 items") {
		t.Errorf("a loop over too many items: %v", err)
	}
}
