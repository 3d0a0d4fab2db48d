package tree

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultBudget is the token budget of a default snapshot (docs/tree.md, ≈4k).
const DefaultBudget = 4000

// minElide is the shortest run of similar siblings that may be elided; a
// container with a run this long gets a ref so the elision line can point at
// it.
const minElide = 5

// Name length limits of a budgeted snapshot; a full snapshot cuts nothing.
const (
	maxName = 100 // names of controls and containers
	maxText = 300 // running text
)

// Options control Format.
type Options struct {
	// Budget is the most tokens the text may take; 0 means DefaultBudget.
	Budget int
	// Full prints everything: no budget, no elision, no cut names.
	Full bool
	// Depth, when above 0, prints at most that many levels below the
	// root: a node whose children lie deeper says how many nodes it holds.
	Depth int
	// More words the lines that say how to see what was left out; nil is
	// the CLI's and MCP's wording (snapshot e412, snapshot --full).
	More *More
}

// More is a surface's way to see what a printed tree left out: the shell
// says `ls e412` where the CLI says `snapshot e412`.
type More struct {
	// Scope is the command that shows one node's children, given its ref.
	Scope func(ref string) string
	// Whole is the command that shows everything.
	Whole string
	// Rest is the hint of the closing line when the budget ran out.
	Rest string
}

// snapshotMore is the CLI's and MCP's wording.
var snapshotMore = More{
	Scope: func(ref string) string { return "snapshot " + ref },
	Whole: "snapshot --full",
	Rest:  "snapshot --full, or --scope a ref above",
}

// more returns opt's wording, or the snapshot one.
func (opt Options) more() *More {
	if opt.More != nil {
		return opt.More
	}
	return &snapshotMore
}

// Format prints a snapshot as compact text (docs/tree.md): the header line, then
// one line per node with two-space indentation. Unless opt.Full, the text fits
// opt.Budget tokens (by [EstimateTokens]): long runs of similar siblings keep
// their first items and end in a line that says how many were left out and
// how to see them, e.g. `… 940 more rows (snapshot e412)`.
//
// Format is the only formatter: every surface prints trees through it.
func Format(s *Snapshot, opt Options) string {
	f := newFormatter(opt)
	var b strings.Builder
	b.WriteString(s.Header.Line())
	b.WriteByte('\n')
	if s.Root == nil || f.full {
		writeLines(&b, pageMap(s.Header.Page, nil)) // pagemap.go
	}
	if s.Root == nil {
		return b.String()
	}
	if f.full {
		f.cap, f.depth = -1, f.maxLevels
		f.write(&b, s.Root, 0)
		return b.String()
	}
	f.measure(s.Root)
	// Plans, then writes the page map and the tree (pagemap.go).
	f.writeMapped(&b, s, f.budget-EstimateTokens(b.String()))
	if f.cut > 0 {
		b.WriteString("… ")
		b.WriteString(strconv.Itoa(f.cut))
		b.WriteString(" more lines (" + f.wording().Rest + ")\n")
	}
	return b.String()
}

// newFormatter sets a formatter up from the options.
func newFormatter(opt Options) formatter {
	f := formatter{full: opt.Full, budget: opt.Budget, more: opt.more(), maxLevels: -1}
	if f.budget <= 0 {
		f.budget = DefaultBudget
	}
	if opt.Depth > 0 {
		f.maxLevels = opt.Depth
	}
	return f
}

// tailCost is what the closing "… N more lines" line may cost.
const tailCost = 20

type formatter struct {
	full     bool
	budget   int
	cap      int           // items kept per run; -1 keeps all
	depth    int           // levels printed; -1 prints all
	cost     map[*Node]int // tokens of a node's own line at depth 0
	cutCosts map[*Node]int // tokens of a node's line when its children are cut
	limit    int           // when > 0, stop printing once this many tokens are spent
	spent    int           // tokens printed so far, when limit > 0
	cut      int           // lines not printed because of limit
	shown    shownSet      // nodes printed, for the page map
	maxRun   int           // longest run anywhere, an upper bound for cap
	maxDepth int           // levels below the root
	// maxLevels is the most levels Options.Depth lets print; -1 for all.
	maxLevels int
	more      *More // the surface's wording of "see more"
}

