package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// run runs src on a shell without a session: only the commands that
// touch no page (echo, the filters, loops, scripts).
func run(t *testing.T, sh *Shell, src string) (string, error) {
	t.Helper()
	var b strings.Builder
	err := sh.Run(context.Background(), src, &b)
	return b.String(), err
}

func TestInterpreter(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`echo a b`, "a b\n"},
		{`echo 'a  b' "c  d"`, "a  b c  d\n"},
		{"echo one; echo two\necho three", "one\ntwo\nthree\n"},
		{`echo "a;b" 'c|d' e\;f`, "a;b c|d e;f\n"},
		{`echo x # a comment`, "x\n"},
		{`for x in a b c; do echo "[$x]"; done`, "[a]\n[b]\n[c]\n"},
		{"for x in a b\ndo\n  echo $x\ndone", "a\nb\n"},
		{`for x in $(echo p; echo q); do echo "$x!"; done`, "p!\nq!\n"},
		{`for x in "$(echo p; echo q)"; do echo "[$x]"; done`, "[p\nq]\n"},
		{`for x in 1 2; do for y in a b; do echo $x$y; done; done`, "1a\n1b\n2a\n2b\n"},
		{`echo "a\"b" \$x`, "a\"b $x\n"},
		// A selector's operators are words: the shell has none of its own.
		{`echo role:row >> role:link && name~:next || (role:button) | grep link`, "role:row >> role:link && name~:next || (role:button)\n"},
	} {
		got, err := run(t, New(nil, Options{}), tc.src)
		if err != nil || got != tc.want {
			t.Errorf("%s:\ngot  %q, %v\nwant %q", tc.src, got, err, tc.want)
		}
	}
}

func TestPipes(t *testing.T) {
	sh := New(nil, Options{})
	src := `for x in apple banana cherry date; do echo $x; done`
	for _, tc := range []struct{ pipe, want string }{
		{"| head -n 2", "apple\nbanana\n"},
		{"| tail -n 1", "date\n"},
		{"| tail -n2", "cherry\ndate\n"},
		{"| grep an", "banana\n"},
		{"| grep -v a", "cherry\n"},
		{"| grep -i APPLE", "apple\n"},
		{"| grep -c a", "3\n"},
		{"| grep -c -e -x", "0\n"},
		{"| grep -e an", "banana\n"},
		{"| grep '^[bc]' | wc -l", "2\n"},
		{"| wc", "4 4 25\n"},
		{"| wc -w -l", "4 4\n"},
	} {
		got, err := run(t, sh, src+" "+tc.pipe)
		if err != nil || got != tc.want {
			t.Errorf("… %s: got %q, %v; want %q", tc.pipe, got, err, tc.want)
		}
	}
}

// TestErrorsStopAndNameTheLine: a run stops at the first error, names its
// line, and keeps what ran before.
func TestErrorsStopAndNameTheLine(t *testing.T) {
	sh := New(nil, Options{})
	got, err := run(t, sh, "echo one\necho two; frobnicate now\necho three")
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Text != "frobnicate now" || got != "one\ntwo\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	if !strings.Contains(err.Error(), `line 2: frobnicate now: unknown command "frobnicate"`) {
		t.Errorf("error: %v", err)
	}
	// Inside a loop, the line of the failing command, not the loop's.
	_, err = run(t, sh, "for x in a b; do\n  echo $x\n  head -n 1\ndone")
	if !errors.As(err, &e) || e.Line != 3 || !strings.Contains(err.Error(), "head reads the lines piped into it") {
		t.Errorf("loop error: %v", err)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src        string
		line, col  int
		msg        string
		incomplete bool
	}{
		{`echo "open`, 1, 6, `unbalanced "`, true},
		{"echo ok\necho 'open", 2, 6, "unbalanced '", true},
		{"for x in a b; do echo $x", 1, 1, "for without done", true},
		{"for x in a b", 1, 13, "for needs do", true},
		{"echo a |", 1, 8, "| needs a command", true},
		{"done", 1, 1, `"done" without a for`, false},
		{"for 1x in a; do echo; done", 1, 5, "for needs a variable name", false},
		{"echo $(echo a", 1, 6, "unbalanced $(", true},
		{"each window do ls; done", 1, 6, "each takes tab", false},
	} {
		_, err := run(t, New(nil, Options{}), tc.src)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%q: got %v; want line %d, column %d: …%s…", tc.src, err, tc.line, tc.col, tc.msg)
			continue
		}
		if Incomplete(tc.src) != tc.incomplete {
			t.Errorf("%q: Incomplete = %v, want %v", tc.src, !tc.incomplete, tc.incomplete)
		}
	}
}

