package tree

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// The page map (docs/tree.md): lines right after a page snapshot's header that
// say what the page is (its schema.org or OpenGraph metadata, [PageMeta])
// and what the regions the budget cut hold (`table "Users" e1: 5 columns,
// 1,000 rows`), so an agent knows what it did not see and which ref to
// snapshot for it.

// PageMeta is what a page says about itself in its metadata: its type and
// main entity (schema.org JSON-LD, or OpenGraph), and the few facts about
// that entity an agent most often wants. Empty fields are unknown.
type PageMeta struct {
	// Type is the schema.org type ("Product", "NewsArticle") or the
	// OpenGraph type ("article", "website").
	Type string `json:"type"`
	// Name is the main entity's name or headline (the page's title for
	// OpenGraph).
	Name string `json:"name,omitempty"`
	// Price and Currency are the offer ("89.00", "EUR"); a range of
	// offers is "12.00–20.00". Availability is in words ("in stock").
	Price        string `json:"price,omitempty"`
	Currency     string `json:"currency,omitempty"`
	Availability string `json:"availability,omitempty"`
	// Rating is the aggregate rating's value and Reviews how many
	// reviews or ratings it sums up.
	Rating  string `json:"rating,omitempty"`
	Reviews int    `json:"reviews,omitempty"`
	// Author is the author's (or the organizer's) name.
	Author string `json:"author,omitempty"`
	// Date is when the entity was published or starts: an ISO date,
	// with the time of day for events ("2026-11-02 19:30").
	Date string `json:"date,omitempty"`
	// Place is where an event happens or a business is.
	Place string `json:"place,omitempty"`
	// Duration is a recipe's total time or a video's length ("45 min").
	Duration string `json:"duration,omitempty"`
	// Questions counts a FAQ page's questions.
	Questions int `json:"questions,omitempty"`
	// Path is the page's breadcrumb trail, outermost first.
	Path []string `json:"path,omitempty"`
}

// Page map limits: how long a quoted string may be, how many facts follow
// the name and how many tokens the line may take with them, how many
// regions are summarised.
const (
	metaName   = 48
	metaString = 30
	metaFacts  = 3
	metaTokens = 40 // estimated (about 30 real); facts past it are left out
	maxRegions = 4
)

// Line renders the metadata as one line, e.g.
// `page: Product "Trail shoe" · offer 89.00 EUR, in stock · rating 4.6 (212)`.
// The page's strings are quoted; numbers, dates and currency codes were
// checked when they were read. A nil or typeless PageMeta renders as "".
func (m *PageMeta) Line() string {
	if m == nil || m.Type == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("page: ")
	b.WriteString(m.Type)
	if m.Name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(m.Name, metaName))
	}
	for _, f := range m.facts() {
		if EstimateTokens(b.String()+" · "+f) > metaTokens {
			break
		}
		b.WriteString(" · ")
		b.WriteString(f)
	}
	return b.String()
}

// facts lists the facts worth a place on the line, most useful first.
func (m *PageMeta) facts() []string {
	var out []string
	if m.Price != "" {
		f := "offer " + m.Price
		if m.Currency != "" {
			f += " " + m.Currency
		}
		if m.Availability != "" {
			f += ", " + m.Availability
		}
		out = append(out, f)
	} else if m.Availability != "" {
		out = append(out, m.Availability)
	}
	if m.Rating != "" {
		f := "rating " + m.Rating
		if m.Reviews > 0 {
			f += " (" + thousands(m.Reviews) + ")"
		}
		out = append(out, f)
	}
	if m.Author != "" {
		out = append(out, "by "+quote(m.Author, metaString))
	}
	if m.Date != "" {
		out = append(out, m.Date)
	}
	if m.Place != "" {
		out = append(out, "at "+quote(m.Place, metaString))
	}
	if m.Duration != "" {
		out = append(out, m.Duration)
	}
	if m.Questions > 0 {
		out = append(out, thousands(m.Questions)+" "+plural(m.Questions, "question", "questions"))
	}
	if len(m.Path) > 0 {
		out = append(out, "path "+quote(strings.Join(m.Path, " › "), metaName))
	}
	if len(out) > metaFacts {
		out = out[:metaFacts]
	}
	return out
}

