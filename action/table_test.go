package action

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTable checks the table declares every kind fully: docs, step syntax
// for every step kind, a required target argument on the tools of kinds
// that need one, and setters that take their declared type.
func TestTable(t *testing.T) {
	seen := map[Kind]bool{}
	for _, s := range Specs() {
		if seen[s.Kind] {
			t.Errorf("%s declared twice", s.Kind)
		}
		seen[s.Kind] = true
		if s.Doc == "" {
			t.Errorf("%s has no doc", s.Kind)
		}
		if s.Syntax == "" && s.Kind != Batch {
			t.Errorf("%s has no step syntax", s.Kind)
		}
		if s.Tier < Observe || s.Tier > Sensitive {
			t.Errorf("%s has no tier", s.Kind)
		}
		if s.Reads && (s.Input || s.EditsText) {
			t.Errorf("%s reads but gives input", s.Kind)
		}
		var a Action
		for _, g := range s.Args {
			switch g.Type {
			case String:
				g.Set(&a, "x")
			case Int:
				g.Set(&a, 1)
			case Bool:
				g.Set(&a, true)
			case Strings:
				g.Set(&a, []string{"x"})
			}
		}
		if s.Tool && s.Target == NeedsTarget && a.Target == "" {
			t.Errorf("tool %s needs a target but no argument sets it", s.Kind)
		}
	}
}

// TestStepRoundTrip: an action rendered as a step (String, used in logs,
// audit lines and errors) parses back to the same action.
func TestStepRoundTrip(t *testing.T) {
	for _, a := range []Action{
		{Kind: Snapshot, Target: "e3", Full: true},
		{Kind: Find, Target: "role:button name:Save"},
		{Kind: Click, Target: "e1", Button: "right"},
		{Kind: DoubleClick, Target: "e1"},
		{Kind: Hover, Target: "e1"},
		{Kind: Type, Target: "e2", Text: `say "hi"; \ bye`, Clear: true, Submit: true},
		{Kind: Type, Target: "e2", Credential: "github", Submit: true},
		{Kind: Press, Target: "e2", Keys: "ctrl+s"},
		{Kind: Press, Keys: "Enter"},
		{Kind: Select, Target: "e4", Text: "Asia"},
		{Kind: Check, Target: "e4"},
		{Kind: Uncheck, Target: "e4"},
		{Kind: SetValue, Target: "e4", Text: "50"},
		{Kind: Scroll, Target: "e5", Direction: "down", Amount: 600},
		{Kind: Drag, Target: "e3", To: "role:listitem name:Done"},
		{Kind: Upload, Target: "e3", Paths: []string{"a.txt", "b c.txt"}},
		{Kind: Navigate, URL: "http://127.0.0.1:8080/a;b"},
		{Kind: Navigate, Nav: "back"},
		{Kind: Tabs, Nav: "switch", Tab: 2},
		{Kind: Tabs, Nav: "new", URL: "http://a.test/"},
		{Kind: Wait, Target: "role:dialog", State: "hidden"},
		{Kind: Wait, Text: "Saved"},
		{Kind: Wait, URL: "*/dashboard"},
		{Kind: Wait, Quiet: true},
		{Kind: Evaluate, Text: "document.title"},
		{Kind: Screenshot, Target: "e7", Marks: true, Path: "shot.png"},
		{Kind: Extract, Target: "e12", Format: "table"},
		{Kind: Dialog, Nav: "accept", Text: "yes"},
		{Kind: OpenApp, Command: "mousepad", Args: []string{"report.txt"}},
		{Kind: Activate, Target: `window:"report.txt - Mousepad"`},
	} {
		got, err := ParseSteps(a.String())
		if err != nil {
			t.Errorf("ParseSteps(%q): %v", a.String(), err)
			continue
		}
		if d := cmp.Diff([]Action{a}, got); d != "" {
			t.Errorf("ParseSteps(%q) (-want +got):\n%s", a.String(), d)
		}
	}
}

// TestWords: every word a tool's enum offers is accepted by Validate, and
// one outside it is refused, naming the words.
func TestWords(t *testing.T) {
	for _, s := range Specs() {
		for _, g := range s.Args {
			for _, w := range g.Enum {
				a := Action{Kind: s.Kind, Target: "e1", Keys: "x", URL: "http://x/", Format: "text", Tab: 1, Quiet: true, Paths: []string{"f"}, Text: "x", To: "e2"}
				g.Set(&a, w)
				if err := a.Validate(); err != nil {
					t.Errorf("%s %s %q: %v", s.Kind, g.Name, w, err)
				}
				g.Set(&a, "bogus")
				if err := a.Validate(); err == nil {
					t.Errorf("%s %s %q: accepted", s.Kind, g.Name, "bogus")
				}
			}
		}
	}
}

// TestTimeoutClamped: a timeout_ms too large for any deadline is cut to
// MaxTimeout, a negative one to 0, and Limit bounds a library's Timeout.
func TestTimeoutClamped(t *testing.T) {
	spec, _ := SpecOf(Wait)
	var arg Arg
	for _, g := range spec.Args {
		if g.Name == "timeout_ms" {
			arg = g
		}
	}
	for _, c := range []struct {
		ms   int
		want time.Duration
	}{{10000000000000, MaxTimeout}, {-5, 0}, {1500, 1500 * time.Millisecond}} {
		var a Action
		arg.Set(&a, c.ms)
		if a.Timeout != c.want {
			t.Errorf("timeout_ms %d: %v, want %v", c.ms, a.Timeout, c.want)
		}
	}
	if got := (Action{Timeout: 1<<63 - 1}).Limit(); got != MaxTimeout {
		t.Errorf("Limit of the largest Duration: %v", got)
	}
}

// TestSavedTier: a file an action saves is at the kind's tier in the
// downloads folder (no path, or a relative one that stays in it) and
// sensitive anywhere else, for screenshot and print alike.
func TestSavedTier(t *testing.T) {
	for _, c := range []struct {
		a     Action
		tier  Tier
		saves bool
	}{
		{Action{Kind: Screenshot}, Observe, false},
		{Action{Kind: Screenshot, Path: "s.png"}, Observe, true},
		{Action{Kind: Screenshot, Path: "sub/s.png"}, Observe, true},
		{Action{Kind: Screenshot, Path: "../s.png"}, Sensitive, true},
		{Action{Kind: Screenshot, Path: "sub/../../s.png"}, Sensitive, true},
		{Action{Kind: Screenshot, Path: "/tmp/s.png"}, Sensitive, true},
		{Action{Kind: Print}, Act, true},
		{Action{Kind: Print, Path: "p.pdf"}, Act, true},
		{Action{Kind: Print, Path: "../p.pdf"}, Sensitive, true},
		{Action{Kind: Print, Path: "/tmp/p.pdf"}, Sensitive, true},
		{Action{Kind: Extract, Format: "text"}, Observe, false},
	} {
		if got := c.a.Tier(); got != c.tier {
			t.Errorf("%s: tier %s, want %s", c.a, got, c.tier)
		}
		if got := c.a.SavesFile(); got != c.saves {
			t.Errorf("%s: SavesFile %v, want %v", c.a, got, c.saves)
		}
		if got := c.a.SavesOutside(); got != (c.tier == Sensitive) {
			t.Errorf("%s: SavesOutside %v", c.a, got)
		}
	}
	if LeastTier(Screenshot) != Observe || LeastTier(Print) != Act {
		t.Errorf("least tiers: screenshot %s, print %s", LeastTier(Screenshot), LeastTier(Print))
	}
}
