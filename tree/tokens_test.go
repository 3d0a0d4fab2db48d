package tree_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/canopy-dev/canopy/tokens"
	"github.com/canopy-dev/canopy/tree"
)

// counter loads the o200k vocabulary once for the whole test binary.
var counter = sync.OnceValues(tokens.New)

func realTokens(t *testing.T, s string) int {
	t.Helper()
	c, err := counter()
	if err != nil {
		t.Fatal(err)
	}
	return c.Count(s)
}

// bigTable is a cleaned, ref'd snapshot of a users table with n rows, each
// with four text cells and an Edit link.
func bigTable(n int) *tree.Snapshot {
	table := keyed("users", el("table", "Users"))
	for i := 1; i <= n; i++ {
		row := keyed(fmt.Sprintf("row%d", i), el("row", ""))
		for _, c := range []string{fmt.Sprint(i), fmt.Sprintf("User %d", i), fmt.Sprintf("user%d@example.com", i), "Admin"} {
			row.Children = append(row.Children, el("cell", "", txt(c)))
		}
		row.Children = append(row.Children, el("cell", "", keyed(fmt.Sprintf("edit%d", i), el("link", "Edit"))))
		table.Children = append(table.Children, row)
	}
	root := keyed("doc", el(tree.RoleDocument, "Users",
		&tree.Node{Role: "heading", Name: "All users", Level: 1}, table))
	return snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Users", URL: "http://127.0.0.1:8080/admin/users"}, root)
}

// deepTree is a narrow tree depth levels deep: a tree item per level with a
// note beside it.
func deepTree(depth int) *tree.Snapshot {
	root := keyed("doc", el(tree.RoleDocument, "Deep"))
	cur := root
	for i := range depth {
		item := keyed(fmt.Sprintf("d%d", i), &tree.Node{Role: "treeitem", States: tree.Expanded,
			Name: fmt.Sprintf("Folder %d holds the files of level %d", i, i)})
		cur.Children = append(cur.Children, el("paragraph", "", txt(fmt.Sprintf("Notes about level %d, with a few words in them.", i))), item)
		cur = item
	}
	return snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Deep", URL: "http://localhost/deep"}, root)
}

// wideTree is wide and deep: sections of lists of items that each hold a
// link, text, and a toolbar with a button.
func wideTree() *tree.Snapshot {
	root := keyed("doc", el(tree.RoleDocument, "Feed"))
	for s := range 15 {
		sec := keyed(fmt.Sprintf("s%d", s), el("region", fmt.Sprintf("Section %d", s)))
		for l := range 6 {
			list := keyed(fmt.Sprintf("l%d.%d", s, l), el("list", ""))
			for i := range 40 {
				id := fmt.Sprintf("%d.%d.%d", s, l, i)
				list.Children = append(list.Children, el("listitem", "",
					keyed("a"+id, el("link", "Article "+id+" about things")),
					txt(" posted by someone, 3 comments"),
					keyed("g"+id, el("toolbar", "Tools", keyed("b"+id, el("button", "Like"))))))
			}
			sec.Children = append(sec.Children, &tree.Node{Role: "heading", Name: fmt.Sprintf("List %d", l), Level: 2}, list)
		}
		root.Children = append(root.Children, sec)
	}
	return snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Feed", URL: "https://news.example.com/"}, root)
}

// flatTree has many siblings that form no run (roles alternate), so neither
// elision nor a depth cut can shrink it.
func flatTree() *tree.Snapshot {
	root := keyed("doc", el(tree.RoleDocument, "Flat"))
	for i := range 300 {
		root.Children = append(root.Children,
			&tree.Node{Role: "heading", Name: fmt.Sprintf("Heading number %d", i), Level: 3},
			el("paragraph", "", txt(fmt.Sprintf("Paragraph %d says something about the heading above it.", i))))
	}
	return snapshot(tree.Header{Kind: "tab", Index: 1, Title: "Flat", URL: "http://localhost/flat"}, root)
}

func TestFormatBudgetRealTokens(t *testing.T) {
	trees := []struct {
		name string
		snap *tree.Snapshot
	}{
		{"table", bigTable(1000)},
		{"deep", deepTree(40)},
		{"wide", wideTree()},
		{"flat", flatTree()},
	}
	for _, tr := range trees {
		full := realTokens(t, tree.Format(tr.snap, tree.Options{Full: true}))
		for _, budget := range []int{0, 300, 1000, 2000} {
			t.Run(fmt.Sprintf("%s/%d", tr.name, budget), func(t *testing.T) {
				out := tree.Format(tr.snap, tree.Options{Budget: budget})
				limit := budget
				if limit == 0 {
					limit = tree.DefaultBudget
				}
				got := realTokens(t, out)
				t.Logf("budget %d: %d real tokens (full %d), %d lines", limit, got, full, strings.Count(out, "\n"))
				if got > limit {
					t.Errorf("%d real o200k tokens, over the budget of %d:\n%s", got, limit, out)
				}
				if full > limit && got < limit/4 {
					t.Errorf("%d real tokens: the budget of %d is mostly unused", got, limit)
				}
				if 2*full <= limit && got != full {
					t.Errorf("tree fits the budget twice over (%d, budget %d) but was cut to %d tokens", full, limit, got)
				}
			})
		}
	}
}

