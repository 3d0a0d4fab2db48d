package extract

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Table is one data table: an HTML <table> or an ARIA table, grid or
// treegrid. Every row, the header included, has the same number of cells.
type Table struct {
	// Caption is the <caption>, aria-label or aria-labelledby text; often "".
	Caption string
	// Header holds the column headings: the <thead> rows, or the leading rows
	// made only of <th>/columnheader cells. Several header rows are merged
	// per column as "Group / Column". Nil when the table has none.
	Header []string
	// Rows are the body rows, <tfoot> rows last, rows with no text dropped.
	Rows [][]string
}

// Tables returns the data tables in src (a document or a scope's outerHTML)
// in document order.
//
// A cell's text is its visible text on one line (for an icon-only cell its
// aria-label, title or image alt). A cell spanning several columns or rows
// is repeated in each, so every row reads on its own. A table nested in a
// cell is part of that cell's text, not a table of its own. Layout tables
// (role=presentation or none) are not tables, but data tables inside them
// are found.
func Tables(src string) ([]Table, error) {
	doc, err := parse(src)
	if err != nil {
		return nil, err
	}
	ids := idIndex(doc)
	var out []Table
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && isTable(n) {
			if t, ok := readTable(n, ids); ok {
				out = append(out, t)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out, nil
}

// isTable reports whether n is a data table.
func isTable(n *html.Node) bool {
	switch role(n) {
	case "table", "grid", "treegrid":
		return true
	case "presentation", "none":
		return false
	}
	return n.DataAtom == atom.Table
}

func isRow(n *html.Node) bool { return n.DataAtom == atom.Tr || role(n) == "row" }

func isCell(n *html.Node) bool {
	return n.DataAtom == atom.Td || n.DataAtom == atom.Th || cellRoles[role(n)]
}

func isHeaderCell(n *html.Node) bool {
	switch role(n) {
	case "columnheader":
		return true
	case "cell", "gridcell", "rowheader":
		return false
	}
	return n.DataAtom == atom.Th
}

// rowGroup says where a row sits: in the header, the body, or the footer.
type rowGroup int

const (
	inBody rowGroup = iota
	inHead
	inFoot
)

// rawRow is one row before spans are resolved.
type rawRow struct {
	group rowGroup
	cells []rawCell
}

type rawCell struct {
	text             string
	header           bool
	colspan, rowspan int
}

// maxColspan is the HTML limit on colspan; it also keeps a hostile page from
// making us allocate huge rows.
const maxColspan = 1000

// rowRef is one row of a table as found in the DOM.
type rowRef struct {
	node  *html.Node
	group rowGroup
	cells []*html.Node
}

// rowsOf finds the rows of table t and their cells, not descending into
// nested tables or into cells.
func rowsOf(t *html.Node) []rowRef {
	var rows []rowRef
	var walk func(n *html.Node, g rowGroup)
	walk = func(n *html.Node, g rowGroup) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || isTable(c) {
				continue
			}
			switch {
			case isRow(c):
				rows = append(rows, rowRef{node: c, group: g, cells: cellsOf(c)})
			case c.DataAtom == atom.Thead:
				walk(c, inHead)
			case c.DataAtom == atom.Tfoot:
				walk(c, inFoot)
			case c.DataAtom == atom.Caption:
			default:
				walk(c, g)
			}
		}
	}
	walk(t, inBody)
	return rows
}

// cellsOf returns the cells of row r.
func cellsOf(r *html.Node) []*html.Node {
	var cells []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type != html.ElementNode || isTable(c):
			case isCell(c):
				cells = append(cells, c)
			default:
				walk(c)
			}
		}
	}
	walk(r)
	return cells
}

// raw reads the text and spans of rows' cells.
func raw(rows []rowRef) []rawRow {
	out := make([]rawRow, len(rows))
	for i, r := range rows {
		out[i].group = r.group
		for _, c := range r.cells {
			out[i].cells = append(out[i].cells, rawCell{
				text:    cellText(c),
				header:  isHeaderCell(c),
				colspan: span(c, "colspan", maxColspan),
				rowspan: span(c, "rowspan", 1<<16),
			})
		}
	}
	return out
}

// headRows counts the header rows: the thead's, or else the leading rows
// made only of header cells (but never every row).
func headRows(rows []rawRow) int {
	n := 0
	for n < len(rows) && rows[n].group == inHead {
		n++
	}
	if n == 0 {
		for n < len(rows)-1 && allHeader(rows[n]) {
			n++
		}
	}
	return n
}

// readTable reads table t. ok is false when it has no rows with text.
func readTable(t *html.Node, ids map[string]*html.Node) (Table, bool) {
	rows := raw(rowsOf(t))
	if len(rows) == 0 {
		return Table{}, false
	}
	grid := layout(rows)
	nHead := headRows(rows)
	var tb Table
	tb.Caption = caption(t, ids)
	if nHead > 0 {
		tb.Header = mergeHeader(grid[:nHead])
	}
	var foot [][]string
	for i := nHead; i < len(rows); i++ {
		if empty(grid[i]) {
			continue
		}
		if rows[i].group == inFoot {
			foot = append(foot, grid[i])
		} else {
			tb.Rows = append(tb.Rows, grid[i])
		}
	}
	tb.Rows = append(tb.Rows, foot...)
	if tb.Header == nil && len(tb.Rows) == 0 {
		return Table{}, false
	}
	return tb, true
}

