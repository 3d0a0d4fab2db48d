package tree_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/internal/goldentest"
	"github.com/canopy-dev/canopy/tree"
)

// one formats a snapshot whose root holds the single node n and returns n's
// line.
func one(t *testing.T, n *tree.Node, opt tree.Options) string {
	t.Helper()
	s := &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "T"}, Root: el(tree.RoleDocument, "", n)}
	out := tree.Format(s, opt)
	ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(ls) != 2 {
		t.Fatalf("Format printed %d lines, want header and one node:\n%s", len(ls), out)
	}
	return ls[1]
}

func TestFormatLine(t *testing.T) {
	long := strings.Repeat("abcdefghij", 15) // 150 runes
	tests := []struct {
		name string
		n    *tree.Node
		want string
	}{
		{"button", &tree.Node{Role: "button", Name: "OK", Ref: "e1"}, `button "OK" e1`},
		{"no name", &tree.Node{Role: "textbox", Ref: "e4"}, `textbox e4`},
		{"no ref", &tree.Node{Role: "img", Name: "Logo"}, `img "Logo"`},
		{"heading level", &tree.Node{Role: "heading", Name: "Title", Level: 2}, `heading "Title" h2`},
		{"ref then level then states", &tree.Node{Role: "heading", Name: "T", Ref: "e3", Level: 1, States: tree.Focused},
			`heading "T" e3 h1 focused`},
		{"level only on headings", &tree.Node{Role: "treeitem", Name: "Docs", Ref: "e2", Level: 3}, `treeitem "Docs" e2`},
		{"states in spec order", &tree.Node{Role: "checkbox", Name: "Agree", Ref: "e5",
			States: tree.Clickable | tree.Checked | tree.Disabled | tree.Focused}, `checkbox "Agree" e5 focused disabled checked clickable`},
		{"value last", &tree.Node{Role: "textbox", Name: "Email", Ref: "e2", Value: "ada@example.com",
			States: tree.Required | tree.Focused}, `textbox "Email" e2 focused required value="ada@example.com"`},
		{"slider value", &tree.Node{Role: "slider", Name: "Volume", Ref: "e9", Value: "40"}, `slider "Volume" e9 value="40"`},
		{"protected value hidden", &tree.Node{Role: "textbox", Name: "Password", Ref: "e3", Value: "hunter2",
			States: tree.Protected | tree.Required}, `textbox "Password" e3 required protected`},
		{"text bare", &tree.Node{Role: tree.RoleText, Name: "Use your work account."}, `"Use your work account."`},
		{"paragraph bare", &tree.Node{Role: "paragraph", Name: "Hello."}, `"Hello."`},
		{"text with a ref is not bare", &tree.Node{Role: tree.RoleText, Name: "terms", Ref: "e7", States: tree.Clickable},
			`text "terms" e7 clickable`},
		{"quotes escaped", &tree.Node{Role: "link", Name: `Say "hi" to C:\dir`, Ref: "e1"}, `link "Say \"hi\" to C:\\dir" e1`},
		{"newlines escaped", &tree.Node{Role: "textbox", Name: "Notes", Ref: "e1", Value: "one\ntwo \"3\"", States: tree.Multiline},
			`textbox "Notes" e1 multiline value="one\ntwo \"3\""`},
		{"text escaped", &tree.Node{Role: tree.RoleText, Name: `a "b" \ c`}, `"a \"b\" \\ c"`},
		{"long name cut", &tree.Node{Role: "link", Name: long, Ref: "e1"}, `link "` + long[:99] + `…" e1`},
		{"long text cut later", &tree.Node{Role: tree.RoleText, Name: strings.Repeat(long, 3)},
			`"` + strings.Repeat(long, 3)[:299] + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := one(t, tt.n, tree.Options{}); got != tt.want {
				t.Errorf("line:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCite(t *testing.T) {
	borrowed := &tree.Node{Role: "checkbox", Name: "Buy milk", Ref: "e3", Borrowed: true}
	long := strings.Repeat("abcdefghij ", 6)
	for _, tt := range []struct {
		n    *tree.Node
		want string
	}{
		// Known by the first text inside it, not by its controls.
		{el("listitem", "", borrowed, txt("Buy milk"), &tree.Node{Role: "button", Name: "Delete", Ref: "e4"}),
			`listitem "Buy milk"`},
		{el("listitem", "", &tree.Node{Role: "button", Name: "Delete", Ref: "e4"}, el("heading", "Apollo")),
			`listitem "Apollo"`},
		// Only controls: the first one's name.
		{el("listitem", "", &tree.Node{Role: "link", Name: "Apollo", Ref: "e4"}, &tree.Node{Role: "button", Name: "Delete", Ref: "e5"}),
			`listitem "Apollo"`},
		{el("article", "", txt(long)), `article "abcdefghij abcdefghij abcdefghij abcdef…"`},
		// A name, a ref or no content: its line.
		{el("listitem", "Bread"), `listitem "Bread"`},
		{&tree.Node{Role: "list", Ref: "e5", Children: []*tree.Node{txt("x")}}, `list e5`},
		{el("listitem", ""), `listitem`},
	} {
		if got := tree.Cite(tt.n); got != tt.want {
			t.Errorf("Cite = %s, want %s", got, tt.want)
		}
	}
}

func TestFormatProtectedValueNeverPrinted(t *testing.T) {
	pw := &tree.Node{Role: "textbox", Name: "Password", Ref: "e1", Value: "s3cr3t-VALUE", States: tree.Protected}
	root := el(tree.RoleDocument, "", el("form", "Login", pw))
	for _, opt := range []tree.Options{{}, {Full: true}, {Budget: 50}} {
		out := tree.Format(&tree.Snapshot{Root: root}, opt)
		if strings.Contains(out, "s3cr3t") || strings.Contains(out, "value=") {
			t.Errorf("Format(%+v) shows a protected value:\n%s", opt, out)
		}
	}
}

func TestFormatFullCutsNothing(t *testing.T) {
	long := strings.Repeat("word ", 80) // 400 runes
	n := &tree.Node{Role: "link", Name: long, Ref: "e1", Value: long}
	got := one(t, n, tree.Options{Full: true})
	want := `link "` + long + `" e1 value="` + long + `"`
	if got != want {
		t.Errorf("Full line:\n got %s\nwant %s", got, want)
	}
}

func TestFormatFullNeverElides(t *testing.T) {
	s := bigTable(1000)
	out := tree.Format(s, tree.Options{Full: true})
	if strings.Contains(out, "…") {
		t.Errorf("Full output has an elision mark: %q", firstMatch(out, "…"))
	}
	if got := strings.Count(out, "\n  row "); got != 1000 {
		t.Errorf("Full printed %d rows, want 1000", got)
	}
	if got := strings.Count(out, "\n"); got != 1+tree.Count(s.Root)-1 {
		t.Errorf("Full printed %d lines, want header + %d nodes", got, tree.Count(s.Root)-1)
	}
	// A tiny budget does not matter when Full is set.
	if small := tree.Format(s, tree.Options{Full: true, Budget: 10}); small != out {
		t.Errorf("Full output depends on Budget")
	}
}

func firstMatch(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

var elisionRE = regexp.MustCompile(`(?m)^\s*… (\d+) more rows \(snapshot (e\d+)\)$`)

func TestFormatElidesLongTable(t *testing.T) {
	s := bigTable(1000)
	table := s.Root.Children[1]
	if table.Ref == "" {
		t.Fatal("the table has no ref")
	}
	out := tree.Format(s, tree.Options{})
	if got := realTokens(t, out); got > tree.DefaultBudget {
		t.Errorf("%d real o200k tokens, over the default budget %d", got, tree.DefaultBudget)
	}
	m := elisionRE.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		t.Fatalf("want one `… N more rows (snapshot eX)` line, got %d:\n%s", len(m), out)
	}
	if m[0][2] != table.Ref {
		t.Errorf("elision points at %s, want the table's ref %s", m[0][2], table.Ref)
	}
	var hidden int
	fmt.Sscan(m[0][1], &hidden)
	printed := strings.Count(out, "\n  row ")
	if printed == 0 || hidden+printed != 1000 {
		t.Errorf("printed %d rows and elided %d, want a sum of 1000", printed, hidden)
	}
	if printed < 3 {
		t.Errorf("printed only %d rows of a table that fits many more", printed)
	}
	// Printed rows are the first ones, in order.
	if !strings.Contains(out, `row "1 | User 1 |`) || !strings.Contains(out, fmt.Sprintf(`row "%d | User %d |`, printed, printed)) {
		t.Errorf("the printed rows are not the first %d:\n%s", printed, out)
	}
}

func TestFormatElisionWithoutRef(t *testing.T) {
	var items []*tree.Node
	for i := range 40 {
		items = append(items, &tree.Node{Role: "listitem", Children: []*tree.Node{
			{Role: "link", Name: fmt.Sprintf("Result number %d with a fairly long title", i), Ref: fmt.Sprintf("e%d", i+1)}}})
	}
	s := &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "T"}, Root: el(tree.RoleDocument, "", el("list", "", items...))}
	out := tree.Format(s, tree.Options{Budget: 200})
	if !regexp.MustCompile(`(?m)^  … \d+ more list items \(snapshot --full\)$`).MatchString(out) {
		t.Errorf("no `… N more list items (snapshot --full)` line for a list without a ref:\n%s", out)
	}
}

func TestFormatShortRunNotElided(t *testing.T) {
	var rows []*tree.Node
	for i := range 4 {
		rows = append(rows, &tree.Node{Role: "row", Name: strings.Repeat(fmt.Sprint(i), 60), Ref: fmt.Sprintf("e%d", i+2)})
	}
	s := &tree.Snapshot{Root: el(tree.RoleDocument, "", &tree.Node{Role: "table", Ref: "e1", Children: rows})}
	out := tree.Format(s, tree.Options{Budget: 120})
	if strings.Contains(out, "more rows") {
		t.Errorf("a run of 4 rows was elided:\n%s", out)
	}
}

func TestHeaderLine(t *testing.T) {
	tests := []struct {
		h    tree.Header
		want string
	}{
		{tree.Header{Kind: "tab", Index: 1, Title: "Acme login", URL: "http://127.0.0.1:8080/login"},
			`tab 1 "Acme login" 127.0.0.1:8080/login`},
		{tree.Header{Kind: "tab", Index: 2, Title: "Example", URL: "https://example.com/"}, `tab 2 "Example" example.com`},
		{tree.Header{Kind: "tab", Index: 3, Title: "Q", URL: "https://example.com/a/b?q=1#top"}, `tab 3 "Q" example.com/a/b?q=1#top`},
		{tree.Header{Kind: "tab", Index: 1, Title: "Blank", URL: "about:blank"}, `tab 1 "Blank" about:blank`},
		{tree.Header{Kind: "tab", Index: 1, Title: `Say "hi"`, URL: "http://localhost:3000/",
			Notes: []string{"still loading after 10s", "2 tabs open"}},
			`tab 1 "Say \"hi\"" localhost:3000 (still loading after 10s) (2 tabs open)`},
		{tree.Header{Kind: "window", Title: "Save File"}, `window "Save File"`},
		{tree.Header{Kind: "desktop", Title: ""}, `desktop ""`},
	}
	for _, tt := range tests {
		if got := tt.h.Line(); got != tt.want {
			t.Errorf("Line() = %s, want %s", got, tt.want)
		}
		out := tree.Format(&tree.Snapshot{Header: tt.h}, tree.Options{})
		if out != tt.want+"\n" {
			t.Errorf("Format of an empty snapshot = %q, want the header line %q", out, tt.want+"\n")
		}
	}
}

func TestFormatIndentation(t *testing.T) {
	root := el(tree.RoleDocument, "",
		&tree.Node{Role: "dialog", Name: "Confirm", Ref: "e1", States: tree.Modal, Children: []*tree.Node{
			{Role: "paragraph", Name: "Delete 3 files?"},
			{Role: "group", Name: "Actions", Ref: "e2", Children: []*tree.Node{
				{Role: "button", Name: "Cancel", Ref: "e3"}, {Role: "button", Name: "Delete", Ref: "e4", States: tree.Focused}}}}})
	want := lines(`window "Files"`,
		`dialog "Confirm" e1 modal`,
		`  "Delete 3 files?"`,
		`  group "Actions" e2`,
		`    button "Cancel" e3`,
		`    button "Delete" e4 focused`)
	for _, opt := range []tree.Options{{}, {Full: true}} {
		if got := tree.Format(&tree.Snapshot{Header: tree.Header{Kind: "window", Title: "Files"}, Root: root}, opt); got != want {
			t.Errorf("Format(%+v):\n%s\nwant:\n%s", opt, got, want)
		}
	}
}

// TestFormatSummarisesCollapsedSelect: a collapsed combobox prints a count
// of its options, not each one; an expanded one, or a listbox, prints them.
func TestFormatSummarisesCollapsedSelect(t *testing.T) {
	options := func() []*tree.Node {
		return []*tree.Node{
			{Role: "option", Name: "North America", Ref: "e11", States: tree.Selected},
			{Role: "group", Name: "Elsewhere", Children: []*tree.Node{
				{Role: "option", Name: "Europe", Ref: "e12"}, {Role: "option", Name: "Mars", Ref: "e13", States: tree.Disabled}}},
		}
	}
	sel := func(role string, s tree.State) *tree.Node {
		return &tree.Node{Role: role, Name: "Region", Ref: "e10", Value: "North America", States: s, Children: options()}
	}
	for _, tc := range []struct {
		n    *tree.Node
		want string
	}{
		{sel("combobox", tree.Collapsed), lines(`window "x"`, `combobox "Region" e10 value="North America" (3 options)`)},
		{sel("combobox", tree.Expanded), lines(`window "x"`, `combobox "Region" e10 expanded value="North America"`,
			`  option "North America" e11 selected`, `  group "Elsewhere"`, `    option "Europe" e12`, `    option "Mars" e13 disabled`)},
		{sel("listbox", 0), lines(`window "x"`, `listbox "Region" e10 value="North America"`,
			`  option "North America" e11 selected`, `  group "Elsewhere"`, `    option "Europe" e12`, `    option "Mars" e13 disabled`)},
		// A combobox holding anything else (an editable one's textbox) prints it.
		{&tree.Node{Role: "combobox", Name: "City", Ref: "e1", States: tree.Collapsed, Children: []*tree.Node{
			{Role: "textbox", Name: "City", Ref: "e2"}}}, lines(`window "x"`, `combobox "City" e1 collapsed`, `  textbox "City" e2`)},
	} {
		for _, opt := range []tree.Options{{}, {Full: true}} {
			s := &tree.Snapshot{Header: tree.Header{Kind: "window", Title: "x"}, Root: el(tree.RoleDocument, "", tc.n)}
			if got := tree.Format(s, opt); got != tc.want {
				t.Errorf("Format(%+v):\n%s\nwant:\n%s", opt, got, tc.want)
			}
		}
		if tree.FindRef(tc.n, "e13") == nil && tc.n.Name == "Region" {
			t.Error("the options left the tree")
		}
	}
}

// TestFormatParagraphWithoutLine: an unnamed paragraph around text and
// inline controls prints its children in its place, without a line of its
// own.
func TestFormatParagraphWithoutLine(t *testing.T) {
	p := func() *tree.Node {
		return el("paragraph", "", txt("Read the"), &tree.Node{Role: "link", Name: "docs", Ref: "e2"}, txt("first."))
	}
	root := el(tree.RoleDocument, "", &tree.Node{Role: "main", Ref: "e1", Children: []*tree.Node{p(), {Role: "paragraph", Name: "Plain."}}})
	got := tree.Format(&tree.Snapshot{Header: tree.Header{Kind: "tab", Title: "x"}, Root: root}, tree.Options{})
	want := lines(`tab "x"`, `main e1`, `  "Read the"`, `  link "docs" e2`, `  "first."`, `  "Plain."`)
	if got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	if ls := tree.FormatChildren(el("", "", p()), tree.Options{}); strings.Join(ls, "|") != `"Read the"|link "docs" e2|"first."` {
		t.Errorf("FormatChildren = %q", ls)
	}
}

// golden compares got with testdata/name.golden, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	goldentest.Check(t, path, got)
}

func TestFormatGolden(t *testing.T) {
	for _, g := range goldenCases() {
		t.Run(g.name, func(t *testing.T) {
			golden(t, g.name, tree.Format(g.snap, g.opt))
		})
	}
}

type goldenCase struct {
	name string
	snap *tree.Snapshot
	opt  tree.Options
}

// snapshot cleans root, assigns refs from a fresh table and wraps it.
func snapshot(h tree.Header, root *tree.Node) *tree.Snapshot {
	tree.Clean(root)
	tree.NewRefs().Assign(root)
	return &tree.Snapshot{Header: h, Root: root}
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"login", snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Acme login", URL: "http://127.0.0.1:8080/login"}, loginPage()), tree.Options{}},
		{"frames", snapshot(tree.Header{Kind: "tab", Index: 2, Title: "Checkout", URL: "https://shop.example.com/checkout?step=2",
			Notes: []string{"still loading after 10s"}}, framePage()), tree.Options{}},
		{"biglist", snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Search", URL: "https://search.example.com/?q=canopy"}, bigList(300)),
			tree.Options{Budget: 600}},
	}
}

