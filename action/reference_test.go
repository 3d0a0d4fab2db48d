package action

import (
	"fmt"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/internal/goldentest"
)

// TestReference keeps docs/actions.md, the user reference of actions,
// written from the table: a kind or argument added to the table shows up
// there, or this test fails (go test ./action -run TestReference -update
// rewrites it).
func TestReference(t *testing.T) {
	goldentest.Check(t, "../docs/actions.md", reference())
}

// reference renders the table as markdown.
func reference() string {
	var b strings.Builder
	b.WriteString(`# Actions

<!-- Written from the action table (action/kinds.go) by
     go test ./action -run TestReference -update; do not edit by hand. -->

Every surface takes the same actions: a step of ` + "`canopy do`" + ` and scripts
(` + "`click role:button name:Save`" + `), an MCP tool call (` + "`click {target: \"role:button name:Save\"}`" + `),
or an ` + "`action.Action`" + ` for ` + "`Session.Run`" + ` in Go. TARGET is a selector or a ref (e12).
The tier is the lowest permission tier (` + "`--allow`" + `) that allows the action; some
arguments raise it (a ` + "`javascript:`" + ` or ` + "`file:`" + ` URL needs ` + "`sensitive`" + `).

| action | step | tier | tool |
|---|---|---|---|
`)
	for _, s := range specs {
		if s.Kind == Batch {
			continue
		}
		tool := "—"
		if s.Tool {
			tool = "`" + string(s.Kind) + "`"
			if s.Desktop {
				tool += " (desktop)"
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", s.Kind, strings.ReplaceAll(s.Syntax, "|", `\|`), s.Tier, tool)
	}
	b.WriteString("\nSteps run in order, separated by `;` or newlines; the first that fails stops the rest.\n")
	b.WriteString("`tabs list` needs only `observe`. `double_click` and `uncheck` are steps only: over MCP they are\n`click {count: 2}` and `check {checked: false}`; `set_value` is a step only.\n\n")
	b.WriteString("A file an action saves, `screenshot … \"file.png\"` (a step's path; the tool answers with the\n" +
		"image) or `print [\"file.pdf\"]`, lands in the session's downloads folder at the kind's tier: a\n" +
		"relative path is taken inside it. A path that leads elsewhere (`..`, an absolute path, a folder\n" +
		"that is a link out of it) needs `sensitive`. No file is written over: a taken name becomes\n" +
		"`file (1).png`, and a link there is not followed. The audit log is never written, at any tier.\n" +
		"The shell and `canopy do` save a screenshot given no path as `screenshot.png` in that folder.\n\n## Tools\n")
	for _, s := range specs {
		if !s.Tool {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n%s", s.Kind, s.Doc)
		switch {
		case s.Hints.ReadOnly:
			b.WriteString(" Reads only.")
		case s.Hints.Idempotent:
			b.WriteString(" Doing it again changes nothing more.")
		}
		b.WriteString("\n\n")
		if s.Kind == Batch {
			b.WriteString("- `steps` (array, required): `{\"tool\": NAME, \"args\": {…}}` for each step, any tool but batch; each step passes the gate on its own.\n")
			continue
		}
		for _, g := range s.Args {
			req := ""
			if g.Required {
				req = ", required"
			}
			fmt.Fprintf(&b, "- `%s` (%s%s)", g.Name, argTypeName(g.Type), req)
			if g.Doc != "" {
				b.WriteString(": " + g.Doc)
			}
			if len(g.Enum) > 0 {
				b.WriteString("; one of " + "`" + strings.Join(g.Enum, "`, `") + "`")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func argTypeName(t ArgType) string {
	switch t {
	case Int:
		return "integer"
	case Bool:
		return "boolean"
	case Strings:
		return "array of strings"
	case Object:
		return "object"
	}
	return "string"
}
