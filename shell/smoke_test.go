package shell_test

import (
	"testing"

	"github.com/canopy-dev/canopy"
)

func TestSmoke(t *testing.T) {
	e := newEnv(t, "/login.html", canopy.Config{})
	for _, src := range []string{"pwd", "ls", "ls -l", "ls /", "cd form:Login; pwd; ls", "cat textbox:Email", "tree", "tree 1 /", "grep -r Sign", "find role:button", "text", "ls | wc -l", "ls | grep box | head -n 1",
		`type textbox:Email "a@b.c"`, "check checkbox:Remember me", "cd /tab1; submit form:Login", "cd form:Login; click role:button", "help"} {
		out, err := e.try(src)
		t.Logf("$ %s\n%s(err %v)", src, out, err)
	}
}
