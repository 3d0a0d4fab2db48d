package action

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The words some arguments take, each listed once: the step parser, the
// checks and the tools' enums read them here.
var (
	waitStates       = []string{"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "attached", "detached"}
	extractFormats   = []string{"markdown", "text", "table", "links", "form"}
	scrollDirections = []string{"up", "down", "left", "right"}
	buttons          = []string{"left", "right", "middle"}
	moves            = []string{"back", "forward", "reload"}
	tabActions       = []string{"list", "new", "switch", "close"}
	answers          = []string{"accept", "dismiss"}
)

// specs is the table of action kinds (docs/actions.md), in help order. It is set
// once, by init: a batch's entry asks its steps' entries for their tiers,
// which a package-level initializer could not refer to.
var specs []Spec

func init() { specs = table() }

// table builds the table of action kinds.
func table() []Spec {
	return []Spec{
		{
			Kind: Snapshot, Doc: "The page as an accessibility tree with refs (e12).",
			Syntax: "snapshot [TARGET] [full]", Tool: true, Target: OptionalTarget, Tier: Observe, Reads: true, Hints: reading,
			Args: []Arg{
				str("scope", "subtree: selector or ref", func(a *Action, s string) { a.Target = s }),
				boolean("full", "everything, no budget or elision", func(a *Action, b bool) { a.Full = b }),
				integer("budget", "token budget", func(a *Action, n int) { a.Budget = n }),
			},
			parse: func(p *stepParser) error {
				_, p.a.Full = p.popWord("full")
				return nil
			},
		},
		{
			Kind: Find, Doc: "Elements a selector matches, or the one at a point, with refs.",
			Syntax: "find TARGET | at X,Y", Tool: true, Target: NeedsTarget, Points: true, Tier: Observe, Reads: true, Hints: reading,
			Args:  []Arg{target(""), at()},
			parse: parseAt,
		},
		{
			Kind: Click, Doc: "Click an element.",
			Syntax: "click TARGET|at X,Y [right|middle]", Tool: true, Target: NeedsTarget, Points: true, Tier: Act, Input: true,
			Args: []Arg{
				target(""),
				at(),
				str("button", "", func(a *Action, s string) { a.Button = s }).oneOf(buttons),
				integer("count", "2 for a double click", func(a *Action, n int) { a.Count = n }),
			},
			check: func(a Action) error { return wordIn("click button", a.Button, buttons) },
			parse: func(p *stepParser) error {
				p.a.Button, _ = p.popWord("right", "middle")
				return parseAt(p)
			},
		},
		{
			Kind: DoubleClick, Doc: "Double-click an element.",
			Syntax: "double_click TARGET|at X,Y", Target: NeedsTarget, Points: true, Tier: Act, Input: true,
			parse: parseAt,
		},
		{
			Kind: Hover, Doc: "Move the mouse over an element.",
			Syntax: "hover TARGET|at X,Y", Tool: true, Target: NeedsTarget, Points: true, Tier: Act, Hints: setting,
			Args:  []Arg{target(""), at()},
			parse: parseAt,
		},
		{
			Kind: Type, Doc: "Type text into a field.",
			Syntax: `type TARGET "text"|credential:NAME [clear] [submit]`, Tool: true, Target: NeedsTarget, Tier: Act,
			Input: true, EditsText: true,
			Args: []Arg{
				target("").required(),
				str("text", "", func(a *Action, s string) { a.Text = s }),
				str("credential", "a secret's name, typed instead of text", func(a *Action, s string) { a.Credential = s }),
				boolean("clear", "empty the field first", func(a *Action, b bool) { a.Clear = b }),
				boolean("submit", "press Enter after", func(a *Action, b bool) { a.Submit = b }),
			},
			check: func(a Action) error {
				if a.Text != "" && a.Credential != "" {
					return fmt.Errorf("type takes text or a credential, not both")
				}
				return nil
			},
			parse: parseType,
		},
		{
			Kind: Press, Doc: "Press keys.",
			Syntax: "press [TARGET] KEYS", Tool: true, Target: OptionalTarget, Tier: Act, Input: true,
			Args: []Arg{
				str("keys", "key or chord: Enter, ctrl+s, Shift+Tab", func(a *Action, s string) { a.Keys = s }).required(),
				target("focus this first"),
			},
			check: func(a Action) error {
				if a.Keys == "" {
					return fmt.Errorf(`press needs keys, e.g. Enter or ctrl+s`)
				}
				return nil
			},
			parse: func(p *stepParser) error {
				if p.a.Keys != "" { // submit: the keys are Enter
					return p.tooMany(0)
				}
				if len(p.args) > 0 {
					p.a.Keys = p.arg(0)
				} else if len(p.sel) > 0 {
					p.a.Keys = p.sel[len(p.sel)-1].text
					p.sel = p.sel[:len(p.sel)-1]
				}
				return p.tooMany(1)
			},
		},
		{
			Kind: Select, Doc: "Choose an option of a select, combobox or listbox.",
			Syntax: `select TARGET "option"`, Tool: true, Target: NeedsTarget, Tier: Act, Input: true, Hints: setting,
			Args: []Arg{
				target("").required(),
				str("option", "", func(a *Action, s string) { a.Text = s }).required(),
			},
			check: func(a Action) error {
				if a.Text == "" {
					return fmt.Errorf("select needs the option to choose")
				}
				return nil
			},
			parse: func(p *stepParser) error { return p.text(true) },
		},
		{
			Kind: Check, Doc: "Check or uncheck a checkbox, radio or switch.",
			Syntax: "check TARGET", Tool: true, Target: NeedsTarget, Tier: Act, Input: true, Hints: setting,
			Args: []Arg{
				target("").required(),
				boolean("checked", "false to uncheck", func(a *Action, b bool) {
					if !b {
						a.Kind = Uncheck
					}
				}),
			},
		},
		{
			Kind: Uncheck, Doc: "Uncheck a checkbox or switch.",
			Syntax: "uncheck TARGET", Target: NeedsTarget, Tier: Act, Input: true,
		},
		{
			Kind: SetValue, Doc: "Set a field's or slider's value at once.",
			Syntax: `set_value TARGET "value"`, Target: NeedsTarget, Tier: Act, Input: true, EditsText: true,
			parse: func(p *stepParser) error { return p.text(false) },
		},
		{
			Kind: Scroll, Doc: "Scroll an element into view, or scroll by an amount.",
			Syntax: "scroll [TARGET] [up|down|left|right] [N]", Tool: true, Target: OptionalTarget, Tier: Act,
			Hints: Hints{NotDestructive: true},
			Args: []Arg{
				target("scroll into view, or scroll inside it"),
				str("direction", "", func(a *Action, s string) { a.Direction = s }).oneOf(scrollDirections),
				integer("amount", "CSS px", func(a *Action, n int) { a.Amount = n }),
			},
			check: func(a Action) error { return wordIn("scroll direction", a.Direction, scrollDirections) },
			parse: func(p *stepParser) error {
				p.a.Amount, _ = p.popInt()
				p.a.Direction, _ = p.popWord(scrollDirections...)
				return nil
			},
		},
		{
			Kind: Drag, Doc: "Drag an element onto another.",
			Syntax: `drag TARGET "to-target"`, Tool: true, Target: NeedsTarget, Tier: Act, Input: true,
			Args: []Arg{
				str("from", "", func(a *Action, s string) { a.Target = s }).required(),
				str("to", "", func(a *Action, s string) { a.To = s }).required(),
			},
			check: func(a Action) error {
				if a.To == "" {
					return fmt.Errorf("drag needs a drop target (to)")
				}
				return nil
			},
			parse: func(p *stepParser) error {
				if len(p.args) == 0 {
					return p.missingArg()
				}
				p.a.To = p.arg(0)
				return p.tooMany(1)
			},
		},
		{
			Kind: Upload, Doc: "Put files into a file input.",
			Syntax: `upload TARGET "path"…`, Tool: true, Target: NeedsTarget, Tier: Act, Input: true,
			Args: []Arg{
				target("").required(),
				list("paths", "", func(a *Action, s []string) { a.Paths = s }).required(),
			},
			check: func(a Action) error {
				if len(a.Paths) == 0 {
					return fmt.Errorf("upload needs at least one file path")
				}
				return nil
			},
			parse: func(p *stepParser) error {
				if len(p.args) == 0 {
					return p.missingArg()
				}
				for _, t := range p.args {
					p.a.Paths = append(p.a.Paths, t.text)
				}
				return nil
			},
		},
		{
			Kind: Navigate, Doc: "Load a URL, or go back, forward, reload; returns the new page.",
			Syntax: `navigate "url" | back | forward | reload`, Tool: true, Tier: Act,
			Args: []Arg{
				str("url", "", func(a *Action, s string) { a.URL = s }),
				str("action", "", func(a *Action, s string) { a.Nav = s }).oneOf(moves),
			},
			tierOf: func(a Action) Tier {
				if a.URL != "" {
					return URLTier(a.URL)
				}
				return Act
			},
			check: func(a Action) error {
				if a.URL == "" && a.Nav == "" {
					return fmt.Errorf("navigate needs a URL, or back, forward or reload")
				}
				return wordIn("navigate", a.Nav, moves)
			},
			parse: func(p *stepParser) error {
				if w, ok := p.popWord(moves...); ok {
					p.a.Nav = w
				}
				p.a.URL = p.arg(0)
				if p.a.URL == "" && p.a.Nav == "" && len(p.sel) == 1 {
					p.a.URL, p.sel = p.sel[0].text, nil // a bare URL
				}
				return nil
			},
		},
		{
			Kind: Tabs, Doc: "List, open, switch or close tabs.",
			Syntax: `tabs list | new ["url"] | switch N | close [N]`, Tool: true, Tier: Act,
			Args: []Arg{
				str("action", "", func(a *Action, s string) { a.Nav = s }).required().oneOf(tabActions),
				integer("tab", "number from list", func(a *Action, n int) { a.Tab = n }),
				str("url", "for new", func(a *Action, s string) { a.URL = s }),
			},
			tierOf: func(a Action) Tier {
				switch {
				case a.Nav == "list" || a.Nav == "":
					return Observe
				case a.Nav == "new" && a.URL != "":
					return URLTier(a.URL)
				}
				return Act
			},
			actsOf: func(a Action) bool { return a.Nav != "list" && a.Nav != "" },
			check: func(a Action) error {
				if a.Nav == "switch" && a.Tab <= 0 {
					return fmt.Errorf("tabs switch needs a tab number (see tabs list)")
				}
				return wordIn("tabs", a.Nav, tabActions)
			},
			parse: parseTabs,
		},
		{
			Kind: Wait, Doc: "Wait for an element (state), text, URL or quiet.",
			Syntax: `wait TARGET [state] | text "…" | url "pattern" | quiet`, Tool: true, Target: OptionalTarget,
			Tier: Observe, Reads: true, Hints: reading,
			Args: []Arg{
				target(""),
				str("state", "", func(a *Action, s string) { a.State = s }).oneOf(waitStates),
				str("text", "", func(a *Action, s string) { a.Text = s }),
				str("url", "substring, glob or /regex/", func(a *Action, s string) { a.URL = s }),
				boolean("quiet", "until the page settles", func(a *Action, b bool) { a.Quiet = b }),
				integer("timeout_ms", "", func(a *Action, n int) {
					// Bounded before multiplying: a huge n must not overflow.
					a.Timeout = ClampTimeout(time.Duration(min(max(n, 0), int(MaxTimeout/time.Millisecond))) * time.Millisecond)
				}),
			},
			check: func(a Action) error {
				if a.Target == "" && a.Text == "" && a.URL == "" && !a.Quiet {
					return fmt.Errorf("wait needs a target, text, a URL or quiet")
				}
				return wordIn("wait state", a.State, waitStates)
			},
			parse: parseWait,
		},
		{
			Kind: Evaluate, Doc: "Run JavaScript in the page; returns its JSON result.",
			Syntax: `evaluate "js"`, Tool: true, Tier: Sensitive, Reads: true,
			Args: []Arg{str("script", "JavaScript expression", func(a *Action, s string) { a.Text = s }).required()},
			check: func(a Action) error {
				if strings.TrimSpace(a.Text) == "" {
					return fmt.Errorf("evaluate needs a script")
				}
				return nil
			},
			parse: func(p *stepParser) error { return p.text(true) },
		},
		{
			Kind: Screenshot, Doc: "PNG of the page or an element.",
			Syntax: `screenshot [TARGET|screen] [marks] ["file.png"]`, Tool: true, Target: OptionalTarget, Tier: Observe, Reads: true,
			Hints: reading,
			Args: []Arg{
				target("default: page or front window"),
				boolean("marks", "label elements with their refs", func(a *Action, b bool) { a.Marks = b }),
				boolean("screen", "the whole screen", func(a *Action, b bool) { a.Screen = b }),
			},
			// A path (steps only) saves the PNG there: in the downloads
			// folder at observe, anywhere else at sensitive.
			tierOf: savedTier(Observe),
			saves:  func(a Action) bool { return a.Path != "" },
			check: func(a Action) error {
				if a.Screen && a.Target != "" {
					return fmt.Errorf("screenshot takes a target or screen, not both")
				}
				return nil
			},
			parse: func(p *stepParser) error {
				p.a.Path = p.arg(0)
				_, p.a.Marks = p.popWord("marks")
				_, p.a.Screen = p.popWord("screen")
				return p.tooMany(1)
			},
		},
		{
			Kind: Extract, Doc: "Content as markdown, text, tables, links or form values.",
			Syntax: "extract [TARGET] [markdown|text|table|links|form] [from N]", Tool: true, Target: OptionalTarget,
			Tier: Observe, Reads: true, Hints: reading,
			Args: []Arg{
				str("scope", "", func(a *Action, s string) { a.Target = s }),
				str("format", "", func(a *Action, s string) { a.Format = s }).required().oneOf(extractFormats),
				integer("from", "start at this character (a cut extract says where)", func(a *Action, n int) { a.From = n }),
			},
			check: func(a Action) error {
				if a.From < 0 {
					return fmt.Errorf("extract from must be 0 or more, got %d", a.From)
				}
				return wordIn("extract format", a.Format, extractFormats)
			},
			parse: func(p *stepParser) error {
				if len(p.sel) > 0 {
					col := p.sel[len(p.sel)-1].col
					if n, ok := p.popInt(); ok {
						if _, ok := p.popWord("from"); !ok {
							return errAt(col, "extract takes a number only after from (extract text from %d)", n)
						}
						p.a.From = n
					}
				}
				var ok bool
				if p.a.Format, ok = p.popWord(extractFormats...); !ok {
					p.a.Format = "markdown"
				}
				return nil
			},
		},
		{
			Kind: Dialog, Doc: "Answer the open alert, confirm or prompt.",
			Syntax: `dialog accept|dismiss ["text"]`, Tool: true, Tier: Act,
			Args: []Arg{
				boolean("accept", "", func(a *Action, b bool) {
					a.Nav = "dismiss"
					if b {
						a.Nav = "accept"
					}
				}).required(),
				str("text", "prompt answer", func(a *Action, s string) { a.Text = s }),
			},
			check: func(a Action) error {
				if a.Nav == "" {
					return fmt.Errorf("dialog needs accept or dismiss")
				}
				return wordIn("dialog", a.Nav, answers)
			},
			parse: func(p *stepParser) error {
				p.a.Nav, _ = p.popWord(answers...)
				p.a.Text = p.arg(0)
				return p.tooMany(1)
			},
		},
		printSpec(),
		permissionsSpec(),
		clipboardSpec(),
		{
			Kind: OpenApp, Doc: "Start a desktop app; returns it once its window shows.",
			Syntax: `open_app PROGRAM ["arg"…]`, Tool: true, Desktop: true, Tier: Act,
			Args: []Arg{
				str("command", "program, e.g. mousepad", func(a *Action, s string) { a.Command = s }).required(),
				list("args", "", func(a *Action, s []string) { a.Args = s }),
			},
			check: func(a Action) error {
				if strings.TrimSpace(a.Command) == "" {
					return fmt.Errorf("open_app needs a command, e.g. mousepad")
				}
				return nil
			},
			parse: parseOpenApp,
		},
		{
			Kind: Activate, Doc: "Bring a window to the front and focus it.",
			Syntax: "activate TARGET", Tool: true, Desktop: true, Target: NeedsTarget, Tier: Act, Hints: setting,
			Args: []Arg{target("a window").required()},
		},
		{
			Kind: Batch, Doc: "Run tool calls in order, stopping at the first failure; one diff.",
			Tool: true, Tier: Observe,
			Args: []Arg{{Name: "steps", Type: Object, Required: true}},
			tierOf: func(a Action) Tier {
				t := Observe
				for _, s := range a.Steps {
					t = max(t, s.Tier())
				}
				return t
			},
			check: func(a Action) error {
				for i, s := range a.Steps {
					if s.Kind == Batch {
						return fmt.Errorf("step %d: a batch cannot hold a batch", i+1)
					}
					if err := s.Validate(); err != nil {
						return fmt.Errorf("step %d: %w", i+1, err)
					}
				}
				return nil
			},
		},
	}
}

// wordIn checks that v, when given, is one of words.
func wordIn(what, v string, words []string) error {
	if v == "" || slices.Contains(words, v) {
		return nil
	}
	return oneOfErr(what, v, words)
}
