// Package action defines canopy's actions as values: what an agent asks a
// source (a browser tab, later the desktop) to do. Every surface — the CLI's
// `canopy do`, the MCP tools, the shell, scripts — builds [Action] values and
// hands them to the one executor (package session), which resolves the
// target, checks policy, acts, settles and diffs.
//
// An Action is plain data so it can be logged, audited, batched and sent
// over the wire; it carries a selector string, not a resolved node.
package action

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind names an action (docs/actions.md). The names are the MCP tool names.
type Kind string

// The actions.
const (
	Snapshot    Kind = "snapshot"
	Find        Kind = "find"
	Click       Kind = "click"
	DoubleClick Kind = "double_click"
	Hover       Kind = "hover"
	Type        Kind = "type"
	Press       Kind = "press"
	Select      Kind = "select"
	Check       Kind = "check"
	Uncheck     Kind = "uncheck"
	SetValue    Kind = "set_value"
	Scroll      Kind = "scroll"
	Drag        Kind = "drag"
	Upload      Kind = "upload"
	Navigate    Kind = "navigate"
	Tabs        Kind = "tabs"
	Wait        Kind = "wait"
	Evaluate    Kind = "evaluate"
	Screenshot  Kind = "screenshot"
	Extract     Kind = "extract"
	Dialog      Kind = "dialog"
	Print       Kind = "print"
	Permissions Kind = "permissions"
	Clipboard   Kind = "clipboard"
	Batch       Kind = "batch"
	// OpenApp and Activate act on the desktop: launch an application and
	// wait for its window; bring a window to the front.
	OpenApp  Kind = "open_app"
	Activate Kind = "activate"
)

// Tier is a permission tier (docs/tiers.md). Higher tiers include lower ones.
type Tier int

// The tiers, lowest first.
const (
	Observe Tier = iota + 1
	Act
	Sensitive
)

func (t Tier) String() string {
	switch t {
	case Observe:
		return "observe"
	case Act:
		return "act"
	case Sensitive:
		return "sensitive"
	}
	return fmt.Sprintf("tier(%d)", int(t))
}

// ParseTier reads a tier name.
func ParseTier(s string) (Tier, error) {
	for _, t := range []Tier{Observe, Act, Sensitive} {
		if strings.EqualFold(s, t.String()) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown permission tier %q: use observe, act or sensitive", s)
}

// Action is one request. Which fields matter depends on Kind; Validate says
// what is missing.
type Action struct {
	Kind Kind `json:"kind"`
	// Target is a selector (docs/selectors.md) or a ref naming the node to act on.
	Target string `json:"target,omitempty"`
	// At is a point, "x,y", standing for the target of click, hover and
	// find: the node there is the target, and click and hover act at the
	// point itself. Screen pixels when the desktop is live, else the
	// page's CSS pixels in its viewport (as a screenshot shows it).
	At string `json:"at,omitempty"`
	// To is the drop target of a drag (a selector or ref).
	To string `json:"to,omitempty"`
	// Text is what to type, the option to select, the value to set, the
	// script to evaluate, the text to wait for, or a prompt's answer.
	Text string `json:"text,omitempty"`
	// Credential names a secret to type instead of Text. The executor
	// resolves it at the last moment and keeps its value out of every
	// reply (docs/tiers.md).
	Credential string `json:"credential,omitempty"`
	// Keys is a key or chord for press: "Enter", "ctrl+s", "Shift+Tab".
	Keys string `json:"keys,omitempty"`
	// Clear empties a text box before typing; Submit presses Enter after.
	Clear  bool `json:"clear,omitempty"`
	Submit bool `json:"submit,omitempty"`
	// URL to navigate to, to open in a new tab, or to wait for (pattern).
	URL string `json:"url,omitempty"`
	// Nav is back, forward or reload for navigate; list, new, switch or
	// close for tabs; accept or dismiss for dialog.
	Nav string `json:"nav,omitempty"`
	// Tab is a tab's index (1-based) for tabs switch/close.
	Tab int `json:"tab,omitempty"`
	// Paths are files for upload.
	Paths []string `json:"paths,omitempty"`
	// Direction (up, down, left, right) and Amount (CSS px) for scroll.
	Direction string `json:"direction,omitempty"`
	Amount    int    `json:"amount,omitempty"`
	// Button (left, right, middle) and Count (clicks) for click.
	Button string `json:"button,omitempty"`
	Count  int    `json:"count,omitempty"`
	// State for wait: visible, hidden, enabled, disabled, checked,
	// unchecked, attached, detached; empty means "appears".
	State string `json:"state,omitempty"`
	// Quiet makes wait wait for the page to settle.
	Quiet bool `json:"quiet,omitempty"`
	// Format for extract: markdown, text, table, links, form.
	Format string `json:"format,omitempty"`
	// From is where an extract starts, in characters of the page's (or
	// scope's) text: a page too big for one extract is read a window at a
	// time, and the line that ends a cut extract gives the next From.
	From int `json:"from,omitempty"`
	// Marks draws ref labels on a screenshot; Screen takes the whole
	// screen (on the desktop).
	Marks  bool `json:"marks,omitempty"`
	Screen bool `json:"screen,omitempty"`
	// Path is where a screenshot (a step's) or print's PDF is saved: a
	// relative path inside the session's downloads folder; a path that
	// leads elsewhere needs the sensitive tier (docs/tiers.md). An empty
	// one keeps a screenshot in the reply, and names a PDF after the page.
	Path string `json:"path,omitempty"`
	// Full and Budget tune snapshot replies.
	Full   bool `json:"full,omitempty"`
	Budget int  `json:"budget,omitempty"`
	// Timeout caps a wait, and how long a navigate waits for the page to
	// load (0 = the default cap; at most MaxTimeout, see Limit).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Command and Args start an application for open_app.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Grant, Deny and Reset set a site's permissions (geolocation,
	// notifications…) for permissions; Origin names the site (empty: the
	// page's own).
	Grant  []string `json:"grant,omitempty"`
	Deny   []string `json:"deny,omitempty"`
	Reset  bool     `json:"reset,omitempty"`
	Origin string   `json:"origin,omitempty"`
	// Steps are the actions of a batch.
	Steps []Action `json:"steps,omitempty"`
}

// Point parses At: two numbers, "x,y" (spaces allowed).
func (a Action) Point() (x, y float64, err error) {
	xs, ys, ok := strings.Cut(a.At, ",")
	if ok {
		x, err = strconv.ParseFloat(strings.TrimSpace(xs), 64)
	}
	if ok && err == nil {
		y, err = strconv.ParseFloat(strings.TrimSpace(ys), 64)
	}
	if !ok || err != nil || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return 0, 0, fmt.Errorf("at must be a point x,y in pixels, such as 120,340; got %q", clip(a.At, 40))
	}
	return x, y, nil
}

