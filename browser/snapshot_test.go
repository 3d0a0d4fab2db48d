package browser

import (
	"context"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/internal/site"
	"github.com/canopy-dev/canopy/tree"
)

// TestMarkers loads every test page and checks that a full snapshot shows
// every marker inside frames, cross-site frames and shadow roots, and none
// of the hidden ones.
func TestMarkers(t *testing.T) {
	b := newBrowser(t)
	for path, m := range site.PageMarkers() {
		if path == "/slow.html" || path == "/huge.html" {
			continue // their own tests
		}
		if path == site.PyDocOSPath && !site.HasPyDoc() {
			t.Errorf("%s needs python3-doc (apt-get install python3-doc)", path)
			continue
		}
		t.Run(strings.Trim(path, "/"), func(t *testing.T) {
			load(t, b, path)
			snap, _, err := b.Snapshot(context.Background(), SnapshotOptions{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			text := tree.Format(snap, tree.Options{Full: true})
			for _, v := range m.Visible {
				if !strings.Contains(text, v) {
					t.Errorf("marker %q is missing from the snapshot:\n%s", v, text)
				}
			}
			for _, h := range m.Hidden {
				if strings.Contains(text, h) {
					t.Errorf("hidden marker %q leaked into the snapshot:\n%s", h, text)
				}
			}
		})
	}
}

// TestGolden compares the text of each page with its golden file. Each page
// gets a fresh browser so that refs start at e1.
func TestGolden(t *testing.T) {
	pages := []string{"login", "frames", "cross", "mixed", "shadow", "dialogs", "aria-dialog", "hidden", "clickable", "blocks"}
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			b := newBrowser(t)
			snap, _ := load(t, b, "/"+p+".html")
			golden(t, p, stable(tree.Format(snap, tree.Options{})))
		})
	}
	t.Run("table-default", func(t *testing.T) {
		b := newBrowser(t)
		snap, _ := load(t, b, "/table.html")
		golden(t, "table-default", stable(tree.Format(snap, tree.Options{})))
	})
}

// TestBlockBoundaries: text from sibling block elements (a flex row's cells,
// stacked <div>s, inline-block tags) never runs together, while inline
// markup (<b>, <span>, <em>) inside one block still reads as one text.
func TestBlockBoundaries(t *testing.T) {
	b := newBrowser(t)
	snap, _ := load(t, b, "/blocks.html")
	text := tree.Format(snap, tree.Options{Full: true})
	for _, line := range []string{`"Helena"`, `"Turpis gravida"`, `"09:12"`, `"Re: quarterly report"`, `"Storage"`,
		`"3.2 GB of 15 GB used"`, `"Signed in as ada@example.test, MARKER-INLINE."`, `"work"`, `"travel"`} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(line) + `$`).MatchString(text) {
			t.Errorf("no line %s:\n%s", line, text)
		}
	}
	for _, glued := range []string{"HelenaTurpis", "gravida09", "StorageG", "3.2 GB of 15 GB usedSigned", "worktravel"} {
		if strings.Contains(text, glued) {
			t.Errorf("%q runs together:\n%s", glued, text)
		}
	}
}

// TestCrossSiteFrameIsOwnTarget proves the cross-site frame really runs out
// of process, and that its content is still in the one tree.
func TestCrossSiteFrameIsOwnTarget(t *testing.T) {
	b := newBrowser(t)
	snap, st := load(t, b, "/cross.html")
	infos, err := chromedp.Targets(b.browserCtx)
	if err != nil {
		t.Fatal(err)
	}
	var iframes []string
	for _, i := range infos {
		if i.Type == "iframe" {
			iframes = append(iframes, i.URL)
		}
	}
	if len(iframes) != 1 || !strings.HasPrefix(iframes[0], testSite.CrossURL("/")) {
		t.Fatalf("want one iframe target from %s, got %v", testSite.CrossURL("/"), iframes)
	}
	if st.Targets != 2 || st.Frames != 3 {
		t.Errorf("stats: %d targets, %d frames; want 2 targets (page + OOPIF), 3 frames", st.Targets, st.Frames)
	}
	// The OOPIF's content sits under the <iframe> node, not elsewhere.
	var frame *tree.Node
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if n.Role == tree.RoleFrame && n.Name == "Cross frame" {
			frame = n
		}
		return frame == nil
	})
	if frame == nil {
		t.Fatal("no iframe node named Cross frame")
	}
	inner := tree.Format(&tree.Snapshot{Root: &tree.Node{Children: frame.Children}}, tree.Options{Full: true})
	for _, m := range []string{"MARKER-OOPIF", "Cross button", "MARKER-OOPIF-NESTED"} {
		if !strings.Contains(inner, m) {
			t.Errorf("%q is not inside the cross-site frame's node:\n%s", m, inner)
		}
	}
}

