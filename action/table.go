package action

import (
	"fmt"
	"strings"
)

// Spec declares one action kind, once: what it needs and allows, its
// arguments as tools take them, and its step syntax. The step parser
// (ParseSteps), Validate, Tier and Acts, the MCP tools' schemas and
// decoders and the CLI's help are all driven by the table of Specs, so a
// new kind is a new entry here, its implementation in each source, and
// its tests.
type Spec struct {
	Kind Kind
	// Doc is one line for the tool's description and the help.
	Doc string
	// Syntax is the step form, for help: `click TARGET [right|middle]`.
	Syntax string
	// Tool says the kind is served as its own MCP tool; double_click,
	// uncheck and set_value are reached through click, check and type's
	// arguments there, and only exist as steps.
	Tool bool
	// Desktop kinds are offered only where the desktop is open.
	Desktop bool
	// Target says whether the kind acts on one node.
	Target Need
	// Points says a point (At) may stand for the target: the node there.
	Points bool
	// Tier is the permission tier the kind needs (docs/tiers.md); some kinds
	// refine it from their arguments (a navigate's URL scheme).
	Tier Tier
	// Reads says the kind reads and changes nothing: its reply is a
	// reading, not a diff.
	Reads bool
	// Input says the kind gives input to its target, which is refused
	// while the target is disabled; EditsText that it changes the
	// target's text, refused while read-only.
	Input, EditsText bool
	// Hints are the MCP tool's annotations.
	Hints Hints
	// Args are the tool's arguments, in the order its schema lists them.
	Args []Arg

	tierOf func(Action) Tier         // refines Tier from the arguments
	saves  func(Action) bool         // the action makes a file canopy writes (SavesFile)
	actsOf func(Action) bool         // refines Reads from the arguments
	check  func(Action) error        // what Validate adds for the kind
	parse  func(p *stepParser) error // the kind's step arguments
}

// Need says whether an action kind takes a target node.
type Need int

// The target needs.
const (
	// NoTarget kinds take no selector (navigate, tabs, evaluate…).
	NoTarget Need = iota
	// OptionalTarget kinds act on the page or on a scope (scroll, wait…).
	OptionalTarget
	// NeedsTarget kinds always act on one node (click, type…).
	NeedsTarget
)

// Hints are a tool's MCP annotations. The zero value is what MCP assumes
// when a hint is absent: may write, destructive, not idempotent, open world.
type Hints struct {
	ReadOnly, Idempotent, NotDestructive, ClosedWorld bool
}

var (
	// reading kinds look at the page and change nothing.
	reading = Hints{ReadOnly: true, Idempotent: true, NotDestructive: true, ClosedWorld: true}
	// setting kinds set a state to a given value: again is the same.
	setting = Hints{Idempotent: true, NotDestructive: true}
)

// ArgType is the JSON type of a tool argument.
type ArgType int

// The argument types.
const (
	String  ArgType = iota // a JSON string; Go string
	Int                    // a JSON integer; Go int
	Bool                   // true or false; Go bool
	Strings                // an array of strings; Go []string
	Object                 // anything else (a batch's steps); decoded by the surface
)

// Arg is one argument of a kind's tool: its wire name, type, one-line
// description (kept short: every word is paid for in every agent's
// context), whether it is required, its allowed words, and where it goes
// in the Action.
type Arg struct {
	Name     string
	Type     ArgType
	Doc      string
	Required bool
	Enum     []string
	set      func(a *Action, v any)
}

// Set stores v, of the Go type Type names, in the action.
func (g Arg) Set(a *Action, v any) {
	if g.set != nil {
		g.set(a, v)
	}
}

// str, integer, boolean and list declare arguments of each type; the
// setter receives the decoded Go value.
func str(name, doc string, set func(*Action, string)) Arg {
	return Arg{Name: name, Type: String, Doc: doc, set: func(a *Action, v any) { set(a, v.(string)) }}
}

func integer(name, doc string, set func(*Action, int)) Arg {
	return Arg{Name: name, Type: Int, Doc: doc, set: func(a *Action, v any) { set(a, v.(int)) }}
}

func boolean(name, doc string, set func(*Action, bool)) Arg {
	return Arg{Name: name, Type: Bool, Doc: doc, set: func(a *Action, v any) { set(a, v.(bool)) }}
}

func list(name, doc string, set func(*Action, []string)) Arg {
	return Arg{Name: name, Type: Strings, Doc: doc, set: func(a *Action, v any) { set(a, v.([]string)) }}
}

// required marks an argument required; oneOf gives its allowed words.
func (g Arg) required() Arg { g.Required = true; return g }

func (g Arg) oneOf(words []string) Arg { g.Enum = words; return g }

// at is the point argument of the kinds that take one.
func at() Arg {
	return str("at", `"x,y" instead of a target`, func(a *Action, s string) { a.At = s })
}

// target is the usual target argument.
func target(doc string) Arg {
	return str("target", doc, func(a *Action, s string) { a.Target = s })
}

// Specs returns the table, in the order help texts and tools/list show it.
func Specs() []Spec {
	return append([]Spec(nil), specs...)
}

// SpecOf returns the kind's entry in the table.
func SpecOf(k Kind) (Spec, bool) {
	for _, s := range specs {
		if s.Kind == k {
			return s, true
		}
	}
	return Spec{}, false
}

// Kinds lists every action kind, in the order help texts show them.
func Kinds() []Kind {
	out := make([]Kind, len(specs))
	for i, s := range specs {
		out[i] = s.Kind
	}
	return out
}

// StepHelp is the step syntax of every kind, one per line, for help texts.
func StepHelp() string {
	var b strings.Builder
	for _, s := range specs {
		switch {
		case s.Syntax == "":
		case len(s.Syntax) > 40:
			fmt.Fprintf(&b, "  %s\n  %-40s %s\n", s.Syntax, "", s.Doc)
		default:
			fmt.Fprintf(&b, "  %-40s %s\n", s.Syntax, s.Doc)
		}
	}
	return b.String()
}

// oneOfErr says which words a value may take.
func oneOfErr(what, v string, words []string) error {
	return fmt.Errorf("%s %q: use %s", what, v, orList(words))
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