func TestVariables(t *testing.T) {
	sh := New(nil, Options{})
	if _, err := run(t, sh, `echo $nope`); err == nil || !strings.Contains(err.Error(), "$nope is not set") {
		t.Errorf("unset variable: %v", err)
	}
	if _, err := run(t, sh, `script save greet do echo "hello $1, $# args: $@"; done`); err != nil {
		t.Fatal(err)
	}
	got, err := run(t, sh, `script run greet ada "b c"`)
	if want := "hello ada, 2 args: ada b c\n"; err != nil || got != want {
		t.Errorf("script run: %q, %v; want %q", got, err, want)
	}
	if _, err := run(t, sh, `script run greet`); err == nil || !strings.Contains(err.Error(), "$1 is not set: the script got 0 argument(s)") {
		t.Errorf("missing argument: %v", err)
	}
}

func TestScripts(t *testing.T) {
	sh := New(nil, Options{})
	for _, src := range []string{
		`script save a do echo in-a; script run b; done`,
		`script save b 'echo in-b; script run a'`,
		`script save loop do script run loop; done`,
	} {
		if _, err := run(t, sh, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	got, err := run(t, sh, "script list")
	if err != nil || got != "a\nb\nloop\n" {
		t.Errorf("script list: %q, %v", got, err)
	}
	got, err = run(t, sh, "script run a")
	if err == nil || got != "in-a\nin-b\n" || !strings.Contains(err.Error(), "script a calls itself (a → b → a)") {
		t.Errorf("a → b → a: %q, %v", got, err)
	}
	if _, err := run(t, sh, "script run loop"); err == nil || !strings.Contains(err.Error(), "script loop calls itself") {
		t.Errorf("loop → loop: %v", err)
	}
	for src, want := range map[string]string{
		"script run nope":                  `no script "nope"; saved: a, b, loop`,
		"script save ls do echo; done":     `"ls" is a command`,
		"script save click do echo; done":  `"click" is an action`,
		`script save bad 'echo "unclosed'`: "unbalanced",
		"script show nope":                 `no script "nope"`,
	} {
		if _, err := run(t, sh, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want …%s…", src, err, want)
		}
	}
	if got, err := run(t, sh, "script show b"); err != nil || got != "echo in-b; script run a\n" {
		t.Errorf("script show: %q, %v", got, err)
	}
}

// TestBounds: a loop over too many items is refused before it starts; a
// run stops after its command budget; the output is capped, and says so.
func TestBounds(t *testing.T) {
	sh := New(nil, Options{MaxItems: 5, MaxCommands: 50, MaxOutput: 40})
	got, err := run(t, sh, "for x in 1 2 3 4 5 6; do echo $x; done")
	if err == nil || got != "" || !strings.Contains(err.Error(), "6 items is over the limit of 5") {
		t.Errorf("long loop: %q, %v", got, err)
	}
	_, err = run(t, sh, "for x in 1 2 3 4 5; do for y in 1 2 3 4 5; do for z in 1 2 3; do echo; done; done; done")
	if err == nil || !strings.Contains(err.Error(), "stopped after 50 commands") {
		t.Errorf("command budget: %v", err)
	}
	got, err = run(t, sh, "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	if err != nil || !strings.HasPrefix(got, strings.Repeat("a", 40)+"\n… 37 more bytes of output not shown") {
		t.Errorf("output cap: %q, %v", got, err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := New(nil, Options{}).Run(ctx, "echo a", &strings.Builder{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestComplete(t *testing.T) {
	sh := New(nil, Options{})
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"cl", []string{"click ", "clipboard "}},
		{"echo x; pw", []string{"pwd "}},
		{"ls | hea", []string{"head "}},
		{"for x in a; do ec", []string{"echo "}},
	} {
		_, got, _ := sh.Complete(context.Background(), tc.line, len([]rune(tc.line)))
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: %q, want %q", tc.line, got, tc.want)
		}
	}
	if got := shellWord("checkbox:Remember me"); got != `checkbox:Remember\ me` {
		t.Errorf("shellWord: %q", got)
	}
	if got := unshell(`checkbox:Remember\ me`); got != "checkbox:Remember me" {
		t.Errorf("unshell: %q", got)
	}
}