// loginPage is a raw login form as a browser source would build it.
func loginPage() *tree.Node {
	return keyed("doc", el(tree.RoleDocument, "Acme login",
		el("generic", "", keyed("h1", &tree.Node{Role: "heading", Name: "Acme", Level: 1, Children: []*tree.Node{txt("Acme")}})),
		keyed("form", el("form", "Sign in",
			el("generic", "", txt("Email")),
			keyed("email", &tree.Node{Role: "textbox", Name: "Email", Value: "ada@example.com", States: tree.Focused | tree.Required}),
			el("generic", "", txt("Password")),
			keyed("pw", &tree.Node{Role: "textbox", Name: "Password", Value: "hunter2", States: tree.Protected | tree.Required}),
			keyed("rem", &tree.Node{Role: "checkbox", Name: "Remember me", States: tree.Checked}), el("generic", "", txt("Remember me")),
			keyed("btn", el("button", "Sign in", txt("Sign in"))),
			keyed("fp", el("link", "Forgot password?", txt("Forgot password?"))), txt(" | "),
			keyed("ca", el("link", "Create account", txt("Create account"))),
		)),
		el("paragraph", "", txt("Use your "), el("strong", "", txt("work")), txt(" account.")),
		keyed("fb", &tree.Node{Role: "textbox", Name: "Feedback", Value: "Line one\nLine \"two\"", States: tree.Multiline}),
		keyed("x", &tree.Node{Role: "generic", States: tree.Clickable, Hint: "close"}),
	))
}

