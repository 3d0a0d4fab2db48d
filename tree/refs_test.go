package tree_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/canopy-dev/canopy/tree"
)

func TestRefsFor(t *testing.T) {
	r := tree.NewRefs()
	steps := []struct{ key, want string }{
		{"a", "e1"}, {"b", "e2"}, {"a", "e1"}, {"c", "e3"}, {"b", "e2"}, {"", "e4"}, {"", "e4"},
	}
	for _, s := range steps {
		if got := r.For(s.key); got != s.want {
			t.Errorf("For(%q) = %s, want %s", s.key, got, s.want)
		}
	}
}

// page builds a raw page; extra adds a button with that key before the form.
func refPage(extra string) *tree.Node {
	root := keyed("doc", el(tree.RoleDocument, "Login"))
	if extra != "" {
		root.Children = append(root.Children, keyed(extra, el("button", "New "+extra)))
	}
	root.Children = append(root.Children,
		keyed("form", el("form", "Sign in",
			keyed("email", el("textbox", "Email")),
			keyed("pw", el("textbox", "Password")),
			keyed("go", el("button", "Go")))),
		keyed("help", el("link", "Help")))
	return root
}

func refsOf(root *tree.Node) map[string]string {
	m := map[string]string{}
	tree.Walk(root, func(n *tree.Node) bool {
		if n.Ref != "" {
			m[n.Key] = n.Ref
		}
		return true
	})
	return m
}

func TestRefsAssignStableAcrossSnapshots(t *testing.T) {
	r := tree.NewRefs()
	first := refPage("")
	r.Assign(first)
	want := map[string]string{"form": "e1", "email": "e2", "pw": "e3", "go": "e4", "help": "e5"}
	if got := refsOf(first); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("first snapshot refs = %v, want document order %v", got, want)
	}
	// A fresh tree of the same page, with a new node before the old ones.
	second := refPage("promo")
	r.Assign(second)
	want["promo"] = "e6"
	if got := refsOf(second); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("second snapshot refs = %v, want %v", got, want)
	}
	// Assigning again to the same tree changes nothing.
	r.Assign(second)
	if got := refsOf(second); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("re-Assign changed refs: %v, want %v", got, want)
	}
	// Another session numbers from e1 again.
	other := refPage("promo")
	tree.NewRefs().Assign(other)
	if got := refsOf(other)["promo"]; got != "e1" {
		t.Errorf("a new Refs gave the first node %s, want e1", got)
	}
}

func TestRefsAssignWhichNodes(t *testing.T) {
	run := func(role string, n int) []*tree.Node {
		var kids []*tree.Node
		for i := range n {
			kids = append(kids, keyed(fmt.Sprintf("%s%d", role, i), el(role, fmt.Sprint("item ", i))))
		}
		return kids
	}
	tests := []struct {
		name string
		n    *tree.Node
		want bool
	}{
		{"button", el("button", "OK"), true},
		{"link", el("link", "Home"), true},
		{"textbox", el("textbox", ""), true},
		{"checkbox", el("checkbox", "Agree"), true},
		{"row", el("row", "1 | Ada"), true},
		{"dialog", el("dialog", "Confirm"), true},
		{"form", el("form", ""), true},
		{"iframe", el(tree.RoleFrame, "Pay"), true},
		{"heading", &tree.Node{Role: "heading", Name: "Title", Level: 1}, false},
		{"paragraph", el("paragraph", "Hello"), false},
		{"text", txt("Hello"), false},
		{"img", el("img", "Logo"), false},
		{"generic", el("generic", "Card"), false},
		{"clickable generic", withState(tree.Clickable, el("generic", "menu")), true},
		{"clickable text", withState(tree.Clickable, txt("terms")), true},
		{"generic with a run of 5 similar children", el("generic", "Feed", run("article", 5)...), true},
		{"generic with a run of 5 paragraphs and texts", el("generic", "Story",
			append(run("paragraph", 3), txt("a"), txt("b"))...), true},
		{"generic with only 4 similar children", el("generic", "Feed", run("article", 4)...), false},
		{"generic with 6 children but no run of 5", el("generic", "Mix",
			append(run("article", 3), run("img", 3)...)...), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keyed("target", tt.n)
			root := keyed("doc", el(tree.RoleDocument, "", tt.n))
			tree.NewRefs().Assign(root)
			if got := tt.n.Ref != ""; got != tt.want {
				t.Errorf("%s got ref %q, want a ref: %v", tt.name, tt.n.Ref, tt.want)
			}
		})
	}
}

func TestRefsAssignNeedsKey(t *testing.T) {
	btn := el("button", "No key")
	keyedBtn := keyed("k", el("button", "Keyed"))
	root := keyed("doc", el(tree.RoleDocument, "", btn, keyedBtn))
	tree.NewRefs().Assign(root)
	if btn.Ref != "" {
		t.Errorf("a node without a Key got ref %q", btn.Ref)
	}
	if keyedBtn.Ref != "e1" {
		t.Errorf("keyed button ref = %q, want e1 (keyless nodes take no number)", keyedBtn.Ref)
	}
	if root.Ref != "" {
		t.Errorf("the root got ref %q; its line is the header", root.Ref)
	}
	if tree.FindRef(root, "e1") != keyedBtn {
		t.Errorf("FindRef(e1) did not find the keyed button")
	}
	if tree.FindRef(root, "e2") != nil {
		t.Errorf("FindRef(e2) found a node that has no such ref")
	}
}

func TestRefsConcurrentFor(t *testing.T) {
	const workers, keys = 16, 300
	r := tree.NewRefs()
	results := make([]map[string]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := map[string]string{}
			for _, i := range rand.Perm(keys) {
				k := fmt.Sprintf("node-%d", i)
				got[k] = r.For(k)
			}
			results[w] = got
		}()
	}
	wg.Wait()
	used := map[string]string{}
	for k, ref := range results[0] {
		if prev, dup := used[ref]; dup {
			t.Errorf("%s and %s share ref %s", k, prev, ref)
		}
		used[ref] = k
	}
	for i := 1; i <= keys; i++ {
		if _, ok := used[fmt.Sprintf("e%d", i)]; !ok {
			t.Errorf("ref e%d was never handed out; refs must be e1..e%d", i, keys)
		}
	}
	for w := 1; w < workers; w++ {
		for k, ref := range results[w] {
			if results[0][k] != ref {
				t.Errorf("worker %d saw %s = %s, worker 0 saw %s", w, k, ref, results[0][k])
			}
		}
	}
}

func TestRefsConcurrentAssign(t *testing.T) {
	r := tree.NewRefs()
	pages := make([]*tree.Node, 8)
	var wg sync.WaitGroup
	for i := range pages {
		pages[i] = refPage(fmt.Sprintf("extra%d", i))
		wg.Add(1)
		go func() { defer wg.Done(); r.Assign(pages[i]) }()
	}
	wg.Wait()
	shared := refsOf(pages[0])
	for i, p := range pages {
		got := refsOf(p)
		for _, k := range []string{"form", "email", "pw", "go", "help"} {
			if got[k] == "" || got[k] != shared[k] {
				t.Errorf("page %d: %s = %q, page 0 has %q", i, k, got[k], shared[k])
			}
		}
	}
	if n := len(refsOf(el("x", "", pages...))); n != 5+len(pages) {
		t.Errorf("%d distinct keyed nodes got refs, want %d", n, 5+len(pages))
	}
}