// TestFormatBudgetSweep checks many budgets, so that a planner that only
// happens to fit the round numbers above still fails.
func TestFormatBudgetSweep(t *testing.T) {
	for name, snap := range map[string]*tree.Snapshot{"table": bigTable(1000), "wide": wideTree(), "flat": flatTree()} {
		worst, worstBudget := 0, 0
		for budget := 400; budget <= 2400; budget += 200 {
			if over := realTokens(t, tree.Format(snap, tree.Options{Budget: budget})) - budget; over > worst {
				worst, worstBudget = over, budget
			}
		}
		if worst > 0 {
			t.Errorf("%s: budget %d exceeded by %d real o200k tokens", name, worstBudget, worst)
		}
	}
}

func TestFormatDeepTree(t *testing.T) {
	s := deepTree(40)
	out := tree.Format(s, tree.Options{Budget: 300})
	if !strings.HasPrefix(out, "tab 1 \"Deep\" localhost/deep\n\"Notes about level 0, with a few words in them.\"\ntreeitem \"Folder 0") {
		t.Errorf("a depth cut must keep the top of the tree:\n%s", out)
	}
	if !strings.Contains(out, "more inside)") && !strings.Contains(out, "more lines") {
		t.Errorf("a cut deep tree does not say that something is left out:\n%s", out)
	}
	if strings.Contains(out, "Folder 39") {
		t.Errorf("the deepest level fits a 300-token budget, so the tree was not cut:\n%s", out)
	}
}

func TestFormatWideTreeDefault(t *testing.T) {
	out := tree.Format(wideTree(), tree.Options{})
	if got := realTokens(t, out); got > tree.DefaultBudget {
		t.Errorf("%d real tokens, over the default budget %d", got, tree.DefaultBudget)
	}
	for _, want := range []string{`region "Section 0" e1`, "more regions (snapshot --full)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestFormatHardCutLine(t *testing.T) {
	out := tree.Format(flatTree(), tree.Options{Budget: 300})
	if !strings.HasSuffix(out, " more lines (snapshot --full, or --scope a ref above)\n") {
		t.Errorf("a tree that cannot be elided or cut by depth must end in a `… N more lines` line:\n%s", out)
	}
	if !strings.Contains(out, "\nheading \"Heading number 0\" h3\n\"Paragraph 0 says") {
		t.Errorf("a hard cut must keep the first lines:\n%s", out)
	}
}

func TestEstimateTokensModel(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello", 1},
		{" hello", 1},      // a leading space joins the word
		{"hello world", 2}, // one space between words is free
		{"abcdef", 1},
		{"abcdefg", 2}, // one token per six letters
		{"abcdefghijklm", 3},
		{"123", 1},
		{"1234", 2}, // one per three digits
		{"a  b", 3}, // a run of spaces costs one
		{"x ", 2},   // so does a trailing space
		{`"`, 1},
		{"…", 1},
		{"é", 1},
		{`button "OK" e12`, 7},
	}
	for _, tt := range tests {
		if got := tree.EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEstimateTokensRatio holds EstimateTokens to the real o200k count on
// realistic snapshot text: slightly pessimistic, never wildly off.
func TestEstimateTokensRatio(t *testing.T) {
	corpus := map[string]string{}
	goldens, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		corpus[filepath.Base(g)] = string(b)
	}
	if len(goldens) < 3 {
		t.Errorf("found %d golden files, want 3", len(goldens))
	}
	table := bigTable(1000)
	corpus["table default"] = tree.Format(table, tree.Options{})
	corpus["table full"] = tree.Format(table, tree.Options{Full: true})
	corpus["table 300"] = tree.Format(table, tree.Options{Budget: 300})
	corpus["deep full"] = tree.Format(deepTree(40), tree.Options{Full: true})
	corpus["wide default"] = tree.Format(wideTree(), tree.Options{})
	corpus["flat 1000"] = tree.Format(flatTree(), tree.Options{Budget: 1000})
	for _, g := range goldenCases() {
		corpus[g.name+" full"] = tree.Format(g.snap, tree.Options{Full: true})
	}
	for name, text := range corpus {
		est, real := tree.EstimateTokens(text), realTokens(t, text)
		ratio := float64(est) / float64(real)
		t.Logf("%-16s estimate %6d  real %6d  ratio %.3f", name, est, real, ratio)
		if ratio < 0.9 || ratio > 1.6 {
			t.Errorf("%s: estimate %d / real %d = %.3f, want within [0.9, 1.6]", name, est, real, ratio)
		}
	}
}
