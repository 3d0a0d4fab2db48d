package diff_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/canopy-dev/canopy/diff"
	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// TestRealTokens holds the small diffs to their limits in real o200k tokens,
// not only by the estimate.
func TestRealTokens(t *testing.T) {
	tc, err := tokens.New()
	if err != nil {
		t.Skip(err)
	}
	limits := map[string]int{"list_item_added": 30, "table_row_edited": 60}
	for _, c := range cases() {
		lim, ok := limits[c.name]
		if !ok {
			continue
		}
		got := c.run().Format(c.opt)
		n := tc.Count(got)
		t.Logf("%s: %d o200k tokens (estimate %d), limit %d", c.name, n, tree.EstimateTokens(got), lim)
		if n > lim {
			t.Errorf("%s: %d o200k tokens, want ≤ %d:\n%s", c.name, n, lim, got)
		}
	}
}

func caseNamed(t *testing.T, name string) diffCase {
	t.Helper()
	for _, c := range cases() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no case %s", name)
	return diffCase{}
}

func TestPrependGoesFirst(t *testing.T) {
	d := caseNamed(t, "dialog_opened").run()
	d.Prepend("navigated /login → /dashboard")
	got := d.Format(diff.Options{})
	if !strings.HasPrefix(got, "navigated /login → /dashboard\nopened dialog \"Confirm delete\" e40\n") {
		t.Errorf("source outcome not first:\n%s", got)
	}
	var empty diff.Diff
	empty.Prepend("download finished /tmp/a.pdf")
	if empty.Empty() || empty.Format(diff.Options{}) != "download finished /tmp/a.pdf\n" {
		t.Errorf("outcome-only diff: %q", empty.Format(diff.Options{}))
	}
}

func TestEmpty(t *testing.T) {
	d := diff.Compute(nil, nil)
	if !d.Empty() || d.Format(diff.Options{}) != "no change\n" {
		t.Errorf("nil snapshots: %+v", d)
	}
	p := loginPage()
	d = diff.Compute(snap(p), snap(p))
	if !d.Empty() {
		t.Errorf("same tree: %s", d.Format(diff.Options{}))
	}
}

