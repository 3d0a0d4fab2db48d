package browser

import (
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// These tests hold common steps to their token targets (issue 16), in real
// o200k tokens of the reply as an agent gets it: the click that opens a
// modal, adding a list item, and a login page's whole snapshot.

// o200k loads the o200k tokenizer once per test.
func o200k(t *testing.T) *tokens.Counter {
	t.Helper()
	c, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// wantTokens fails when text takes more than limit o200k tokens.
func wantTokens(t *testing.T, c *tokens.Counter, what, text string, limit int) {
	t.Helper()
	n := c.Count(text)
	t.Logf("%s: %d o200k tokens (limit %d)", what, n, limit)
	if n > limit {
		t.Errorf("%s: %d o200k tokens, want ≤ %d:\n%s", what, n, limit, text)
	}
}

// TestTokensOpenModal: the dialog is printed once, under its outcome line,
// without the heading that repeats its name; ≤ 60 tokens.
func TestTokensOpenModal(t *testing.T) {
	c := o200k(t)
	e := newAct(t, "/dashboard.html")
	r := e.must(`click role:listitem text:Borealis >> role:button name:Delete`)
	wantTokens(t, c, "opening the modal", r.Text, 60)
	if strings.Count(r.Text, "Confirm delete") != 1 {
		t.Errorf("the dialog's name is said more than once:\n%s", r.Text)
	}
	wantContains(t, "reply", r.Text, "opened dialog \"Confirm delete\" e8\n  ", `  button "Delete" e9 focused`)
	wantNot(t, "reply", r.Text, "+ ", "- ")
}

// TestTokensAddListItem: typing an item and clicking "Add item" answers with
// the cleared box and the new item, and no focus line for the button just
// clicked, in one call or two, and through Enter; ≤ 30 tokens.
func TestTokensAddListItem(t *testing.T) {
	c := o200k(t)
	e := newAct(t, "/list.html")
	e.must(`type role:textbox name:"New item" "Milk"`)
	r := e.must(`click role:button name:"Add item"`)
	if n := js[int](t, e.b, `document.querySelectorAll('#items li').length`); n != 3 {
		t.Fatalf("%d items, want 3", n)
	}
	goldenAct(t, "add-list-item", r.Text)
	wantTokens(t, c, "adding a list item", r.Text, 30)
	wantNot(t, "reply", r.Text, "focus")

	r = e.must(`type role:textbox name:"New item" "Eggs"; click role:button name:"Add item"`)
	goldenAct(t, "add-list-item-batch", r.Text)
	wantTokens(t, c, "adding a list item in a batch", r.Text, 30)
	wantNot(t, "batch reply", r.Text, "focus")

	r = e.must(`type role:textbox name:"New item" "Tea"; press Enter`)
	wantTokens(t, c, "adding a list item with Enter", r.Text, 30)
	wantNot(t, "Enter reply", r.Text, "focus")
	if n := js[int](t, e.b, `document.querySelectorAll('#items li').length`); n != 5 {
		t.Errorf("%d items, want 5", n)
	}
}

// TestTokensLoginSnapshot: the login pages' whole snapshots stay within
// their budget: 0.6 × the smallest complete peer's, as bench/peers measured
// it (chrome-devtools-mcp: 196 and 153 tokens; see docs/benchmarks.md).
func TestTokensLoginSnapshot(t *testing.T) {
	c := o200k(t)
	for path, peer := range map[string]int{"/login.html": 196, "/app-login.html": 153} {
		b := newBrowser(t)
		snap, _ := load(t, b, path)
		text := tree.Format(snap, tree.Options{Full: true})
		// The port's digits vary from run to run; count a fixed one.
		text = strings.Replace(text, strings.TrimPrefix(testSite.URL(""), "http://"), "127.0.0.1:8080", 1)
		wantTokens(t, c, path+" full snapshot", text, peer*6/10)
		if m, ok := site.PageMarkers()[path]; ok {
			for _, v := range m.Visible {
				if !strings.Contains(text, v) {
					t.Errorf("%s: marker %q missing:\n%s", path, v, text)
				}
			}
		}
	}
}
