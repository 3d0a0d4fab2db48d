package mcp

import (
	"time"

	"github.com/canopy-dev/canopy/action"
)

// The tools' arguments. Field tags are the wire names and the one-line
// descriptions in tools/list; the schema is inferred from these types, so
// a field added here is a field the agent sees. Keep descriptions short:
// every word is paid for in every agent's context on every turn.

type snapshotArgs struct {
	Scope  string `json:"scope,omitempty" jsonschema:"subtree: selector or ref"`
	Full   bool   `json:"full,omitempty" jsonschema:"everything, no budget or elision"`
	Budget int    `json:"budget,omitempty" jsonschema:"token budget"`
}

type findArgs struct {
	Target string `json:"target"`
}

type clickArgs struct {
	Target string `json:"target"`
	Button string `json:"button,omitempty"`
	Count  int    `json:"count,omitempty" jsonschema:"2 for a double click"`
}

type typeArgs struct {
	Target     string `json:"target"`
	Text       string `json:"text,omitempty"`
	Credential string `json:"credential,omitempty" jsonschema:"name of a secret to type instead of text"`
	Clear      bool   `json:"clear,omitempty" jsonschema:"empty the field first"`
	Submit     bool   `json:"submit,omitempty" jsonschema:"press Enter after"`
}

type pressArgs struct {
	Keys   string `json:"keys" jsonschema:"key or chord: Enter, ctrl+s, Shift+Tab"`
	Target string `json:"target,omitempty" jsonschema:"focus this first"`
}

type selectArgs struct {
	Target string `json:"target"`
	Option string `json:"option"`
}

type checkArgs struct {
	Target  string `json:"target"`
	Checked *bool  `json:"checked,omitempty" jsonschema:"false to uncheck"`
}

type hoverArgs struct {
	Target string `json:"target"`
}

type scrollArgs struct {
	Target    string `json:"target,omitempty" jsonschema:"scroll into view, or scroll inside it"`
	Direction string `json:"direction,omitempty"`
	Amount    int    `json:"amount,omitempty" jsonschema:"CSS px"`
}

type dragArgs struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type uploadArgs struct {
	Target string   `json:"target"`
	Paths  []string `json:"paths"`
}

type navigateArgs struct {
	URL    string `json:"url,omitempty"`
	Action string `json:"action,omitempty"`
}

type tabsArgs struct {
	Action string `json:"action"`
	Tab    int    `json:"tab,omitempty" jsonschema:"number from list"`
	URL    string `json:"url,omitempty" jsonschema:"for new"`
}

type waitArgs struct {
	Target    string `json:"target,omitempty"`
	State     string `json:"state,omitempty"`
	Text      string `json:"text,omitempty"`
	URL       string `json:"url,omitempty" jsonschema:"substring, glob or /regex/"`
	Quiet     bool   `json:"quiet,omitempty" jsonschema:"until the page settles"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
}

type extractArgs struct {
	Scope  string `json:"scope,omitempty"`
	Format string `json:"format"`
}

type screenshotArgs struct {
	Target string `json:"target,omitempty"`
	Marks  bool   `json:"marks,omitempty" jsonschema:"label elements with their refs"`
}

type evaluateArgs struct {
	Script string `json:"script" jsonschema:"JavaScript expression"`
}

type dialogArgs struct {
	Accept bool   `json:"accept"`
	Text   string `json:"text,omitempty" jsonschema:"prompt answer"`
}

type openAppArgs struct {
	Command string   `json:"command" jsonschema:"program, e.g. mousepad"`
	Args    []string `json:"args,omitempty"`
}

type activateArgs struct {
	Target string `json:"target" jsonschema:"a window"`
}

type batchArgs struct {
	Steps []batchStep `json:"steps"`
}

type batchStep struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args,omitempty"`
}

// hints are a tool's MCP annotations (readOnlyHint…). The zero value is
// what MCP assumes when a hint is absent: may write, destructive, not
// idempotent, open world.
type hints struct {
	readOnly, idempotent, notDestructive, closedWorld bool
}

var (
	// reading tools look at the current page and change nothing.
	reading = hints{readOnly: true, idempotent: true, notDestructive: true, closedWorld: true}
	// settingHints set a state to a given value: again is the same.
	settingHints = hints{idempotent: true, notDestructive: true}
)

// toolDef is one tool: its name, description, hints, enums for its string
// arguments, and how its arguments become an action.
type toolDef struct {
	name  string
	desc  string
	hints hints
	enums map[string][]string
	// decode reads raw arguments strictly into the tool's argument type and
	// converts them; set by def.
	decode func(raw []byte) (action.Action, error)
	schema func() (any, error)
}

// tools is canopy's MCP tool surface (SPEC §5), in the order tools/list
// shows it; with the desktop also open_app and activate. All are served;
// tools/list offers those the tier allows (offered).
func tools(desktop bool, tier action.Tier) []toolDef {
	return append(allTools(desktop), batchDef(desktop, tier))
}

// offered reports whether tools/list shows a tool at tier: not when no
// call of it could be allowed (evaluate below sensitive, the acting tools
// at observe), so an agent is not offered what it cannot use. A call to
// it still gets the policy's one-line refusal, which says how to allow it.
func offered(name string, tier action.Tier) bool {
	return (action.Action{Kind: action.Kind(name)}).Tier() <= tier
}