func TestFromNothing(t *testing.T) {
	d := diff.Compute(nil, snap(loginPage()))
	got := d.Format(diff.Options{})
	for _, w := range []string{"+ banner e1\n", "+   link \"Home\" e2\n", "+ main e3\n", "+       checkbox \"Buy milk\" e20\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// An unnamed item inserted at the top of a list without refs is one added
// item, not every item's text changed (the alignment looks inside unnamed
// nodes).
func TestInsertIntoUnnamedItems(t *testing.T) {
	mk := func(names ...string) *tree.Node {
		l := el("list", "", "e5")
		for _, n := range names {
			l.Children = append(l.Children, el("listitem", "", "", text(n)))
		}
		return el(tree.RoleDocument, "", "", l)
	}
	d := diff.Compute(snap(mk("b", "c", "d")), snap(mk("a", "b", "c", "d")))
	want := "+ listitem (in e5)\n+   \"a\"\n"
	if got := d.Format(diff.Options{}); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// Long runs of unref'd nodes beyond the LCS cap still diff correctly when
// only one item changes.
func TestLongUnreffedRun(t *testing.T) {
	mk := func(edit int) *tree.Node {
		p := el("region", "Log", "e2")
		for i := range 3000 {
			s := "line " + strconv.Itoa(i)
			if i == edit {
				s = "changed"
			}
			p.Children = append(p.Children, el("paragraph", s, ""))
		}
		return el(tree.RoleDocument, "", "", p)
	}
	got := diff.Compute(snap(mk(-1)), snap(mk(1500))).Format(diff.Options{})
	if want := "~ \"line 1500\" → \"changed\" (in e2)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Insertion in the middle of a long run: one added line.
	b, a := mk(-1), mk(-1)
	r := a.Children[0]
	r.Children = append(r.Children[:1000:1000], append([]*tree.Node{el("paragraph", "new", "")}, r.Children[1000:]...)...)
	got = diff.Compute(snap(b), snap(a)).Format(diff.Options{})
	if want := "+ \"new\" (in e2)\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A node with a ref moved into a new container shows once, inside the added
// subtree, not also as a move.
func TestMovedIntoAdded(t *testing.T) {
	b := loginPage()
	a := clone(b)
	btn := remove(a, "e17")
	f := find(a, "e10")
	f.Children = append(f.Children, el("group", "Actions", "e30", btn))
	got := diff.Compute(snap(b), snap(a)).Format(diff.Options{})
	want := "+ group \"Actions\" e30\n+   button \"Sign in\" e17\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

// Removed nodes print where they were: after the previous sibling's subtree.
func TestRemovedOrder(t *testing.T) {
	b := loginPage()
	a := clone(b)
	remove(a, "e14")
	remove(a, "Use your work account.")
	find(a, "e17").Name = "Log in"
	got := diff.Compute(snap(b), snap(a)).Format(diff.Options{})
	want := "- \"Use your work account.\" (in e3)\n" +
		"- textbox \"Password\" e14 required protected\n" +
		"~ button e17: name \"Sign in\" → \"Log in\"\n"
	if got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func TestBudgetKeepsOutcomes(t *testing.T) {
	d := caseNamed(t, "over_budget").run()
	d.Prepend("navigated /a → /b")
	got := d.Format(diff.Options{Budget: 40})
	if !strings.HasPrefix(got, "navigated /a → /b\n") || !strings.HasSuffix(got, " more changes (snapshot to see the page)\n") {
		t.Errorf("got:\n%s", got)
	}
	if n := tree.EstimateTokens(got); n > 40 {
		t.Errorf("%d tokens over a budget of 40:\n%s", n, got)
	}
	for _, b := range []int{60, 150, 400, 2000} {
		if n := tree.EstimateTokens(d.Format(diff.Options{Budget: b})); n > b {
			t.Errorf("budget %d: %d tokens", b, n)
		}
	}
}

// A big added subtree is elided like a snapshot and leaves room for the
// one-line changes after it.
func TestBigAddedSubtreeLeavesRoom(t *testing.T) {
	b := table(0)
	b.Children = append(b.Children, with(el("checkbox", "Agree", "e9000"), func(n *tree.Node) {}))
	a := clone(b)
	a.Children[1] = table(500).Children[1]
	find(a, "e9000").States = tree.Checked
	got := diff.Compute(snap(b), snap(a)).Format(diff.Options{Budget: 300})
	if !strings.Contains(got, "~ checkbox \"Agree\" e9000: not checked → checked\n") {
		t.Errorf("one-line change crowded out:\n%s", got)
	}
	if !strings.Contains(got, "more rows (snapshot e1)") {
		t.Errorf("rows not elided:\n%s", got)
	}
	if n := tree.EstimateTokens(got); n > 300 {
		t.Errorf("%d tokens over 300:\n%s", n, got)
	}
}

// FormatChildren prints what Format prints below the header, under the same
// budget.
func TestFormatChildrenMatchesFormat(t *testing.T) {
	for _, root := range []*tree.Node{loginPage(), table(200)} {
		s := snap(root)
		for _, opt := range []tree.Options{{Full: true}, {Budget: 300}, {Budget: 4000}} {
			want := strings.Split(strings.TrimSuffix(tree.Format(s, opt), "\n"), "\n")[1:]
			// A snapshot's page map (region summaries) is the snapshot's
			// own; what follows it is the tree both print.
			mapCost := 0
			for len(want) > 0 && isRegionSummary(root, want[0]) {
				mapCost += tree.EstimateTokens(want[0] + "\n")
				want = want[1:]
			}
			o := opt
			if !o.Full {
				o.Budget -= tree.EstimateTokens(s.Header.Line()+"\n") + mapCost
			}
			got := tree.FormatChildren(root, o)
			if len(want) > 0 && strings.HasPrefix(want[len(want)-1], "… ") && strings.Contains(want[len(want)-1], "more lines") {
				want, got = want[:len(want)-1], got[:len(got)-1] // tails cite different scopes
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%+v: FormatChildren differs from Format:\n%s\n---\n%s", opt, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func BenchmarkCompute1000Rows(b *testing.B) {
	before := table(1000)
	after := clone(before)
	row := find(after, "e5000")
	row.Name = "User 500 user500@example.com Suspended"
	row.Children[2].Name = "Suspended"
	find(after, "e7012").States = tree.Checked
	bs, as := snap(before), snap(after)
	b.ReportMetric(float64(tree.Count(before)), "nodes")
	b.ResetTimer()
	for b.Loop() {
		d := diff.Compute(bs, as)
		_ = d.Format(diff.Options{})
	}
}

func BenchmarkCompute1000RowsReplaced(b *testing.B) {
	// Worst case: every row is new (refs differ), so everything is added and
	// removed and the added table is formatted within the budget.
	before := table(1000)
	after := clone(before)
	tree.Walk(after, func(n *tree.Node) bool {
		if n.Ref != "" && n.Ref != "e1" {
			n.Ref = "x" + n.Ref
		}
		return true
	})
	bs, as := snap(before), snap(after)
	for b.Loop() {
		d := diff.Compute(bs, as)
		_ = d.Format(diff.Options{})
	}
}

// isRegionSummary reports whether line summarises a region under root.
func isRegionSummary(root *tree.Node, line string) bool {
	found := false
	tree.Walk(root, func(n *tree.Node) bool {
		if !found && n.Ref != "" && tree.RegionSummary(n) == line {
			found = true
		}
		return !found
	})
	return found
}