// framePage is a checkout page with a payment iframe that holds a nested
// 3-D Secure frame; frame content sits under its iframe node.
func framePage() *tree.Node {
	return keyed("doc", el(tree.RoleDocument, "Checkout",
		keyed("nav", el("navigation", "Main", keyed("n1", el("link", "Shop")), txt("·"), keyed("n2", el("link", "Cart")))),
		keyed("main", el("main", "",
			&tree.Node{Role: "heading", Name: "Checkout", Level: 1, Children: []*tree.Node{txt("Checkout")}},
			keyed("sum", el("region", "Order summary", keyed("items", el("list", "",
				el("listitem", "", txt("Widget × 2 — $20")), el("listitem", "", txt("Shipping — free")))))),
			keyed("f1", el(tree.RoleFrame, "Payment",
				&tree.Node{Role: "heading", Name: "Pay with card", Level: 2},
				el("generic", "", txt("Card number")), keyed("cc", el("textbox", "Card number")),
				keyed("mm", &tree.Node{Role: "combobox", Name: "Expiry month", Value: "12", States: tree.Collapsed}),
				keyed("f2", el(tree.RoleFrame, "3-D Secure",
					keyed("dlg", &tree.Node{Role: "dialog", Name: "Verify", States: tree.Modal, Children: []*tree.Node{
						el("paragraph", "", txt("Enter the code we sent to "), el("code", "", txt("•••• 42")), txt(" by SMS")),
						keyed("code", &tree.Node{Role: "textbox", Name: "Code", States: tree.Required | tree.Invalid}),
						keyed("v", el("button", "Verify", txt("Verify")))}}))),
				keyed("pay", &tree.Node{Role: "button", Name: "Pay $20", States: tree.Disabled}))),
			el("paragraph", "", txt("Need help? "), keyed("chat", withState(tree.Clickable, el("generic", "", txt("Chat with us"))))),
			keyed("cat", el("tree", "Categories",
				keyed("t1", &tree.Node{Role: "treeitem", Name: "Books", States: tree.Expanded, Children: []*tree.Node{
					el("group", "", keyed("t2", &tree.Node{Role: "treeitem", Name: "Fiction", States: tree.Collapsed}))}}))))),
		keyed("foot", el("contentinfo", "", txt("© 2026 Acme"))),
	))
}

