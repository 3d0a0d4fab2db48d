package selector

import (
	"errors"
	"strings"
	"testing"
)

// validSelectors maps inputs to their canonical form.
var validSelectors = []struct{ in, want string }{
	{`role:button name:Save`, `role:button name:Save`},
	{`role:button && name:Save`, `role:button name:Save`},
	{`role:button&&name:Save`, `role:button name:Save`},
	{"role:button\t\n name:Save", `role:button name:Save`},
	{`  role:button  `, `role:button`},
	{`role:button,role:link`, `role:button || role:link`},
	{`role:link || role:button`, `role:link || role:button`},
	{`(role:link || role:button) && name~:next`, `(role:link || role:button) name~:next`},
	{`window:"Save File" >> role:textbox name:Name`, `window:"Save File" >> role:textbox name:Name`},
	{`role:row name~:john >> role:link name:Edit`, `role:row name~:john >> role:link name:Edit`},
	{`role:button>>role:link`, `role:button >> role:link`},
	{`role:link || role:button role:row >> role:cell`, `role:link || role:button role:row >> role:cell`},
	{`e41`, `e41`},
	{`@e41`, `e41`},
	{`e41 state:focused`, `e41 state:focused`},
	{`!state:disabled`, `!state:disabled`},
	{`! state:disabled`, `!state:disabled`},
	{`!!role:button`, `!!role:button`},
	{`!(role:button || role:link)`, `!(role:button || role:link)`},
	{`(role:button)`, `(role:button)`},
	{`((role:button))`, `((role:button))`},
	{`( role:button )`, `(role:button)`},
	{`(role:dialog >> role:button)`, `(role:dialog >> role:button)`},
	{`ROLE:BUTTON`, `role:button`},
	{`Name:Save`, `name:Save`},
	// Role aliases print as their canonical role when they mean one.
	{`role:Edit`, `role:textbox`},
	{`role:"push button"`, `role:button`},
	{`role:push_button`, `role:button`},
	{`role:PushButton`, `role:button`},
	{`role:TabItem`, `role:tab`},
	{`role:page_tab_list`, `role:tablist`},
	{`role:Hyperlink`, `role:link`},
	{`role:entry`, `role:textbox`},
	{`role:StaticText`, `role:text`},
	{`role:doc-toc`, `role:doc-toc`},
	{`role:text`, `role:text`},
	{`role:TEXT`, `role:text`},
	{`role:frame`, `role:frame`},
	{`role:table_cell`, `role:tablecell`},
	{`role:/^menuitem/`, `role:/^menuitem/`},
	// Values: bare when safe, quoted otherwise.
	{`name:'it\'s'`, `name:it's`},
	{`name:"Save"`, `name:Save`},
	{`name:"say \"hi\""`, `name:"say \"hi\""`},
	{`name:'say "hi"'`, `name:"say \"hi\""`},
	{`name:"back\\slash"`, `name:back\slash`},
	{`name:back\slash`, `name:back\slash`},
	{`name:"a\nb"`, `name:"a\nb"`},
	{`name:"a\tb"`, `name:"a\tb"`},
	{`name:""`, `name:""`},
	{`name:"a,b"`, `name:"a,b"`},
	{`name:"(x)"`, `name:"(x)"`},
	{`name:"a&&b"`, `name:"a&&b"`},
	{`name:"/x/"`, `name:"/x/"`},
	{`name:a>b`, `name:a>b`},
	{`name:a&b`, `name:a&b`},
	{`name:a|b`, `name:a|b`},
	{`name:C++`, `name:C++`},
	{`name:50%`, `name:50%`},
	{`name:e12`, `name:e12`},
	{`name:!x`, `name:!x`},
	{`name:a:b`, `name:a:b`},
	{`name:日本語`, `name:日本語`},
	{"name:\xffx", "name:\ufffdx"}, // invalid UTF-8 reads as U+FFFD
	{"name:\"a\xffb c\"", "name:\"a\ufffdb c\""},
	{`name:"日本 語"`, `name:"日本 語"`},
	{`name:a,name:b`, `name:a || name:b`},
	// Regexes keep their source; flags print in the order i, s, m.
	{`name:/^Save( as)?$/i`, `name:/^Save( as)?$/i`},
	{`name:/a\/b/`, `name:/a\/b/`},
	{`name:/x/mi`, `name:/x/im`},
	{`name:/x/iii`, `name:/x/i`},
	{`name://`, `name://`},
	{`name:/a\\/`, `name:/a\\/`},
	{`text:/sign\s+in/i`, `text:/sign\s+in/i`},
	// Every key.
	{`text:hello`, `text:hello`},
	{`text~:hello`, `text:hello`},
	{`value:abc`, `value:abc`},
	{`value~:abc`, `value~:abc`},
	{`value:/^a/`, `value:/^a/`},
	{`id:main`, `id:main`},
	{`id~:ma`, `id~:ma`},
	{`state:Checked`, `state:checked`},
	{`state:enabled`, `state:enabled`},
	{`state:UNCHECKED`, `state:unchecked`},
	{`window:Save`, `window:Save`},
	{`window~:save`, `window~:save`},
	{`app:gedit window:/save/i`, `app:gedit window:/save/i`},
	{`app~:calc`, `app~:calc`},
	{`tab:2 >> role:link`, `tab:2 >> role:link`},
	{`tab:"Docs"`, `tab:Docs`},
	{`tab~:doc`, `tab~:doc`},
	{`tab:/^Do/`, `tab:/^Do/`},
	{`url:*example.com/login*`, `url:*example.com/login*`},
	{`url:/login`, `url:"/login"`},
	{`url:/api/v1`, `url:"/api/v1"`},
	{`url:/log.n/i`, `url:/log.n/i`},
	{`url~:login`, `url~:login`},
	{`url:https://acme.test/a`, `url:https://acme.test/a`},
	{`nth:2`, `nth:2`},
	{`nth:-1`, `nth:-1`},
	{`nth:+3`, `nth:3`},
	{`nth:"2"`, `nth:2`},
	{`role:button nth:2`, `role:button nth:2`},
}