// clip shortens s to n runes for an error message.
func clip(s string, n int) string {
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n]) + "…"
	}
	return s
}

// MaxTimeout is the longest an action may ask to wait: a longer Timeout
// is cut to it, so no deadline computed from one can overflow.
const MaxTimeout = 10 * time.Minute

// Limit is the action's Timeout within [0, MaxTimeout].
func (a Action) Limit() time.Duration {
	return ClampTimeout(a.Timeout)
}

// ClampTimeout bounds d to [0, MaxTimeout].
func ClampTimeout(d time.Duration) time.Duration {
	return min(max(d, 0), MaxTimeout)
}

// Tier returns the permission tier the action needs (docs/tiers.md): its kind's,
// refined by what it loads (a URL's scheme) or holds (a batch's steps).
func (a Action) Tier() Tier {
	s, ok := SpecOf(a.Kind)
	switch {
	case !ok:
		return Act
	case s.tierOf != nil:
		return s.tierOf(a)
	}
	return s.Tier
}

// LeastTier is the lowest tier some call of the kind needs: the table's
// Tier, or less when arguments lower it (tabs list is observe). A
// surface offers the kind to sessions of this tier and up.
func LeastTier(k Kind) Tier {
	s, ok := SpecOf(k)
	if !ok {
		return Act
	}
	return min(s.Tier, Action{Kind: k}.Tier())
}

// Acts reports whether the action may change the page, so its reply is a
// diff rather than a reading.
func (a Action) Acts() bool {
	s, ok := SpecOf(a.Kind)
	switch {
	case !ok:
		return true
	case s.actsOf != nil:
		return s.actsOf(a)
	}
	return !s.Reads
}

// NeedsTarget reports whether Kind always acts on one element.
func (a Action) NeedsTarget() bool {
	s, _ := SpecOf(a.Kind)
	return s.Target == NeedsTarget
}

// Validate reports, in words for the user, what a well-formed action of its
// kind is missing.
func (a Action) Validate() error {
	s, ok := SpecOf(a.Kind)
	if !ok {
		return fmt.Errorf("unknown action %q (actions: %s)", a.Kind, kindList())
	}
	if a.At != "" {
		if !s.Points {
			return fmt.Errorf("%s takes no point (at); click, hover and find do", a.Kind)
		}
		if a.Target != "" {
			return fmt.Errorf("%s takes a target or a point (at), not both", a.Kind)
		}
		if _, _, err := a.Point(); err != nil {
			return err
		}
	} else if s.Target == NeedsTarget && a.Target == "" {
		if s.Points {
			return fmt.Errorf("%s needs a target: a selector such as role:button name:Save, a ref such as e12, or a point (at 120,340)", a.Kind)
		}
		return fmt.Errorf("%s needs a target: a selector such as role:button name:Save, or a ref such as e12", a.Kind)
	}
	if s.check != nil {
		return s.check(a)
	}
	return nil
}

func kindList() string {
	var s []string
	for _, k := range Kinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// String renders the action in step syntax, for logs and error messages.
func (a Action) String() string {
	parts := []string{string(a.Kind)}
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(a.Nav)
	if a.Tab != 0 {
		add(fmt.Sprint(a.Tab))
	}
	add(a.Target)
	if a.Button != "left" {
		add(a.Button)
	}
	if a.To != "" {
		add(quoteArg(a.To))
	}
	add(a.Keys)
	if a.Command != "" {
		add(quoteArg(a.Command))
	}
	for _, x := range a.Args {
		add(quoteArg(x))
	}
	if a.Text != "" {
		if a.Kind == Wait {
			add("text")
		}
		add(quoteArg(a.Text))
	}
	if a.Credential != "" {
		add("credential:" + a.Credential)
	}
	if a.URL != "" {
		if a.Kind == Wait {
			add("url")
		}
		add(quoteArg(a.URL))
	}
	for _, p := range a.Paths {
		add(quoteArg(p))
	}
	add(a.Direction)
	if a.Amount != 0 {
		add(fmt.Sprint(a.Amount))
	}
	add(a.Format)
	add(a.State)
	if a.Clear {
		add("clear")
	}
	if a.Submit {
		add("submit")
	}
	if a.Quiet {
		add("quiet")
	}
	if a.Full {
		add("full")
	}
	if a.Marks {
		add("marks")
	}
	if a.Path != "" {
		add(quoteArg(a.Path))
	}
	return strings.Join(parts, " ")
}

func quoteArg(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