// measure caches each node's line cost and finds the longest run.
func (f *formatter) measure(root *Node) {
	f.cost = map[*Node]int{}
	f.cutCosts = map[*Node]int{}
	Walk(root, func(n *Node) bool {
		f.cost[n] = EstimateTokens(f.line(n))
		f.maxRun = max(f.maxRun, longestRun(n.Children))
		return true
	})
	f.maxDepth = depthOf(root) - 1
	if f.maxLevels > 0 {
		f.maxDepth = min(f.maxDepth, f.maxLevels)
	}
}

// depthOf returns the number of levels in the tree under n, n included.
func depthOf(n *Node) int {
	d := 0
	for _, c := range n.Children {
		d = max(d, depthOf(c))
	}
	return d + 1
}

// overhead is what a line costs besides its text: the newline, and one
// token for any indentation (a run of spaces is one token).
func overhead(depth int) int { return 1 + min(depth, 1) }

// minCap is the fewest items a run keeps before the budget starts cutting
// depth instead: three rows say more about a table than one row and its cells.
const minCap = 3

// plan picks how to fit avail tokens, trying in order: everything; fewer
// items per run (down to minCap); shallower trees at minCap; one item per run
// at depth 1; and finally a hard cut with a closing line.
func (f *formatter) plan(kids []*Node, avail int) {
	f.cap, f.depth = -1, f.maxLevels
	if f.total(kids, 0) <= avail {
		return
	}
	if f.cap = f.largestCap(kids, avail, minCap-1); f.cap >= minCap {
		return
	}
	f.cap = minCap
	for d := f.maxDepth; d >= 1; d-- {
		if f.depth = d; f.total(kids, 0) <= avail {
			// Spend what the depth cut left on more items per run.
			f.cap = f.largestCap(kids, avail, minCap)
			return
		}
	}
	f.cap, f.depth = 1, 1
	if f.total(kids, 0) > avail {
		f.limit = avail - tailCost
	}
}

// largestCap returns the largest cap in [lo, maxRun] for which the tree fits
// avail at the current depth limit, by bisection; lo when none above it does.
func (f *formatter) largestCap(kids []*Node, avail, lo int) int {
	hi := max(lo, f.maxRun)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if f.cap = mid; f.total(kids, 0) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// total returns the tokens the children take at depth under the current cap
// and depth limit. Indentation costs about one token per two levels.
func (f *formatter) total(kids []*Node, depth int) int {
	sum := 0
	forRuns(kids, f.cap, func(n *Node, hidden int, role string) {
		if n == nil {
			sum += 12 + overhead(depth)
			return
		}
		if f.deep(depth) && len(printed(n)) > 0 {
			sum += f.cutCost(n) + overhead(depth)
			return
		}
		if transparent(n) {
			sum += f.total(n.Children, depth)
			return
		}
		sum += f.cost[n] + overhead(depth)
		sum += f.total(printed(n), depth+1)
	})
	return sum
}

// printed returns the children of n that are printed under its line: none
// for a collapsed select, whose line counts its options instead.
func printed(n *Node) []*Node {
	if summarised(n) {
		return nil
	}
	return n.Children
}

// transparent reports whether n's own line would say nothing: an unnamed
// paragraph around text and inline controls, without ref, state or value.
// Its children are printed in its place, at its depth (they stay apart:
// each is a line of its own). The tree keeps the paragraph, so runs of
// paragraphs still elide together and selectors still find it.
//
// An unnamed main landmark without ref is transparent too: it only has no
// ref when it holds the whole page (see soleMain).
func transparent(n *Node) bool {
	return (n.Role == "paragraph" || n.Role == "main") && n.Name == "" && n.Ref == "" && n.States == 0 &&
		n.Value == "" && len(n.Children) > 0
}

// summarised reports whether n is a collapsed combobox (a <select>) whose
// options are printed as a count, `combobox "Region" e10 value="Europe" (3
// options)`: the value says which is chosen, and `select` and `find
// role:option` still reach every option in the tree.
func summarised(n *Node) bool {
	if n.Role != "combobox" || n.States.Has(Expanded) || len(n.Children) == 0 {
		return false
	}
	return countOptions(n) > 0
}

// countOptions returns the options under n, or 0 when n holds anything but
// options and the containers that group them.
func countOptions(n *Node) int {
	count, other := 0, false
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool {
			switch x.Role {
			case "option":
				count++
				return false
			case "group", "listbox", "menu", "separator", RoleGeneric:
				return true
			}
			other = true
			return false
		})
	}
	if other {
		return 0
	}
	return count
}