func TestParseValid(t *testing.T) {
	for _, tt := range validSelectors {
		sel, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got := sel.String()
		if got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
			continue
		}
		again, err := Parse(got)
		if err != nil {
			t.Errorf("Parse(%q) (the canonical form of %q): %v", got, tt.in, err)
			continue
		}
		if again.String() != got {
			t.Errorf("canonical form not stable: %q → %q", got, again.String())
		}
	}
}

// invalidSelectors lists inputs with the column and message of their error.
var invalidSelectors = []struct {
	in  string
	col int
	msg string
}{
	{``, 1, `empty selector`},
	{`   `, 1, `empty selector`},
	{`name:`, 6, `expected a value after "name:"`},
	{`role:button name: `, 18, `expected a value after "name:"`},
	{`role:button name:`, 18, `expected a value after "name:"`},
	{`name~:`, 7, `expected a value after "name~:"`},
	{`name:(x)`, 6, `expected a value after "name:" (quote a value that holds parentheses, commas or operators)`},
	{`name:&&x`, 6, `expected a value after "name:" (quote a value that holds parentheses, commas or operators)`},
	{`Save`, 1, `"Save" is not a selector: write name:"Save" or text:"Save"`},
	{`role:button Save`, 13, `"Save" is not a selector: write name:"Save" or text:"Save"`},
	{`"Sign in"`, 1, `"Sign in" needs a key: write name:"Sign in" or text:"Sign in"`},
	{`/save/i`, 1, `a regex needs a key: write name:/save/i or text:/save/i`},
	{`button`, 1, `"button" is not a selector: write name:"button", text:"button" or role:button`},
	{`role:link Edit`, 11, `"Edit" is not a selector: write name:"Edit", text:"Edit" or role:textbox`},
	{`checked`, 1, `"checked" is not a selector: write name:"checked", text:"checked" or state:checked`},
	{`e12x`, 1, `"e12x" is not a selector: write name:"e12x" or text:"e12x"`},
	{`role:buton`, 6, `unknown role "buton" (did you mean button?)`},
	{`role:"buton"`, 6, `unknown role "buton" (did you mean button?)`},
	{`role:pushbuton`, 6, `unknown role "pushbuton" (did you mean button?)`},
	{`role:checkbx`, 6, `unknown role "checkbx" (did you mean checkbox?)`},
	{`role:xyzzy`, 6, `unknown role "xyzzy" (roles are ARIA names such as button, link, textbox, checkbox, heading, row, dialog)`},
	{`role~:button`, 1, `role does not take "~:" (only name, value, id, window, app, tab and url do): write role:`},
	{`nme:x`, 1, `unknown key "nme" (did you mean name?)`},
	{`rol:button`, 1, `unknown key "rol" (did you mean role?)`},
	{`foo:bar`, 1, `unknown key "foo" (keys: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`e12:x`, 1, `unknown key "e12" (keys: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`:x`, 1, `expected a key before ":" (one of: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`~:x`, 1, `expected a key before "~:" (one of: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`state:chcked`, 7, `unknown state "chcked" (did you mean checked? states: focused, disabled, checked, mixed, selected, expanded, collapsed, pressed, required, readonly, invalid, busy, modal, protected, multiline, clickable, enabled, unchecked)`},
	{`state:zzz`, 7, `unknown state "zzz" (states: focused, disabled, checked, mixed, selected, expanded, collapsed, pressed, required, readonly, invalid, busy, modal, protected, multiline, clickable, enabled, unchecked)`},
	{`state:/x/`, 7, `state: takes a plain value, not a regex`},
	{`state~:checked`, 1, `state does not take "~:" (only name, value, id, window, app, tab and url do): write state:`},
	{`nth:0`, 5, `nth: counts from 1 (nth:1 is the first, nth:-1 the last)`},
	{`nth:-0`, 5, `nth: counts from 1 (nth:1 is the first, nth:-1 the last)`},
	{`nth:x`, 5, `nth: takes a whole number, e.g. nth:2 or nth:-1 for the last`},
	{`nth:1.5`, 5, `nth: takes a whole number, e.g. nth:2 or nth:-1 for the last`},
	{`nth:/1/`, 5, `nth: takes a plain value, not a regex`},
	{`name:"abc`, 6, `unterminated string: missing closing "`},
	{`name:'abc`, 6, `unterminated string: missing closing '`},
	{`name:"abc\"`, 6, `unterminated string: missing closing "`},
	{`name:/abc`, 6, `unterminated regex: missing closing /`},
	{`name:/abc\/`, 6, `unterminated regex: missing closing /`},
	{`role:button name:/a(/`, 18, "bad regex: missing closing ): `a(`"},
	{`name:/*/`, 6, "bad regex: missing argument to repetition operator: `*`"},
	{`name:/a/g`, 9, `unknown regex flag "g" (flags: i, s, m)`},
	{`name:/a/ig`, 10, `unknown regex flag "g" (flags: i, s, m)`},
	{`(role:button`, 1, `"(" is never closed`},
	{`role:link (role:button`, 11, `"(" is never closed`},
	{`((role:button)`, 1, `"(" is never closed`},
	{`role:button)`, 12, `unmatched ")"`},
	{`)`, 1, `unmatched ")"`},
	{`(role:button))`, 14, `unmatched ")"`},
	{`()`, 1, `empty parentheses`},
	{`role:link ( )`, 11, `empty parentheses`},
	{`role:button &&`, 15, `expected a selector after "&&"`},
	{`role:button && || role:link`, 16, `expected a selector after "&&"`},
	{`role:button ||`, 15, `expected a selector after "||"`},
	{`role:button ,`, 14, `expected a selector after ","`},
	{`role:button >>`, 15, `expected a selector after ">>"`},
	{`role:button >> )`, 16, `expected a selector after ">>"`},
	{`(role:button ||)`, 16, `expected a selector after "||"`},
	{`>> role:button`, 1, `expected a selector before ">>"`},
	{`|| role:button`, 1, `expected a selector before "||"`},
	{`, role:button`, 1, `expected a selector before ","`},
	{`&& role:button`, 1, `expected a selector before "&&"`},
	{`( || role:button)`, 3, `expected a selector before "||"`},
	{`!`, 2, `expected a selector after "!"`},
	{`role:button !`, 14, `expected a selector after "!"`},
	{`!)`, 2, `expected a selector after "!"`},
	{`role:button & name:x`, 13, `a single "&" is not an operator: write && (or a space) for AND`},
	{`role:button | name:x`, 13, `a single "|" is not an operator: write || (or a comma) for OR`},
	{`role:button > role:link`, 13, `a single ">" is not an operator: write >> for a descendant`},
	{`name:"a"b`, 9, `expected a space or an operator (&&, ||, >>) before "b"`},
	{`name:/a/1`, 9, `expected a space or an operator (&&, ||, >>) before "1"`},
	{`(role:button)role:link`, 14, `expected a space or an operator (&&, ||, >>) before "r"`},
	{`role:button(name:x)`, 12, `expected a space or an operator (&&, ||, >>) before "("`},
	// Columns count runes, not bytes; an invalid byte is one rune.
	{"name:\xff\xfe x:y", 9, `unknown key "x" (keys: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`name:é x:y`, 8, `unknown key "x" (keys: role, name, text, value, id, state, window, app, tab, url, nth)`},
	{`name:"日本語" role:bouton`, 17, `unknown role "bouton" (did you mean button?)`},
	{"name:\"a\nb\" nth:0", 16, `nth: counts from 1 (nth:1 is the first, nth:-1 the last)`},
	{strings.Repeat("(", 65) + "role:button" + strings.Repeat(")", 65), 65, `selector nested too deeply (more than 64 levels)`},
	{strings.Repeat("!", 65) + "role:button", 65, `selector nested too deeply (more than 64 levels)`},
}

func TestParseInvalid(t *testing.T) {
	for _, tt := range invalidSelectors {
		sel, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) = %q, want an error at column %d", tt.in, sel, tt.col)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error %T, want *SyntaxError", tt.in, err)
			continue
		}
		if se.Col != tt.col || se.Msg != tt.msg {
			t.Errorf("Parse(%q):\n got column %d: %s\nwant column %d: %s", tt.in, se.Col, se.Msg, tt.col, tt.msg)
		}
		if se.Input != tt.in {
			t.Errorf("Parse(%q): Input = %q", tt.in, se.Input)
		}
	}
}

func TestSyntaxErrorText(t *testing.T) {
	_, err := Parse("role:button name: ")
	if got, want := err.Error(), `selector column 18: expected a value after "name:"`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var se *SyntaxError
	errors.As(err, &se)
	if got, want := se.Caret(), "role:button name: \n                 ^"; got != want {
		t.Errorf("Caret() =\n%s\nwant\n%s", got, want)
	}
	_, err = Parse("name:\"a\tb\nc\" nth:x")
	errors.As(err, &se)
	if got, want := se.Caret(), "name:\"a b c\" nth:x\n                 ^"; got != want {
		t.Errorf("Caret() =\n%s\nwant\n%s", got, want)
	}
}

func TestIsRef(t *testing.T) {
	for s, want := range map[string]bool{
		"e1": true, "e123": true, "@e12": true, " e7 ": true,
		"e": false, "@e": false, "E12": false, "e12x": false, "12": false, "": false,
		"name:e12": false, "ee12": false, "@@e12": false,
	} {
		if got := IsRef(s); got != want {
			t.Errorf("IsRef(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestMustParse(t *testing.T) {
	if got := MustParse("role:Edit").String(); got != "role:textbox" {
		t.Errorf("MustParse(role:Edit) = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParse of a bad selector did not panic")
		}
	}()
	MustParse("role:")
}

func TestWanted(t *testing.T) {
	for _, c := range []struct {
		sel, role, name string
		ok              bool
	}{
		{`role:button name:"Edit User 0500"`, "button", "Edit User 0500", true},
		{`role:row name~:"42 |" >> role:textbox name:Name`, "textbox", "Name", true},
		{`role:button name:Save state:enabled`, "button", "Save", true},
		{`name:Save role:link`, "link", "Save", true},
		{`role:button name~:Save`, "", "", false},
		{`role:button`, "", "", false},
		{`name:Save`, "", "", false},
		{`role:button name:Save || role:link name:Save`, "", "", false},
		{`role:button name:Save >> role:link`, "", "", false},
		{`e12`, "", "", false},
	} {
		s, err := Parse(c.sel)
		if err != nil {
			t.Fatalf("%s: %v", c.sel, err)
		}
		role, name, ok := s.Wanted()
		if role != c.role || name != c.name || ok != c.ok {
			t.Errorf("%s: Wanted() = %q, %q, %v; want %q, %q, %v", c.sel, role, name, ok, c.role, c.name, c.ok)
		}
	}
}