// TestRefsStable checks that refs name the same DOM node across snapshots,
// even after the page inserts content before it.
func TestRefsStable(t *testing.T) {
	b := newBrowser(t)
	first, _ := load(t, b, "/cross.html")
	ctx := context.Background()
	second, _, err := b.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, c := tree.Format(first, tree.Options{Full: true}), tree.Format(second, tree.Options{Full: true})
	if a != c {
		t.Fatalf("two snapshots of an unchanged page differ:\n%s\n---\n%s", a, c)
	}
	before := refsByName(first)
	eval[bool](t, b, `document.body.prepend(Object.assign(document.createElement('button'), {textContent: 'New first'})); true`)
	third, _, err := b.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after := refsByName(third)
	for name, ref := range before {
		if after[name] != ref {
			t.Errorf("%s had ref %s, now %s", name, ref, after[name])
		}
	}
	newRef := after["button New first"]
	if newRef == "" || slices.Contains(mapValues(before), newRef) {
		t.Errorf("the new button got ref %q; want a fresh one", newRef)
	}
}

func refsByName(s *tree.Snapshot) map[string]string {
	m := map[string]string{}
	tree.Walk(s.Root, func(n *tree.Node) bool {
		if n.Ref != "" {
			m[n.Role+" "+n.Name] = n.Ref
		}
		return true
	})
	return m
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

var elisionRE = regexp.MustCompile(`… (\d+) more rows (?:\(snapshot (e\d+)\)|not read \(snapshot --full\))`)

// TestBudget checks default snapshots of big pages stay within the budget in
// real o200k tokens and say where the rest is; the pointer works.
func TestBudget(t *testing.T) {
	b := newBrowser(t)
	snap, _ := load(t, b, "/table.html")
	text := tree.Format(snap, tree.Options{})
	if n := counter.Count(text); n > tree.DefaultBudget {
		t.Errorf("default snapshot of the table is %d o200k tokens, over the %d budget", n, tree.DefaultBudget)
	}
	ms := elisionRE.FindAllStringSubmatch(text, -1)
	if ms == nil {
		t.Fatalf("no elision line in:\n%s", text)
	}
	shown, hidden := strings.Count(text, "| Edit\""), 0
	for _, m := range ms {
		hidden += atoi(m[1])
	}
	if shown+hidden != site.TableRows {
		t.Errorf("%d rows shown + %d elided != %d", shown, hidden, site.TableRows)
	}
	// The rows past the first hundred are not read: a full snapshot reads
	// them; an elision of rows read points at the table.
	for _, m := range ms {
		if m[2] == "" {
			continue
		}
		table := tree.FindRef(snap.Root, m[2])
		if table == nil || table.Role != "table" {
			t.Fatalf("elision points at %s, which is %v, not the table", m[2], table)
		}
	}
	full, _, err := b.Snapshot(context.Background(), SnapshotOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if all := tree.Format(full, tree.Options{Full: true}); !strings.Contains(all, "User 1000") {
		t.Error("a full snapshot does not reach the table's last row")
	}
	for _, budget := range []int{300, 1000, 2500} {
		text := tree.Format(snap, tree.Options{Budget: budget})
		if n := counter.Count(text); n > budget {
			t.Errorf("budget %d: snapshot is %d o200k tokens", budget, n)
		}
	}
	if site.HasPyDoc() {
		snap, _ := load(t, b, site.PyDocOSPath)
		text := tree.Format(snap, tree.Options{})
		if n := counter.Count(text); n > tree.DefaultBudget {
			t.Errorf("default snapshot of os.html is %d o200k tokens", n)
		}
		if !strings.Contains(text, "(snapshot e") {
			t.Errorf("os.html's default snapshot does not say where the rest is:\n%s", text)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// TestBounds checks that bounds are page CSS pixels with nested frame
// offsets accumulated: the link in frame B (inside frame A) is where the
// page's own layout says it is.
func TestBounds(t *testing.T) {
	b := newBrowser(t)
	snap, _ := load(t, b, "/frames.html")
	var link *tree.Node
	tree.Walk(snap.Root, func(n *tree.Node) bool {
		if n.Role == "link" && n.Name == "Link in B" {
			link = n
		}
		return link == nil
	})
	if link == nil || link.Bounds == nil {
		t.Fatalf("no bounds for the link in frame B: %+v", link)
	}
	want := eval[[]float64](t, b, `(() => {
		let x = 0, y = 0, win = window;
		const a = document.querySelector('iframe');
		const ra = a.getBoundingClientRect(); x += ra.left + a.clientLeft; y += ra.top + a.clientTop;
		const docA = a.contentDocument, bf = docA.querySelector('iframe');
		const rb = bf.getBoundingClientRect(); x += rb.left + bf.clientLeft; y += rb.top + bf.clientTop;
		const l = [...bf.contentDocument.querySelectorAll('a')].find(e => e.textContent.includes('Link in B'));
		const rl = l.getBoundingClientRect();
		return [x + rl.left + scrollX, y + rl.top + scrollY, rl.width, rl.height];
	})()`)
	got := []float64{link.Bounds.X, link.Bounds.Y, link.Bounds.W, link.Bounds.H}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1 {
			t.Fatalf("bounds %v, want %v (x, y, w, h)", got, want)
		}
	}
}

// TestSlowPage: a page that never finishes loading is snapshot as it is,
// with a note in the header.
func TestSlowPage(t *testing.T) {
	b := newBrowser(t)
	ctx := context.Background()
	ld, err := b.Navigate(ctx, testSite.URL("/slow.html"), 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !ld.Loading || !strings.HasPrefix(ld.Note(), "still loading after") {
		t.Fatalf("load = %+v, want Loading with a note", ld)
	}
	snap, _, err := b.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap.Header.Notes = append(snap.Header.Notes, ld.Note())
	text := tree.Format(snap, tree.Options{})
	if !strings.Contains(text, "MARKER-SLOW") || !strings.Contains(lines(text)[0], "(still loading after") {
		t.Errorf("snapshot of the slow page:\n%s", text)
	}
}

// TestHugePage: a 100k-node page gives a bounded snapshot in bounded time.
func TestHugePage(t *testing.T) {
	b := newBrowser(t)
	snap, st := load(t, b, "/huge.html")
	text := tree.Format(snap, tree.Options{})
	if n := counter.Count(text); n > tree.DefaultBudget {
		t.Errorf("huge page snapshot is %d tokens", n)
	}
	if !strings.Contains(text, "HUGE-FIRST") || !strings.Contains(text, "more") {
		t.Errorf("huge page snapshot lacks its first marker or an elision:\n%s", text)
	}
	t.Logf("huge page: %d raw AX nodes, %d kept, %v wall, %v CDP", st.AXNodes, st.Nodes, st.WallTime, st.CDPTime)
}

// TestFramesDetachingDuringSnapshot: frames that come and go while the
// snapshot reads them never make it fail or hang.
func TestFramesDetachingDuringSnapshot(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/frames.html")
	eval[bool](t, b, `setInterval(() => {
		for (const f of document.querySelectorAll('iframe.churn')) f.remove();
		for (let i = 0; i < 3; i++) {
			const f = document.createElement('iframe');
			f.className = 'churn';
			f.src = i % 2 ? '/frame-b.html' : '`+testSite.CrossURL("/cross-child.html")+`';
			document.body.append(f);
		}
	}, 5); true`)
	for i := range 8 {
		// The cap tells a hang from a slow read: with new cross-site
		// frames every 5 ms, a loaded machine took over 20 s for one.
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		snap, _, err := b.Snapshot(ctx, SnapshotOptions{})
		cancel()
		if err != nil {
			t.Fatalf("snapshot %d with churning frames: %v", i, err)
		}
		if text := tree.Format(snap, tree.Options{}); !strings.Contains(text, "MARKER-MAIN") {
			t.Fatalf("snapshot %d lost the page:\n%s", i, text)
		}
	}
}