// cutLine prints a node whose children the depth limit hides: running text
// (a paragraph with links in it) as its text, anything else as its own line
// and a count of what is inside.
func (f *formatter) cutLine(n *Node) string {
	if proseRoles[n.Role] || n.Role == "listitem" {
		if t := textOf(n); t != "" && n.Ref == "" {
			return quote(t, maxText)
		}
	}
	return f.line(n) + " (… " + strconv.Itoa(Count(n)-1) + " more inside)"
}

func (f *formatter) cutCost(n *Node) int {
	c, ok := f.cutCosts[n]
	if !ok {
		c = EstimateTokens(f.cutLine(n))
		f.cutCosts[n] = c
	}
	return c
}

// deep reports whether the children of a node at depth are cut by the
// depth limit.
func (f *formatter) deep(depth int) bool { return f.depth >= 0 && depth+1 >= f.depth }

// forRuns calls fn for every child that is printed, and once per elided run
// with n == nil, the number hidden and the run's role.
func forRuns(kids []*Node, cap int, fn func(n *Node, hidden int, role string)) {
	for i := 0; i < len(kids); {
		j := i + 1
		for j < len(kids) && similar(kids[j-1], kids[j]) {
			j++
		}
		run := j - i
		keep := run
		if cap >= 0 && run >= minElide && run-cap >= 2 {
			keep = cap
		}
		for k := i; k < i+keep; k++ {
			fn(kids[k], 0, "")
		}
		if keep < run {
			fn(nil, run-keep, kind(kids[i]))
		}
		i = j
	}
}

// write prints parent's children at depth.
func (f *formatter) write(b *strings.Builder, parent *Node, depth int) {
	forRuns(parent.Children, f.cap, func(n *Node, hidden int, role string) {
		if n == nil {
			f.emit(b, depth, "… "+strconv.Itoa(hidden)+" more "+pluralRole(role, hidden)+" ("+f.seeMore(parent)+")")
			return
		}
		if f.deep(depth) && len(printed(n)) > 0 {
			f.emit(b, depth, f.cutLine(n))
			f.shown.add(n, f.cut) // pagemap.go
			return
		}
		if transparent(n) {
			f.write(b, n, depth)
			return
		}
		f.emit(b, depth, f.line(n))
		f.shown.add(n, f.cut)
		if len(printed(n)) > 0 {
			f.write(b, n, depth+1)
		}
	})
}

// seeMore says how to see an elided run: the run's parent alone.
func (f *formatter) seeMore(parent *Node) string {
	if parent.Ref != "" {
		return f.wording().Scope(parent.Ref)
	}
	return f.wording().Whole
}

func (f *formatter) emit(b *strings.Builder, depth int, text string) {
	if f.limit > 0 {
		c := EstimateTokens(text) + overhead(depth)
		if f.cut > 0 || f.spent+c > f.limit {
			f.cut++
			return
		}
		f.spent += c
	}
	for range depth {
		b.WriteString("  ")
	}
	b.WriteString(text)
	b.WriteByte('\n')
}

// Line renders one node as it appears in a budgeted snapshot, without
// indentation or children: `button "Save" e12 disabled`. Diffs and error
// messages cite nodes with it, so a node reads the same everywhere.
func Line(n *Node) string {
	var f formatter
	return f.line(n)
}

