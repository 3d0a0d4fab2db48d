package tree_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// usersTable builds a raw table as a browser gives it: a header row of
// column headers and n body rows of plain cells, in row groups.
func usersTable(n int) *tree.Node {
	head := keyed("head", el("row", "", el("columnheader", "ID"), el("columnheader", "Name"), el("columnheader", "Role")))
	body := el("rowgroup", "")
	for i := 1; i <= n; i++ {
		body.Children = append(body.Children, keyed(fmt.Sprintf("row%d", i),
			el("row", "", el("cell", "", txt(fmt.Sprint(i))), el("cell", "", txt(fmt.Sprintf("User %d", i))), el("cell", "", txt("Admin")))))
	}
	return keyed("users", el("table", "Users", el("rowgroup", "", head), body))
}

func TestRegionSummary(t *testing.T) {
	table := usersTable(1000)
	form := keyed("form", el("form", "Login",
		keyed("a", el("textbox", "Email")), keyed("b", el("textbox", "Password")),
		keyed("c", el("checkbox", "Remember me")), keyed("d", el("button", "Sign in"))))
	nav := keyed("nav", el("navigation", "Main"))
	for i := range 42 {
		nav.Children = append(nav.Children, el("listitem", "", keyed(fmt.Sprint("l", i), el("link", fmt.Sprint("Page ", i)))))
	}
	// A list read on demand: 60 items read, the rest counted.
	list := keyed("list", el("list", ""))
	for i := range 60 {
		list.Children = append(list.Children, el("listitem", "", txt(fmt.Sprint("Item ", i)), txt("note")))
	}
	list.Children = append(list.Children, &tree.Node{Role: tree.RoleUnread, Unread: 19940})
	// Items read, but not what they hold: a placeholder in each one's place.
	shallow := keyed("shallow", el("list", ""))
	for range 60 {
		shallow.Children = append(shallow.Children, &tree.Node{Role: tree.RoleUnread, Unread: 8})
	}
	shallow.Children = append(shallow.Children, &tree.Node{Role: tree.RoleUnread, Unread: 140})
	root := keyed("doc", el(tree.RoleDocument, "", table, form, nav, list, shallow))
	tree.Clean(root)
	tree.NewRefs().Assign(root)

	for _, c := range []struct {
		n    *tree.Node
		want string
	}{
		{table, `table "Users" e1: 3 columns, 1,000 rows`},
		{form, `form "Login" ` + form.Ref + `: 3 fields, 1 button`},
		{nav, `navigation "Main" ` + nav.Ref + `: 42 links`},
		{list, `list ` + list.Ref + `: 20,000 items`},
		{shallow, `list ` + shallow.Ref + `: 200 items`},
		{el("heading", "Not a region"), ``},
		{el("form", "Empty"), ``},
	} {
		if got := tree.RegionSummary(c.n); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

// TestFormatPageMap checks where the page map sits and when it shows: the
// metadata line under the header (full snapshots too), a summary only for
// the regions the budget cut, within the budget.
func TestFormatPageMap(t *testing.T) {
	meta := &tree.PageMeta{Type: "Product", Name: "Trail shoe", Price: "89.00", Currency: "EUR"}
	h := tree.Header{Kind: "tab", Index: 1, Title: "Shop", URL: "http://shop.test/", Page: meta}
	small := snapshot(h, keyed("doc", el(tree.RoleDocument, "", usersTable(3))))
	got := tree.Format(small, tree.Options{})
	want := lines(`tab 1 "Shop" shop.test`, `page: Product "Trail shoe" · offer 89.00 EUR`, `table "Users" e1`,
		`  row "ID | Name | Role" e2`, `  row "1 | User 1 | Admin" e3`, `  row "2 | User 2 | Admin" e4`, `  row "3 | User 3 | Admin" e5`)
	if got != want {
		t.Errorf("a page that fits has its metadata line and no summary:\n%s\nwant\n%s", got, want)
	}
	if full := tree.Format(small, tree.Options{Full: true}); full != want {
		t.Errorf("full:\n%s\nwant\n%s", full, want)
	}

	big := snapshot(h, keyed("doc", el(tree.RoleDocument, "", el("heading", "Users"), usersTable(1000))))
	const budget = 500
	got = tree.Format(big, tree.Options{Budget: budget})
	ls := strings.Split(got, "\n")
	if ls[1] != meta.Line() || ls[2] != `table "Users" e1: 3 columns, 1,000 rows` {
		t.Errorf("the page map is not right under the header:\n%s", got)
	}
	if !strings.Contains(got, "more rows (snapshot e1)") {
		t.Errorf("the table was not elided:\n%s", got)
	}
	if n := tree.EstimateTokens(got); n > budget {
		t.Errorf("%d tokens, over the budget of %d:\n%s", n, budget, got)
	}
	if full := tree.Format(big, tree.Options{Full: true}); strings.Contains(full, "1,000 rows") {
		t.Error("a full snapshot cuts nothing, so it summarises nothing")
	}

	// Without metadata, and with a region that has no ref: no page map.
	bare := snapshot(tree.Header{Kind: "tab", Index: 1, Title: "T"}, bigList(300))
	got = tree.Format(bare, tree.Options{Budget: 600})
	if strings.Contains(got, "page:") || !strings.Contains(got, "\nlist e3: 300 items\n") {
		t.Errorf("want only the list's summary:\n%s", got)
	}
}

// TestFormatPageMapBounded keeps the summaries to a few lines, the largest
// regions, on a page of many cut regions and a tight budget.
func TestFormatPageMapBounded(t *testing.T) {
	doc := keyed("doc", el(tree.RoleDocument, ""))
	for i := range 8 {
		list := keyed(fmt.Sprint("list", i), el("list", fmt.Sprint("List ", i)))
		for j := range 20 + i*10 {
			list.Children = append(list.Children, el("listitem", "", txt(fmt.Sprintf("Item %d of list %d", j, i))))
		}
		doc.Children = append(doc.Children, list)
	}
	got := tree.Format(snapshot(tree.Header{Kind: "tab", Title: "Lists"}, doc), tree.Options{Budget: 300})
	var summaries []string
	for _, l := range strings.Split(got, "\n") {
		if strings.HasPrefix(l, "list ") && strings.Contains(l, ": ") {
			summaries = append(summaries, l)
		}
	}
	if len(summaries) != 4 || !strings.HasPrefix(summaries[0], `list "List 4"`) || !strings.HasPrefix(summaries[3], `list "List 7"`) {
		t.Errorf("want the 4 largest lists summarised in document order, got %q:\n%s", summaries, got)
	}
	if n := tree.EstimateTokens(got); n > 300 {
		t.Errorf("%d tokens, over the budget:\n%s", n, got)
	}
}

func TestPageMetaLine(t *testing.T) {
	var none *tree.PageMeta
	if none.Line() != "" || (&tree.PageMeta{Name: "no type"}).Line() != "" {
		t.Error("no type, no line")
	}
	if got, want := (&tree.PageMeta{Type: "website", Name: "a\nb"}).Line(), `page: website "a\nb"`; got != want {
		t.Errorf("the page's strings are quoted: got %s, want %s", got, want)
	}
	m := &tree.PageMeta{Type: "Article", Name: "Say \"hi\"", Author: "Ada", Date: "2026-11-02",
		Path: []string{"Home", "Blog"}}
	if got, want := m.Line(), `page: Article "Say \"hi\"" · by "Ada" · 2026-11-02 · path "Home › Blog"`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	m.Strings(strings.ToUpper)
	if m.Name != "SAY \"HI\"" || m.Path[1] != "BLOG" {
		t.Errorf("Strings did not map every string: %+v", m)
	}
}
