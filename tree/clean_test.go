package tree_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

// el builds a node with a role, a name and children.
func el(role, name string, kids ...*tree.Node) *tree.Node {
	return &tree.Node{Role: role, Name: name, Children: kids}
}

// block marks n as laid out as a block and returns n.
func block(n *tree.Node) *tree.Node { n.Block = true; return n }

// txt builds a static text node.
func txt(s string) *tree.Node { return &tree.Node{Role: tree.RoleText, Name: s} }

// keyed sets n's source key and returns n.
func keyed(key string, n *tree.Node) *tree.Node { n.Key = key; return n }

// withState adds states to n and returns n.
func withState(s tree.State, n *tree.Node) *tree.Node { n.States |= s; return n }

// dump renders the children of n, one per line, independently of Format, so
// that Clean is tested on the structure it leaves behind:
//
//	role "name" =value {states}
func dump(n *tree.Node) string {
	var b strings.Builder
	var walk func(n *tree.Node, depth int)
	walk = func(n *tree.Node, depth int) {
		for _, c := range n.Children {
			b.WriteString(strings.Repeat("  ", depth))
			b.WriteString(c.Role)
			if c.Name != "" {
				b.WriteString(" " + strconv.Quote(c.Name))
			}
			if c.Value != "" {
				b.WriteString(" =" + strconv.Quote(c.Value))
			}
			if c.States != 0 {
				b.WriteString(" {" + c.States.String() + "}")
			}
			b.WriteByte('\n')
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestClean(t *testing.T) {
	tests := []struct {
		name string
		in   []*tree.Node // children of a document root
		want string
	}{
		{
			name: "unnamed generic wrappers flattened",
			in: []*tree.Node{el("generic", "", el("none", "", el("presentation", "",
				el("generic", "", el("button", "OK")), el("link", "Help"))))},
			want: lines(`button "OK"`, `link "Help"`),
		},
		{
			name: "named generic is not a wrapper",
			in:   []*tree.Node{el("generic", "Card", el("button", "OK"))},
			want: lines(`generic "Card"`, `  button "OK"`),
		},
		{
			name: "generic named like its one control gives way to it",
			in: []*tree.Node{
				el("generic", "Copy path", el("button", "Copy path")),
				withState(tree.Clickable, el("generic", "Copy link", el("image", ""), el("link", "copy link"))),
				el("generic", "Card", el("button", "Card"), el("button", "Delete")),  // two controls
				withState(tree.Focused, el("generic", "Menu", el("button", "Menu"))), // a state of its own
			},
			want: lines(`button "Copy path"`, `link "copy link"`,
				`generic "Card"`, `  button "Card"`, `  button "Delete"`,
				`generic "Menu" {focused}`, `  button "Menu"`),
		},
		{
			name: "invisible characters dropped from names and text",
			in:   []*tree.Node{el("button", "get \u200b/pets\u200b/{id}"), txt("co\u00adop\u2060er\ufeffate")},
			want: lines(`button "get /pets/{id}"`, `text "cooperate"`),
		},
		{
			name: "adjacent text merged with its own spacing",
			in:   []*tree.Node{txt("Click "), txt("here"), el("button", "Go"), txt("Hello"), txt("world")},
			want: lines(`text "Click here"`, `button "Go"`, `text "Helloworld"`),
		},
		{
			name: "text merged across a flattened wrapper",
			in:   []*tree.Node{txt("Click "), el("generic", "", txt("here")), txt(" to continue.")},
			want: lines(`text "Click here to continue."`),
		},
		{
			name: "text whitespace collapsed after merging",
			in:   []*tree.Node{txt("  Lots \n of\t"), txt("   space  ")},
			want: lines(`text "Lots of space"`),
		},
		{
			name: "paragraph of only text takes the text as its name",
			in:   []*tree.Node{el("paragraph", "", txt("Use your "), txt("work account."))},
			want: lines(`paragraph "Use your work account."`),
		},
		{
			name: "inline markup in a paragraph reads as its text",
			in:   []*tree.Node{el("paragraph", "", txt("Use your "), el("strong", "", txt("work")), txt(" account."))},
			want: lines(`paragraph "Use your work account."`),
		},
		{
			name: "inline clickable stays its own node inside a paragraph",
			in: []*tree.Node{el("paragraph", "", txt("Read the "),
				withState(tree.Clickable, el("generic", "", txt("terms"))), txt(" first."))},
			want: lines(`paragraph`, `  text "Read the"`, `  generic "terms" {clickable}`, `  text "first."`),
		},
		{
			name: "text repeating the parent's name dropped",
			in: []*tree.Node{
				el("button", "Sign in", txt("Sign in")),
				el("link", "Forgot password?", txt("Forgot "), txt("password?")),
				el("heading", "Welcome back", txt("Welcome back")),
			},
			want: lines(`button "Sign in"`, `link "Forgot password?"`, `heading "Welcome back"`),
		},
		{
			name: "text that says more than the parent's name kept",
			in:   []*tree.Node{el("button", "Delete", txt("Delete this file forever"))},
			want: lines(`button "Delete"`, `  text "Delete this file forever"`),
		},
		{
			name: "a page's title is not its text",
			in:   []*tree.Node{el(tree.RoleFrame, "Pay", txt("Pay"))},
			want: lines(`iframe "Pay"`, `  text "Pay"`),
		},
		{
			name: "label text beside a textbox of the same name dropped",
			in: []*tree.Node{el("form", "Login",
				el("generic", "", txt("Email")), el("textbox", "Email"),
				el("generic", "", txt("Password:")), withState(tree.Protected, el("textbox", "Password")))},
			want: lines(`form "Login"`, `  textbox "Email"`, `  textbox "Password" {protected}`),
		},
		{
			name: "separators dropped",
			in: []*tree.Node{el("navigation", "Breadcrumb",
				el("link", "Home"), txt(" | "), el("link", "Docs"), txt("»"), el("link", "API"), txt("·"))},
			want: lines(`navigation "Breadcrumb"`, `  link "Home"`, `  link "Docs"`, `  link "API"`),
		},
		{
			name: "short word is not a separator",
			in:   []*tree.Node{el("link", "Home"), txt("or"), el("link", "Back")},
			want: lines(`link "Home"`, `text "or"`, `link "Back"`),
		},
		{
			name: "unnamed clickable generic named from its text",
			in:   []*tree.Node{withState(tree.Clickable, el("generic", "", el("generic", "", txt("Open ")), txt(" menu")))},
			want: lines(`generic "Open menu" {clickable}`),
		},
		{
			name: "unnamed clickable generic without text named from its hint",
			in: []*tree.Node{
				{Role: "generic", States: tree.Clickable, Hint: "  close   dialog "},
				{Role: "generic", States: tree.Clickable, Hint: "avatar", Children: []*tree.Node{el("img", "Ada Lovelace")}},
			},
			want: lines(`generic "close dialog" {clickable}`, `generic "avatar" {clickable}`, `  img "Ada Lovelace"`),
		},
		{
			name: "clickable with a name ignores its hint",
			in:   []*tree.Node{{Role: "generic", Name: "Settings", States: tree.Clickable, Hint: "gear"}},
			want: lines(`generic "Settings" {clickable}`),
		},
		{
			name: "unnamed rows named from their cells, plain cells dropped, links kept",
			in: []*tree.Node{el("table", "Users",
				el("row", "", el("columnheader", "ID"), el("columnheader", "Name"), el("columnheader", "Action")),
				el("row", "", el("cell", "", txt("1")), el("cell", "", txt("Ada")), el("cell", "", el("link", "Edit"))),
				el("row", "", el("cell", "2"), el("cell", "", txt("Grace "), txt("Hopper")), el("cell", "", el("link", "Edit"))))},
			want: lines(
				`table "Users"`,
				`  row "ID | Name | Action"`,
				`  row "1 | Ada | Edit"`,
				`    link "Edit"`,
				`  row "2 | Grace Hopper | Edit"`,
				`    link "Edit"`),
		},
		{
			name: "a named row keeps its name",
			in:   []*tree.Node{el("row", "Ada's row", el("cell", "Ada"), el("cell", "", el("checkbox", "Select")))},
			want: lines(`row "Ada's row"`, `  checkbox "Select"`),
		},
		{
			name: "empty unnamed non-controls dropped, empty controls kept",
			in: []*tree.Node{
				el("img", ""), el("paragraph", ""), el("heading", ""), el("listitem", ""), el("region", ""),
				el("textbox", ""), el("button", ""), el("checkbox", ""), el(tree.RoleFrame, ""),
				{Role: "generic", Value: "42"}, {Role: "img", States: tree.Busy},
			},
			want: lines(`textbox`, `button`, `checkbox`, `iframe`, `generic ="42"`, `img {busy}`),
		},
		{
			name: "unnamed wrapper around a single control passes it through",
			in:   []*tree.Node{el("list", "", el("listitem", "", el("link", "One")), el("listitem", "", txt("Two")))},
			want: lines(`list`, `  link "One"`, `  listitem "Two"`),
		},
		{
			name: "text of sibling blocks stays apart, inline text merges",
			in: []*tree.Node{el("listitem", "", block(el("generic", "",
				block(el("generic", "", txt("Helena"))),
				block(el("generic", "", txt("Turpis "), el("generic", "", txt("gravida")))),
			)))},
			want: lines(`listitem`, `  text "Helena"`, `  text "Turpis gravida"`),
		},
		{
			name: "a block's text does not merge with the text beside it",
			in: []*tree.Node{el("generic", "", txt("Price:"), block(el("generic", "", txt("89.00"))), txt("EUR "),
				el("generic", "", txt("incl. "), el("generic", "", txt("VAT"))))},
			want: lines(`text "Price:"`, `text "89.00"`, `text "EUR incl. VAT"`),
		},
		{
			name: "paragraphs keep their text apart",
			in: []*tree.Node{block(el("paragraph", "", txt("Read the "), el("link", "docs"), txt(" first."))),
				block(el("paragraph", "", txt("Then "), el("link", "ask")))},
			want: lines(`paragraph`, `  text "Read the"`, `  link "docs"`, `  text "first."`,
				`paragraph`, `  text "Then"`, `  link "ask"`),
		},
		{
			name: "text and a heading that repeat an ancestor's name are dropped",
			in: []*tree.Node{el("dialog", "Confirm delete",
				el("heading", "Confirm delete", txt("Confirm delete")),
				el("generic", "", el("paragraph", "", txt("Delete project?")), txt("Confirm delete")),
				el("button", "Delete"))},
			want: lines(`dialog "Confirm delete"`, `  paragraph "Delete project?"`, `  button "Delete"`),
		},
		{
			name: "only a whole repeat of an ancestor's name is dropped",
			in: []*tree.Node{el("dialog", "Confirm delete",
				el("generic", "", el("heading", "Delete", txt("Delete")), txt("Sure?")))},
			want: lines(`dialog "Confirm delete"`, `  heading "Delete"`, `  text "Sure?"`),
		},
		{
			name: "names of controls whitespace-collapsed",
			in:   []*tree.Node{el("button", "  Save\n  draft "), {Role: "textbox", Name: "Notes", Value: "a  b"}},
			want: lines(`button "Save draft"`, `textbox "Notes" ="a  b"`),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := el(tree.RoleDocument, "Page", tt.in...)
			if got := tree.Clean(root); got != root {
				t.Fatalf("Clean returned %p, want its argument %p", got, root)
			}
			if got := dump(root); got != tt.want {
				t.Errorf("Clean:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestCleanNil(t *testing.T) {
	if got := tree.Clean(nil); got != nil {
		t.Errorf("Clean(nil) = %v, want nil", got)
	}
}

func TestCleanMergedTextKeepsFirstKey(t *testing.T) {
	root := el(tree.RoleDocument, "", keyed("t1", txt("Hello ")), keyed("t2", txt("world")))
	tree.Clean(root)
	if len(root.Children) != 1 {
		t.Fatalf("got %d children, want 1 merged text:\n%s", len(root.Children), dump(root))
	}
	if got := root.Children[0].Key; got != "t1" {
		t.Errorf("merged text key = %q, want the first node's key %q", got, "t1")
	}
}

// messyPage is a raw tree with a bit of every kind of noise Clean removes.
func messyPage() *tree.Node {
	return keyed("doc", el(tree.RoleDocument, "Acme",
		el("generic", "", el("generic", "",
			keyed("nav", el("navigation", "Main",
				keyed("l1", el("link", "Home", txt("Home"))), txt(" | "),
				keyed("l2", el("link", "Pricing", txt("Pricing"))))))),
		keyed("main", el("main", "",
			keyed("h1", &tree.Node{Role: "heading", Name: "Sign in", Level: 1, Children: []*tree.Node{txt("Sign in")}}),
			el("paragraph", "", txt("Use your "), el("emphasis", "", txt("work")), txt(" account.")),
			el("paragraph", "", txt("By continuing you accept the "),
				keyed("c1", withState(tree.Clickable, el("generic", "", txt("terms")))), txt(".")),
			el("generic", "", txt("Email")), keyed("tb1", el("textbox", "Email")),
			keyed("ic", &tree.Node{Role: "generic", States: tree.Clickable, Hint: "show password"}),
			keyed("b1", el("button", "Sign in", el("generic", "", txt("Sign "), txt("in")))),
			keyed("tbl", el("table", "Sessions",
				el("row", "", el("columnheader", "", txt("Device")), el("columnheader", "", txt("When"))),
				keyed("r1", el("row", "", el("cell", "", txt("Laptop")), el("cell", "", keyed("rv", el("link", "Revoke"))))))),
			el("list", "", el("listitem", "", txt("One")), el("listitem", ""), el("listitem", "", el("generic", "", txt("Two")))),
			el("img", ""),
		)),
	))
}

func TestCleanIdempotent(t *testing.T) {
	for name, build := range map[string]func() *tree.Node{
		"messy page": messyPage,
		"login form": loginPage,
		"frame page": framePage,
	} {
		t.Run(name, func(t *testing.T) {
			root := tree.Clean(build())
			s := &tree.Snapshot{Header: tree.Header{Kind: "tab", Index: 1, Title: "x"}, Root: root}
			once := tree.Format(s, tree.Options{Full: true})
			onceDump := dump(root)
			tree.Clean(root)
			if twice := tree.Format(s, tree.Options{Full: true}); twice != once {
				t.Errorf("second Clean changed the text:\nonce:\n%s\ntwice:\n%s", once, twice)
			}
			if twice := dump(root); twice != onceDump {
				t.Errorf("second Clean changed the tree:\nonce:\n%s\ntwice:\n%s", onceDump, twice)
			}
		})
	}
}

func TestCleanMessyPage(t *testing.T) {
	root := tree.Clean(messyPage())
	want := lines(
		`navigation "Main"`,
		`  link "Home"`,
		`  link "Pricing"`,
		`main`,
		`  heading "Sign in"`,
		`  paragraph "Use your work account."`,
		`  paragraph`,
		`    text "By continuing you accept the"`,
		`    generic "terms" {clickable}`, // the lone "." reads as a separator
		`  textbox "Email"`,
		`  generic "show password" {clickable}`,
		`  button "Sign in"`,
		`  table "Sessions"`,
		`    row "Device | When"`,
		`    row "Laptop | Revoke"`,
		`      link "Revoke"`,
		`  list`,
		`    listitem "One"`,
		`    listitem "Two"`,
	)
	if got := dump(root); got != want {
		t.Errorf("Clean:\n%s\nwant:\n%s", got, want)
	}
}

func TestCleanNamesTogglesByTheirText(t *testing.T) {
	root := el(tree.RoleDocument, "",
		el("list", "",
			el("listitem", "",
				el("generic", "", el("checkbox", ""), el("label", "", txt("Buy milk")), el("button", "Delete"))),
			el("listitem", "", el("checkbox", ""), txt("Walk the dog")),
			el("listitem", "", txt("Lights"), el("switch", "")),
			el("listitem", "", el("checkbox", "Named"), txt("other words"))),
		el("form", "", el("checkbox", ""), txt("Not its label: a form is no item")))
	tree.Clean(root)
	// The text stays beside its control: the item keeps its line (a list
	// item around one control would fold into it) and its other children.
	want := lines(
		`list`,
		`  listitem`,
		`    checkbox "Buy milk"`,
		`    text "Buy milk"`,
		`    button "Delete"`,
		`  listitem`,
		`    checkbox "Walk the dog"`,
		`    text "Walk the dog"`,
		`  listitem`,
		`    text "Lights"`,
		`    switch "Lights"`,
		`  listitem`,
		`    checkbox "Named"`,
		`    text "other words"`,
		`form`,
		`  checkbox`,
		`  text "Not its label: a form is no item"`)
	if got := dump(root); got != want {
		t.Errorf("Clean:\n%s\nwant:\n%s", got, want)
	}
	if c := root.Children[0].Children[0].Children[0]; !c.Borrowed {
		t.Errorf("%s: the name is not marked borrowed", tree.Line(c))
	}
	// Idempotent: a second Clean does not drop the text as a repeat.
	before := dump(root)
	if tree.Clean(root); dump(root) != before {
		t.Errorf("second Clean changed the tree:\n%s\nwant:\n%s", dump(root), before)
	}
}