// maxCite is how many runes of the text inside an unnamed container name it
// in [Cite]: enough to tell items apart, not a whole item.
const maxCite = 40

// Cite renders n as [Line] does, except that an unnamed container without a
// ref, which an agent knows only by what it holds, is named by the first
// text inside it (a control's name only when it holds no other), cut to
// maxCite runes: `listitem "Buy milk"`. Diffs cite removed nodes with it,
// so that a reply says which item went, not only that one did.
func Cite(n *Node) string {
	if n.Name != "" || n.Ref != "" || n.Role == RoleText || len(n.Children) == 0 {
		return Line(n)
	}
	t := FirstText(n)
	if t == "" {
		return Line(n)
	}
	if r := []rune(t); len(r) > maxCite {
		t = strings.TrimRight(string(r[:maxCite-1]), " ") + "…"
	}
	c := *n
	c.Name = t
	return Line(&c)
}

// FirstText returns what an unnamed container is known by: the first text,
// or name of something that is not a control, under n (a list item's "Buy
// milk", not its "Delete"); else the first control's own name; else "".
// Borrowed names are skipped: their text is found where it is printed.
func FirstText(n *Node) string {
	text, control := "", ""
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool {
			switch {
			case text != "":
				return false
			case x.Name == "" || x.Borrowed:
			case IsActionRole(x.Role) || x.States.Has(Clickable):
				if control == "" {
					control = x.Name
				}
			default:
				text = x.Name
			}
			return text == ""
		})
	}
	if text != "" {
		return text
	}
	return control
}

// wording is the formatter's "see more" wording; a zero formatter (Line)
// has the snapshot one.
func (f *formatter) wording() *More {
	if f.more == nil {
		return &snapshotMore
	}
	return f.more
}

// line renders one node: ROLE "NAME" REF LEVEL STATES VALUE. Text and
// paragraphs of plain text print as a bare quoted string.
func (f *formatter) line(n *Node) string {
	if n.Role == RoleUnread {
		kind := "items"
		if n.Name != "" {
			kind = pluralRole(n.Name, n.Unread)
		}
		return "… " + strconv.Itoa(n.Unread) + " more " + kind + " not read (" + f.wording().Whole + ")"
	}
	limit := 0
	if !f.full {
		limit = maxName
	}
	if (n.Role == RoleText || n.Role == "paragraph") && n.Ref == "" && n.Name != "" && len(n.Children) == 0 {
		if !f.full {
			limit = maxText
		}
		return quote(n.Name, limit)
	}
	var b strings.Builder
	writeHead(&b, n, limit)
	if n.Level > 0 && n.Role == "heading" {
		b.WriteString(" h")
		b.WriteString(strconv.Itoa(n.Level))
	}
	states := n.States
	options := 0
	if summarised(n) {
		// "(3 options)" says it is closed.
		options, states = countOptions(n), states&^Collapsed
	}
	if states != 0 {
		b.WriteByte(' ')
		b.WriteString(states.String())
	}
	if n.Value != "" && !n.States.Has(Protected) {
		b.WriteString(" value=")
		b.WriteString(quote(n.Value, limit))
	}
	if options > 0 {
		b.WriteString(" (" + strconv.Itoa(options) + " " + pluralRole("option", options) + ")")
	}
	return b.String()
}

// writeHead writes the start every node line shares, ROLE "NAME" REF, with
// the name cut to limit runes (0 = no limit).
func writeHead(b *strings.Builder, n *Node, limit int) {
	b.WriteString(n.Role)
	if n.Name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(n.Name, limit))
	}
	if n.Ref != "" {
		b.WriteByte(' ')
		b.WriteString(n.Ref)
	}
}

// quote writes s in double quotes with `"` and `\` escaped and newlines as
// \n, cut to limit runes with "…" (0 = no limit).
func quote(s string, limit int) string {
	if limit > 0 && utf8.RuneCountInString(s) > limit {
		r := []rune(s)
		s = strings.TrimRight(string(r[:limit-1]), " ") + "…"
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028', '\u2029':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