// bigList is a search results page with n similar list items.
func bigList(n int) *tree.Node {
	list := keyed("results", el("list", ""))
	for i := 1; i <= n; i++ {
		list.Children = append(list.Children, el("listitem", "",
			keyed(fmt.Sprintf("r%d", i), el("link", fmt.Sprintf("Result %d: canopy docs page", i))),
			txt(fmt.Sprintf(" — example.com/docs/%d", i))))
	}
	return keyed("doc", el(tree.RoleDocument, "Search",
		keyed("s", el("search", "", keyed("q", &tree.Node{Role: "searchbox", Name: "Search", Value: "canopy"}))),
		&tree.Node{Role: "heading", Name: fmt.Sprintf("%d results", n), Level: 2}, list))
}

// TestSoleMainNotPrinted: a main landmark that holds the whole page gets no
// ref and is printed as its content; a main beside other content keeps its
// line and ref.
func TestSoleMainNotPrinted(t *testing.T) {
	page := func(extra ...*tree.Node) *tree.Node {
		main := &tree.Node{Role: "main", Key: "m", Children: []*tree.Node{
			{Role: "heading", Name: "Sign in", Key: "h", Level: 1},
			{Role: "button", Name: "Go", Key: "b"},
		}}
		return &tree.Node{Role: tree.RoleDocument, Name: "x", Key: "doc", Children: append([]*tree.Node{main}, extra...)}
	}
	format := func(root *tree.Node) string {
		tree.NewRefs().Assign(root)
		return tree.Format(&tree.Snapshot{Header: tree.Header{Kind: "tab", Title: "x"}, Root: root}, tree.Options{})
	}
	if got, want := format(page()), lines(`tab "x"`, `heading "Sign in" h1`, `button "Go" e1`); got != want {
		t.Errorf("sole main:\n%s\nwant:\n%s", got, want)
	}
	nav := &tree.Node{Role: "navigation", Name: "Site", Key: "n"}
	if got, want := format(page(nav)), lines(`tab "x"`, `main e1`, `  heading "Sign in" h1`, `  button "Go" e2`, `navigation "Site" e3`); got != want {
		t.Errorf("main beside a navigation:\n%s\nwant:\n%s", got, want)
	}
}