// Strings calls fn on every string the page gave, and keeps what it
// returns: redaction masks credentials in them as in the tree.
func (m *PageMeta) Strings(fn func(string) string) {
	if m == nil {
		return
	}
	for _, p := range []*string{&m.Type, &m.Name, &m.Price, &m.Currency, &m.Availability, &m.Rating, &m.Author, &m.Date, &m.Place, &m.Duration} {
		*p = fn(*p)
	}
	for i := range m.Path {
		m.Path[i] = fn(m.Path[i])
	}
}

// pageMap returns the page map's lines for a budgeted snapshot: the
// metadata line, then a summary of each region the formatter cut.
func pageMap(meta *PageMeta, regions []*Node) []string {
	var out []string
	if l := meta.Line(); l != "" {
		out = append(out, l)
	}
	for _, r := range regions {
		if l := RegionSummary(r); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// regionRoles are the containers whose cut content a page map summarises.
var regionRoles = set("table", "grid", "treegrid", "form", "list", "listbox", "tree",
	"navigation", "menu", "menubar", "tablist", "feed")

// cutRegions returns the regions to summarise: the outermost nodes with a
// region role and a ref that the plan did not print whole (an elided run,
// a level cut for depth, lines past the budget, or the region itself left
// out), or that hold children the source did not read. At most maxRegions, the largest, in document order.
func cutRegions(root *Node, shown shownSet) []*Node {
	type found struct {
		n     *Node
		order int
		size  int
	}
	var regions []found
	for _, c := range root.Children {
		Walk(c, func(n *Node) bool {
			if n.Ref == "" || !regionRoles[n.Role] {
				return true
			}
			size, whole := 0, true
			Walk(n, func(x *Node) bool {
				size++
				whole = whole && shown[x] && x.Role != RoleUnread
				return true
			})
			if !whole {
				regions = append(regions, found{n, len(regions), size})
			}
			return false // the outermost region speaks for those inside
		})
	}
	if len(regions) > maxRegions {
		slices.SortStableFunc(regions, func(a, b found) int { return cmp.Compare(b.size, a.size) })
		regions = regions[:maxRegions]
		slices.SortFunc(regions, func(a, b found) int { return cmp.Compare(a.order, b.order) })
	}
	out := make([]*Node, len(regions))
	for i, r := range regions {
		out[i] = r.n
	}
	return out
}

// RegionSummary says in one line what a region holds, by its role:
// `table "Users" e1: 5 columns, 1,000 rows`, `form "Login" e2: 3 fields,
// 1 button`, `list e7: 240 items`, `navigation "Main" e3: 42 links`.
// Children a source did not read (a large page read on demand) are counted
// as the items they stand for. "" when the role has no summary or the
// region holds nothing to count.
func RegionSummary(n *Node) string {
	var facts []string
	add := func(c int, one, many string) {
		if c > 0 {
			facts = append(facts, thousands(c)+" "+plural(c, one, many))
		}
	}
	switch n.Role {
	case "table", "grid", "treegrid":
		rows, cols := tableShape(n)
		add(cols, "column", "columns")
		add(rows, "row", "rows")
	case "form":
		var fields, buttons int
		within(n, func(x *Node) {
			switch {
			case fieldRoles[x.Role]:
				fields++
			case x.Role == "button":
				buttons++
			}
		})
		add(fields, "field", "fields")
		add(buttons, "button", "buttons")
	case "navigation":
		links := 0
		within(n, func(x *Node) {
			if x.Role == "link" {
				links++
			}
		})
		add(links, "link", "links")
	default:
		if !regionRoles[n.Role] {
			return ""
		}
		items := 0
		for i, c := range n.Children {
			switch {
			case c.Role == RoleUnread && i == len(n.Children)-1:
				items += c.Unread // the region's own children not read
			case c.Role == RoleUnread:
				items++ // an item whose content was not read, in its place
			case itemRoles[c.Role]:
				items++
			}
		}
		add(items, "item", "items")
	}
	if len(facts) == 0 {
		return ""
	}
	var b strings.Builder
	writeHead(&b, n, metaName)
	b.WriteString(": ")
	b.WriteString(strings.Join(facts, ", "))
	return b.String()
}

// fieldRoles are the controls a form summary counts as fields.
var fieldRoles = set("textbox", "searchbox", "combobox", "listbox", "checkbox", "radio",
	"switch", "slider", "spinbutton")

// itemRoles are the items of lists, menus, trees and feeds.
var itemRoles = set("listitem", "option", "treeitem", "menuitem", "menuitemcheckbox",
	"menuitemradio", "tab", "article", "link")

// within calls fn for every node under n (n excluded), nested tables and
// forms included; unread placeholders are not counted.
func within(n *Node, fn func(*Node)) {
	for _, c := range n.Children {
		Walk(c, func(x *Node) bool { fn(x); return true })
	}
}

// tableShape counts a table's body rows (header rows left out, unread rows
// counted) and its columns: the most cells a row had. It does not look
// into tables nested in cells.
func tableShape(n *Node) (rows, cols int) {
	var walk func(x *Node)
	walk = func(x *Node) {
		for _, c := range x.Children {
			switch {
			case c.Role == RoleUnread:
				rows += c.Unread
			case c.Role == "row":
				if !c.headRow {
					rows++
				}
				cols = max(cols, rowCells(c))
			case !regionRoles[c.Role]:
				walk(c)
			}
		}
	}
	walk(n)
	return rows, cols
}

// rowCells is how many cells a row has: as the source gave it (cleaning
// drops cells whose text is in the row's name), or as it has now.
func rowCells(r *Node) int {
	c := 0
	for _, x := range r.Children {
		if isCell(x) {
			c++
		}
	}
	return max(c, r.cells)
}

// noteRow remembers, before cleaning drops a row's plain cells, how many
// cells it has and whether all are column headers. Clean calls it.
func noteRow(n *Node) {
	if n.Role != "row" || n.cells > 0 {
		return
	}
	head := true
	for _, c := range n.Children {
		if isCell(c) {
			n.cells++
			head = head && c.Role == "columnheader"
		}
	}
	n.headRow = n.cells > 0 && head
}

// thousands writes n with thousands separators: 1,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeMapped plans the tree within avail tokens less what the page map
// takes, and writes the map's lines, then the tree. The map depends on
// what the plan cut, and the plan on the map's cost, so it plans again
// (twice at most) when the regions it found cost more than it reserved;
// region lines that still do not fit are left out.
func (f *formatter) writeMapped(b *strings.Builder, s *Snapshot, avail int) {
	lines := pageMap(s.Header.Page, nil)
	var body strings.Builder
	for try := 0; ; try++ {
		reserve := linesCost(lines)
		f.limit, f.spent, f.cut = 0, 0, 0
		f.shown = shownSet{}
		f.plan(s.Root.Children, avail-reserve)
		body.Reset()
		f.write(&body, s.Root, 0)
		next := pageMap(s.Header.Page, cutRegions(s.Root, f.shown))
		if linesCost(next) <= reserve || try == 2 {
			for linesCost(next) > reserve && len(next) > 0 {
				next = next[:len(next)-1]
			}
			lines = next
			break
		}
		lines = next
	}
	f.shown = nil
	writeLines(b, lines)
	b.WriteString(body.String())
}

// shownSet holds the nodes a plan printed, a line each.
type shownSet map[*Node]bool

// add records n as printed unless the budget cut its line (cut > 0);
// only while a page map is made.
func (s shownSet) add(n *Node, cut int) {
	if s != nil && cut == 0 {
		s[n] = true
	}
}

// linesCost is what lines cost in the budget.
func linesCost(lines []string) int {
	c := 0
	for _, l := range lines {
		c += EstimateTokens(l) + 1
	}
	return c
}

func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}