// allTools is every tool but batch.
func allTools(desktop bool) []toolDef {
	ts := []toolDef{
		def("snapshot", "The page as an accessibility tree with refs (e12).", reading, nil,
			func(a snapshotArgs) action.Action {
				return action.Action{Kind: action.Snapshot, Target: a.Scope, Full: a.Full, Budget: a.Budget}
			}),
		def("find", "Elements a selector matches, with refs.", reading, nil,
			func(a findArgs) action.Action { return action.Action{Kind: action.Find, Target: a.Target} }),
		def("click", "Click an element.", hints{}, map[string][]string{"button": {"left", "right", "middle"}},
			func(a clickArgs) action.Action {
				return action.Action{Kind: action.Click, Target: a.Target, Button: a.Button, Count: a.Count}
			}),
		def("type", "Type text into a field.", hints{}, nil,
			func(a typeArgs) action.Action {
				return action.Action{Kind: action.Type, Target: a.Target, Text: a.Text, Credential: a.Credential, Clear: a.Clear, Submit: a.Submit}
			}),
		def("press", "Press keys.", hints{}, nil,
			func(a pressArgs) action.Action {
				return action.Action{Kind: action.Press, Keys: a.Keys, Target: a.Target}
			}),
		def("select", "Choose an option of a select, combobox or listbox.", settingHints, nil,
			func(a selectArgs) action.Action {
				return action.Action{Kind: action.Select, Target: a.Target, Text: a.Option}
			}),
		def("check", "Check or uncheck a checkbox, radio or switch.", settingHints, nil,
			func(a checkArgs) action.Action {
				k := action.Check
				if a.Checked != nil && !*a.Checked {
					k = action.Uncheck
				}
				return action.Action{Kind: k, Target: a.Target}
			}),
		def("hover", "Move the mouse over an element.", settingHints, nil,
			func(a hoverArgs) action.Action { return action.Action{Kind: action.Hover, Target: a.Target} }),
		def("scroll", "Scroll an element into view, or scroll by an amount.", hints{notDestructive: true},
			map[string][]string{"direction": {"up", "down", "left", "right"}},
			func(a scrollArgs) action.Action {
				return action.Action{Kind: action.Scroll, Target: a.Target, Direction: a.Direction, Amount: a.Amount}
			}),
		def("drag", "Drag an element onto another.", hints{}, nil,
			func(a dragArgs) action.Action { return action.Action{Kind: action.Drag, Target: a.From, To: a.To} }),
		def("upload", "Put files into a file input.", hints{}, nil,
			func(a uploadArgs) action.Action {
				return action.Action{Kind: action.Upload, Target: a.Target, Paths: a.Paths}
			}),
		def("navigate", "Load a URL, or go back, forward or reload. Returns the new page's tree.", hints{},
			map[string][]string{"action": {"back", "forward", "reload"}},
			func(a navigateArgs) action.Action {
				return action.Action{Kind: action.Navigate, URL: a.URL, Nav: a.Action}
			}),
		def("tabs", "List, open, switch or close tabs.", hints{},
			map[string][]string{"action": {"list", "new", "switch", "close"}},
			func(a tabsArgs) action.Action {
				return action.Action{Kind: action.Tabs, Nav: a.Action, Tab: a.Tab, URL: a.URL}
			}),
		def("wait", "Wait for an element (and state), text, a URL, or quiet.", reading,
			map[string][]string{"state": {"visible", "hidden", "enabled", "disabled", "checked", "unchecked", "attached", "detached"}},
			func(a waitArgs) action.Action {
				return action.Action{Kind: action.Wait, Target: a.Target, State: a.State, Text: a.Text, URL: a.URL,
					Quiet: a.Quiet, Timeout: time.Duration(a.TimeoutMS) * time.Millisecond}
			}),
		def("extract", "Page or scope content as markdown, text, tables, links or form values.", reading,
			map[string][]string{"format": {"markdown", "text", "table", "links", "form"}},
			func(a extractArgs) action.Action {
				return action.Action{Kind: action.Extract, Target: a.Scope, Format: a.Format}
			}),
		def("screenshot", "PNG of the page or an element.", reading, nil,
			func(a screenshotArgs) action.Action {
				return action.Action{Kind: action.Screenshot, Target: a.Target, Marks: a.Marks}
			}),
		def("evaluate", "Run JavaScript in the page; returns its JSON result.", hints{}, nil,
			func(a evaluateArgs) action.Action { return action.Action{Kind: action.Evaluate, Text: a.Script} }),
		def("dialog", "Answer the open alert, confirm or prompt.", hints{}, nil,
			func(a dialogArgs) action.Action {
				nav := "dismiss"
				if a.Accept {
					nav = "accept"
				}
				return action.Action{Kind: action.Dialog, Nav: nav, Text: a.Text}
			}),
	}
	if desktop {
		ts = append(ts,
			def("open_app", "Start a desktop app; returns it once its window shows.", hints{}, nil,
				func(a openAppArgs) action.Action {
					return action.Action{Kind: action.OpenApp, Command: a.Command, Args: a.Args}
				}),
			def("activate", "Bring a window to the front and focus it.", settingHints, nil,
				func(a activateArgs) action.Action { return action.Action{Kind: action.Activate, Target: a.Target} }),
		)
	}
	return ts
}