// cellText is a cell's visible text on one line (lines inside it joined by
// "; "), or for a cell with none (an icon) its fallbackName.
func cellText(c *html.Node) string {
	if t := flatText(c); t != "" {
		return t
	}
	return fallbackName(c)
}

// fallbackName names an element that has no visible text: the first
// aria-label or title in it (itself first), or the alt text of an image.
func fallbackName(n *html.Node) string {
	var name string
	find(n, func(x *html.Node) bool {
		name = collapse(attr(x, "aria-label"))
		if name == "" {
			name = collapse(attr(x, "title"))
		}
		if name == "" && (x.DataAtom == atom.Img || x.DataAtom == atom.Area) {
			name = collapse(attr(x, "alt"))
		}
		return name != ""
	})
	return name
}

// span reads a colspan or rowspan (or its aria- form) clamped to [1, max];
// rowspan=0 ("to the end of the group") counts as max.
func span(c *html.Node, key string, max int) int {
	v := attr(c, key)
	if v == "" {
		v = attr(c, "aria-"+key)
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil || n < 0:
		return 1
	case n == 0 && key == "rowspan":
		return max
	case n == 0:
		return 1
	}
	return min(n, max)
}

// layout resolves colspan and rowspan into a rectangular grid, repeating a
// spanning cell's text in every slot it covers.
func layout(rows []rawRow) [][]string {
	type carry struct {
		text string
		left int // rows still covered below
	}
	var down []carry // by column: a rowspan reaching into the current row
	grid := make([][]string, len(rows))
	width := 0
	for i, r := range rows {
		var line []string
		col := 0
		fill := func() {
			for col < len(down) && down[col].left > 0 {
				line = append(line, down[col].text)
				down[col].left--
				col++
			}
		}
		for _, c := range r.cells {
			fill()
			for k := 0; k < c.colspan; k++ {
				line = append(line, c.text)
				for len(down) <= col {
					down = append(down, carry{})
				}
				down[col] = carry{c.text, min(c.rowspan, len(rows)-i) - 1}
				col++
			}
		}
		for col < len(down) {
			if down[col].left > 0 {
				fill()
				continue
			}
			line = append(line, "")
			col++
		}
		grid[i] = line
		width = max(width, len(line))
	}
	for i := range grid {
		// Rows with fewer cells than the widest are padded with blanks.
		for len(grid[i]) < width {
			grid[i] = append(grid[i], "")
		}
	}
	return grid
}

func allHeader(r rawRow) bool {
	if len(r.cells) == 0 {
		return false
	}
	for _, c := range r.cells {
		if !c.header {
			return false
		}
	}
	return true
}

func empty(row []string) bool {
	for _, c := range row {
		if c != "" {
			return false
		}
	}
	return true
}

// mergeHeader merges several header rows into one, per column: "2024 / Q1".
// A heading spanning rows appears once.
func mergeHeader(rows [][]string) []string {
	out := make([]string, len(rows[0]))
	for col := range out {
		var parts []string
		for _, r := range rows {
			if t := r[col]; t != "" && (len(parts) == 0 || parts[len(parts)-1] != t) {
				parts = append(parts, t)
			}
		}
		out[col] = strings.Join(parts, " / ")
	}
	return out
}

// caption is a table's title: <caption>, aria-label, or the text of the
// elements aria-labelledby names.
func caption(t *html.Node, ids map[string]*html.Node) string {
	if s := htmlCaption(t); s != "" {
		return s
	}
	if s := collapse(attr(t, "aria-label")); s != "" {
		return s
	}
	var parts []string
	for _, id := range strings.Fields(attr(t, "aria-labelledby")) {
		if n := ids[id]; n != nil {
			if s := innerText(n); s != "" {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, " ")
}

// htmlCaption is the text of table t's <caption>, or "".
func htmlCaption(t *html.Node) string {
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Caption {
			return innerText(c)
		}
	}
	return ""
}

// RenderTables prints tables as unpadded Markdown pipe tables — about as
// few tokens as TSV, but with the header marked: `|a|b|` rows, a `|-|-|`
// line under the header, `|` in a cell escaped as `\|`. A table without a
// header has no separator line. When there are several tables, or the
// table has a caption, a `Table N: caption` line comes first; tables are
// separated by a blank line. No tables prints "no tables".
func RenderTables(ts []Table) string {
	if len(ts) == 0 {
		return "no tables"
	}
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte('\n')
		}
		if len(ts) > 1 || t.Caption != "" {
			b.WriteString("Table ")
			b.WriteString(strconv.Itoa(i + 1))
			if t.Caption != "" {
				b.WriteString(": ")
				b.WriteString(t.Caption)
			}
			b.WriteByte('\n')
		}
		t.write(&b)
	}
	return strings.TrimRight(b.String(), "\n")
}

// String renders the table alone, as RenderTables does without a label.
func (t Table) String() string {
	var b strings.Builder
	t.write(&b)
	return strings.TrimRight(b.String(), "\n")
}

func (t Table) write(b *strings.Builder) {
	if t.Header != nil {
		writeRow(b, t.Header)
		b.WriteString(strings.Repeat("|-", len(t.Header)))
		b.WriteString("|\n")
	}
	for _, r := range t.Rows {
		writeRow(b, r)
	}
}

var cellEscaper = strings.NewReplacer("|", `\|`, "\n", " ")

func writeRow(b *strings.Builder, cells []string) {
	b.WriteByte('|')
	for _, c := range cells {
		b.WriteString(cellEscaper.Replace(c))
		b.WriteByte('|')
	}
	b.WriteByte('\n')
}
