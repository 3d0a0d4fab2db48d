package browser

import (
	"strings"
	"testing"
)

// TestAnyNodeTarget clicks, by selector, nodes a snapshot prints without a
// ref of their own — a heading, a list item, a word inside a paragraph —
// and rows whose click handler is delegated to their list: each click lands
// on the element that holds the node, as the page's own listener shows.
func TestAnyNodeTarget(t *testing.T) {
	e := newAct(t, "/inbox.html")
	snap := e.must("snapshot").Text
	wantContains(t, "snapshot", snap, `"Helena"`, `"Turpis gravida"`)
	wantNot(t, "snapshot", snap, `HelenaTurpis`)
	for _, tt := range []struct{ step, status string }{
		{`click role:heading name:Folders`, "clicked h2 Folders"},
		{`click role:listitem text:Sent`, "clicked li Sent"},
		{`click text:Spam`, "clicked li Spam"},
		// Words of a paragraph: the paragraph holds them.
		{`click text:"keyboard shortcuts"`, "clicked p Read more about keyboard shortcuts in the help."},
		// Delegated: the list listens, the row is found from the target.
		{`click text:Marcus`, "opened message 2"},
		{`click text:"Quarterly numbers"`, "opened message 3"},
	} {
		r := e.must(tt.step)
		if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != tt.status {
			t.Errorf("%s: the page saw %q, want %q; reply:\n%s", tt.step, got, tt.status, r.Text)
		}
		if !strings.Contains(r.Text, tt.status) {
			t.Errorf("%s: the reply does not show the change:\n%s", tt.step, r.Text)
		}
	}
}

// TestDelegatedRows checks that rows served by a listener on their list
// are clickable items with refs, named by their text.
func TestDelegatedRows(t *testing.T) {
	e := newAct(t, "/inbox.html")
	snap := e.must("snapshot").Text
	t.Logf("snapshot:\n%s", snap)
	for _, want := range []string{"Helena", "Marcus", "Ines"} {
		line := lineWith(snap, want)
		if !strings.Contains(line, "clickable") || !strings.Contains(line, " e") {
			t.Errorf("the row of %s is not a clickable node with a ref: %q\n%s", want, line, snap)
		}
	}
	// Folders have no listener of their own nor a list's: plain items.
	if line := lineWith(snap, "Drafts"); strings.Contains(line, "clickable") {
		t.Errorf("a folder without any listener of its own is clickable: %q", line)
	}
}

// lineWith returns the first line of text that contains s.
func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestStaleRefRefused navigates away and uses a ref of the old page: it is
// refused with where it was, never resolved on the new page, and the new
// page's refs do not reuse the numbers the agent saw.
func TestStaleRefRefused(t *testing.T) {
	e := newAct(t, "/login.html")
	first := e.must("snapshot").Text
	if !strings.Contains(first, `button "Sign in" e5`) {
		t.Fatalf("login page refs changed; snapshot:\n%s", first)
	}
	e.must("navigate " + e.b.curTabURL()[:strings.Index(e.b.curTabURL(), "/login.html")] + "/inbox.html")
	msg := e.fails("click e5")
	if !strings.Contains(msg, "e5 was on 127.0.0.1:") || !strings.Contains(msg, "/login.html, which was replaced: take a new snapshot") {
		t.Errorf("old ref: %s", msg)
	}
	second := e.must("snapshot").Text
	for _, ref := range []string{"e1 ", "e5 ", "e6\n"} {
		if strings.Contains(second, ref) {
			t.Errorf("the new page reuses %s, a ref the agent saw on the old one:\n%s", strings.TrimSpace(ref), second)
		}
	}
}

// TestFindMintsAndTellsApart lists nodes printed without refs (they get
// one, usable at once) and look-alikes with the row they sit in.
func TestFindMintsAndTellsApart(t *testing.T) {
	e := newAct(t, "/inbox.html")
	found := e.must("find text:Sent").Text
	ref := strings.Fields(found)
	if len(ref) < 3 || !strings.HasPrefix(ref[2], "e") {
		t.Fatalf("find did not mint a ref: %q", found)
	}
	e.must("click " + ref[2])
	if got := js[string](t, e.b, `document.getElementById('status').textContent`); got != "clicked li Sent" {
		t.Errorf("clicking the minted %s: the page saw %q", ref[2], got)
	}

	tbl := newAct(t, "/table.html")
	msg := tbl.fails("click role:link name:Edit")
	for _, want := range []string{
		`elements match role:link name:Edit (add nth: or use a ref): link "Edit" e`,
		` in row "1 | User 0001 | user0001@example.test…", link "Edit" e`,
		` in row "2 | User 0002`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("ambiguity error lacks %q:\n%s", want, msg)
		}
	}
}
