package browser

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// snap reads b's current tab whole and returns its text and figures.
func snap(t *testing.T, b *Browser) (string, Stats) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, st, err := b.Snapshot(ctx, SnapshotOptions{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return tree.Format(s, tree.Options{Full: true}), st
}

// TestKeptTree: a read with nothing changed since the last is answered by
// the kept tree; every kind of change makes the next read whole, and shows.
func TestKeptTree(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/widgets.html")
	first, st := snap(t, b)
	if st.Whole != "" {
		t.Fatalf("widgets.html was not kept: %s", st.Whole)
	}
	again, st := snap(t, b)
	if !st.Reused || again != first {
		t.Fatalf("a second read with nothing changed: reused %v, same text %v", st.Reused, again == first)
	}
	changes := []struct{ name, js, want string }{
		{"a button added", `document.body.append(Object.assign(document.createElement('button'), {textContent: 'Added'}))`, `button "Added"`},
		{"a text changed", `document.querySelector('h1').firstChild.data = 'Renamed'`, `heading "Renamed"`},
		{"an attribute", `document.querySelector('h1').setAttribute('aria-label', 'Labelled')`, `heading "Labelled"`},
		{"a checkbox set by script", `document.querySelector('input[type=checkbox]').checked = !document.querySelector('input[type=checkbox]').checked`, ``},
		{"a value set by script", `document.querySelector('#q').value = 'typed by script'`, `value="typed by script"`},
		{"focus by script", `document.querySelector('button').focus()`, ` focused`},
		{"blur by script", `document.activeElement.blur()`, ``},
		{"the title", `document.title = 'Retitled'`, `"Retitled"`},
	}
	prev := again
	for _, c := range changes {
		js[any](t, b, c.js+"; 1")
		text, st := snap(t, b)
		if st.Reused {
			t.Errorf("%s: the kept tree answered", c.name)
		}
		if text == prev {
			t.Errorf("%s: the tree did not change:\n%s", c.name, text)
		}
		if c.want != "" && !strings.Contains(text, c.want) {
			t.Errorf("%s: no %q in\n%s", c.name, c.want, text)
		}
		prev = text
		if again, st := snap(t, b); !st.Reused || again != text {
			t.Errorf("%s: the read after was not kept (reused %v)", c.name, st.Reused)
		}
	}
	// A hash navigation changes no node, but the page may show another
	// view on it: the next read is whole.
	js[any](t, b, `location.hash = '#kept'; 1`)
	if _, st := snap(t, b); st.Reused {
		t.Error("after a hash navigation, the kept tree answered")
	}
}

// TestKeptTreeNotKept: trees whose changes the observer cannot hear are
// read whole every time, and the figures say why.
func TestKeptTreeNotKept(t *testing.T) {
	b := newBrowser(t)
	for page, why := range map[string]string{"/shadow-closed.html": "shadow roots canopy does not see into"} {
		load(t, b, page)
		snap(t, b)
		if _, st := snap(t, b); st.Reused || st.Whole != why {
			t.Errorf("%s: reused %v, not kept because %q; want %q", page, st.Reused, st.Whole, why)
		}
	}
}

// TestKeptTreeWorldForgotten: a tab that forgot canopy's world in its page
// (a call there ran out of time on a busy machine) finds it again, and the
// next change is still read incrementally with the observer's marks.
func TestKeptTreeWorldForgotten(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/widgets.html")
	snap(t, b)
	w := b.curTab().watch
	if w.worldID() == "" {
		t.Fatal("canopy's world in widgets.html was never announced")
	}
	w.worldAnswered(w.worldID(), context.DeadlineExceeded)
	if w.worldID() != "" {
		t.Fatal("a world that ran out of time was not forgotten")
	}
	js[any](t, b, `document.querySelector('h1').firstChild.data = 'Renamed late'; 1`)
	text, st := snap(t, b)
	if st.Regions == 0 || st.Reread != "" {
		t.Errorf("the change after the world was forgotten was not read incrementally: %+v", st)
	}
	if !strings.Contains(text, `heading "Renamed late"`) {
		t.Errorf("the change is missing from the read:\n%s", text)
	}
}

// mutateJS changes the page at random, the way pages change themselves:
// r is a list of random numbers in [0,1) that pick the kind, the node and
// the new content. It returns what it did.
const mutateJS = `((kind, r, cross) => {
  const pick = list => list[Math.floor(r.shift() * list.length)];
  const els = () => [...document.body.querySelectorAll('*')].filter(e => !['SCRIPT', 'STYLE'].includes(e.tagName));
  const word = () => 'w' + Math.floor(r.shift() * 1000);
  switch (kind) {
  case 'insert': {
    const e = document.createElement(pick(['button', 'p', 'a', 'li', 'h2', 'input', 'span']));
    e.textContent = word(); if (e.tagName === 'A') e.href = '#' + word();
    (pick(els()) || document.body).append(e); return 'insert ' + e.tagName; }
  case 'remove': { const e = pick(els()); if (e) e.remove(); return 'remove ' + (e && e.tagName); }
  case 'move': { const a = pick(els()), p = pick(els()); if (a && p && !a.contains(p)) p.prepend(a); return 'move'; }
  case 'attribute': {
    const e = pick(els()); if (!e) return 'none';
    const [k, v] = pick([['aria-label', word()], ['hidden', ''], ['class', word()], ['disabled', ''], ['role', 'button'], ['aria-expanded', 'true'], ['inert', '']]);
    if (e.hasAttribute(k)) e.removeAttribute(k); else e.setAttribute(k, v); return 'attribute ' + k; }
  case 'text': {
    const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); const ts = [];
    while (w.nextNode()) if (w.currentNode.data.trim()) ts.push(w.currentNode);
    const t = pick(ts); if (t) t.data = word(); return 'text'; }
  case 'property': {
    const e = pick([...document.querySelectorAll('input:not([type=file]),select,textarea')]); if (!e) return 'none';
    if (e.type === 'checkbox' || e.type === 'radio') e.checked = !e.checked;
    else if (e.tagName === 'SELECT') e.selectedIndex = (e.selectedIndex + 1) % Math.max(e.options.length, 1);
    else e.value = word(); return 'property ' + e.tagName; }
  case 'focus': { const e = pick([...document.querySelectorAll('button,a[href],input')]); if (e) e.focus(); else document.activeElement.blur(); return 'focus'; }
  case 'shadow': {
    const h = document.createElement('div'); document.body.append(h);
    h.attachShadow({mode: pick(['open', 'closed'])}).innerHTML = '<button>' + word() + '</button>'; return 'shadow'; }
  case 'frame': {
    const f = document.querySelector('iframe');
    if (f && r.shift() < 0.5) { f.remove(); return 'frame removed'; }
    const n = document.createElement('iframe'); n.srcdoc = '<p>' + word() + '</p><button>in frame</button>'; document.body.append(n); return 'frame added'; }
  case 'scroll': {
    const tall = document.createElement('div'); tall.style.height = '3000px'; tall.textContent = word(); document.body.append(tall);
    scrollBy(0, 200 + Math.floor(r.shift() * 800)); return 'scroll'; }
  case 'box': {
    const e = pick(els()); if (e) e.style.marginLeft = Math.floor(r.shift() * 300) + 'px'; return 'box'; }
  case 'modal': {
    const d = document.querySelector('dialog');
    if (d && d.open) { d.close(); return 'modal closed'; }
    const n = d || document.body.appendChild(document.createElement('dialog'));
    if (!n.firstChild) n.innerHTML = '<p>' + word() + '</p><button>ok</button>';
    n.showModal(); return 'modal opened'; }
  case 'cross': {
    const n = document.createElement('iframe'); n.src = cross; document.body.append(n); return 'cross-site frame'; }
  }
})`

// TestDriftCheck changes pages at random, reading after each change and
// again after that with the drift check on: every time the kept tree
// answers, a fresh read must print the same.
func TestDriftCheck(t *testing.T) {
	pages := []string{"/widgets.html", "/todo.html", "/frames.html", "/dashboard.html", "/login.html"}
	driftRounds(t, pages, 20)
}

// TestDriftCheckOnDemand is TestDriftCheck on pages read on demand (the
// rows past the first hundred are not read): most changes land in the part
// not read, some in the part read, and actions look up rows in the rest.
func TestDriftCheckOnDemand(t *testing.T) {
	if n := driftRounds(t, []string{"/grid.html", "/table.html"}, 3); n == 0 {
		t.Error("no read checked was of a page read on demand")
	}
}

// driftRounds runs seeds rounds of random changes over pages with the drift
// check on, and fails unless the kept tree answered both as it was and
// updated. It returns how many reads checked were of a page read on demand.
func driftRounds(t *testing.T, pages []string, seeds uint64) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	b, err := New(ctx, Options{DriftCheck: true})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	kinds := []string{"insert", "remove", "move", "attribute", "text", "property", "focus", "shadow", "frame", "cross", "scroll", "box", "modal"}
	reused, updated, partial := 0, 0, 0
	whyWhole := map[string]int{}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 17))
		page := pages[seed%uint64(len(pages))]
		load(t, b, page)
		var did []string
		for range 8 {
			kind := kinds[rng.IntN(len(kinds))]
			rs := make([]string, 8)
			for i := range rs {
				rs[i] = fmt.Sprint(rng.Float64())
			}
			expr := fmt.Sprintf("%s(%q, [%s], %q)", mutateJS, kind, strings.Join(rs, ","), testSite.CrossURL("/cross-child.html"))
			did = append(did, js[string](t, b, expr))
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				snap, st, err := b.Snapshot(ctx, SnapshotOptions{})
				cancel()
				if err != nil {
					t.Fatalf("seed %d on %s after %v: %v", seed, page, did, err)
				}
				if st.Reread != "" {
					whyWhole[st.Reread]++
				}
				if st.Checked && strings.Contains(tree.Format(snap, tree.Options{Full: true}), "not read") {
					partial++
				}
				switch {
				case st.Checked && st.Regions > 0:
					updated++
				case st.Checked:
					reused++
				}
			}
		}
	}
	if reused == 0 || updated == 0 {
		t.Errorf("the kept tree answered %d reads as it was and %d updated: the check checked too little", reused, updated)
	}
	t.Logf("%d reads answered by the kept tree as it was, %d by it updated, each checked (%d read on demand); read whole because %v", reused, updated, partial, whyWhole)
	return partial
}

// TestOnDemandTarget: on a page read on demand, an action whose selector
// matches nothing in the part read looks its target up in the rest, which
// joins the kept tree: no whole read, and the reply is an incremental diff.
// The third lookup on a document reads it whole instead.
func TestOnDemandTarget(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/grid.html")
	if text, _ := snap(t, b); strings.Contains(text, "User 0999") || !strings.Contains(text, "900 more rows not read") {
		t.Fatalf("the grid was not read on demand:\n%s", text)
	}
	e := &actEnv{t: t, b: b, s: newActSession(b, action.Act)}
	r := e.must(`click role:button name:"Edit User 0999"`)
	if !strings.Contains(r.Text, `+   textbox "Name"`) || strings.Count(r.Text, "\n") > 6 {
		t.Errorf("the click on row 999 does not show just its edit field:\n%s", r.Text)
	}
	if st := b.LastStats(); st.AXNodes > 5000 {
		t.Errorf("the lookup read the page whole: %d AX nodes", st.AXNodes)
	}
	r = e.must(`type role:textbox name:Name "Zed" clear; click role:button name:Save`)
	if !strings.Contains(r.Text, `"Edit Zed"`) {
		t.Errorf("the batch's reply does not show the row renamed:\n%s", r.Text)
	}
	if got := js[string](t, b, `document.querySelector('tr[data-id="999"] .name').textContent`); got != "Zed" {
		t.Errorf("row 999's name is %q", got)
	}
	r = e.must(`find role:button name:"Delete User 0600"`)
	if !strings.HasPrefix(r.Text, `button "Delete User 0600" e`) {
		t.Errorf("find did not look the row up:\n%s", r.Text)
	}
	if text, _ := snap(t, b); !strings.Contains(text, "Edit Zed") || !strings.Contains(text, "not read") {
		t.Errorf("the rows looked up are not in the kept tree, or it is whole:\n%s", text)
	}
	e.must(`click role:button name:"Edit User 0700"`)
	if st := b.LastStats(); st.AXNodes < 10000 {
		t.Errorf("the third lookup did not read the page whole: %d AX nodes", st.AXNodes)
	}
	if text, _ := snap(t, b); strings.Contains(text, "not read") {
		t.Errorf("after a whole read, the tree still has rows not read:\n%s", text)
	}
}

// TestKeptTreeWhileParsing: the observer starts once a document is parsed,
// so a document the parser is still adding to is read whole every time,
// and each read shows what the parser added since the last.
func TestKeptTreeWhileParsing(t *testing.T) {
	b := newBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := b.Navigate(ctx, testSite.URL("/parsing.html"), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Loading {
		t.Fatal("parsing.html finished loading: it should still be coming")
	}
	if _, st := snap(t, b); st.Whole != "the page is still being parsed" {
		t.Errorf("a read while the page is parsed: kept, or not kept because %q", st.Whole)
	}
	for range 2 {
		// The parser's next paragraph.
		v, err := chromedp.Run(b.tabCtx(), chromedp.Evaluate[int](`new Promise(done => new MutationObserver((_, o) => {
		  o.disconnect(); done(document.querySelectorAll('p').length); }).observe(document.body, {childList: true}))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		text, st := snap(t, b)
		if st.Reused || !strings.Contains(text, fmt.Sprintf(`"Paragraph %d"`, v)) {
			t.Errorf("the read after the parser added paragraph %d: reused %v\n%s", v, st.Reused, text)
		}
	}
}

// TestKeptShadowRoots: a page with shadow roots, open and closed, made by
// script or by the parser, is kept; a change inside any of them, a value
// set by script or the focus moving there makes the next read whole and
// shows, and the read after it is kept again.
func TestKeptShadowRoots(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/shadow.html")
	const open = `document.querySelector('open-card').shadowRoot`
	keptThrough(t, b, func(s string) { js[any](t, b, s+"; 1") }, []keptChange{
		{"a closed root attached", `const h = document.createElement('div'); window.closedRoot = h.attachShadow({mode: 'closed'});
		  closedRoot.innerHTML = '<button>Closed one</button><input aria-label="Dark field">'; document.body.append(h)`, `button "Closed one"`},
		{"a text in an open root", open + `.querySelector('p').firstChild.data = 'Open renamed'`, `"Open renamed"`},
		{"a text in a nested root", open + `.querySelector('nested-badge').shadowRoot.querySelector('span').textContent = 'Nested renamed'`, `"Nested renamed"`},
		{"a text in the parser's root", `document.getElementById('declarative').shadowRoot.querySelector('p').textContent = 'Declarative renamed'`, `"Declarative renamed"`},
		{"a button added in a closed root", `closedRoot.append(Object.assign(document.createElement('button'), {textContent: 'Added in the dark'}))`, `button "Added in the dark"`},
		{"an attribute in a closed root", `closedRoot.querySelector('button').setAttribute('aria-label', 'Labelled closed')`, `button "Labelled closed"`},
		{"a value set by script in a closed root", `closedRoot.querySelector('input').value = 'typed in the dark'`, `value="typed in the dark"`},
		{"focus in a closed root", `closedRoot.querySelector('input').focus()`, ` focused`},
		{"focus moved within it", `closedRoot.querySelector('button').focus()`, `button "Labelled closed" e`},
	})
}

// keptChange is a change keptThrough makes, and what the read after it
// must show.
type keptChange struct{ name, js, want string }

// keptThrough checks that the tab's page is kept, then makes each change
// with do: the read after it must not be the kept tree, must differ from
// the read before and show what the change wants, and the read after that
// must be kept again.
func keptThrough(t *testing.T, b *Browser, do func(js string), changes []keptChange) {
	t.Helper()
	first, st := snap(t, b)
	if st.Whole != "" {
		t.Fatalf("the page was not kept: %s", st.Whole)
	}
	if again, st := snap(t, b); !st.Reused || again != first {
		t.Fatalf("a second read with nothing changed: reused %v, same text %v", st.Reused, again == first)
	}
	prev := first
	for _, c := range changes {
		do(c.js)
		text, st := snap(t, b)
		if st.Reused || text == prev || !strings.Contains(text, c.want) {
			t.Errorf("%s: reused %v, changed %v, no %q in\n%s", c.name, st.Reused, text != prev, c.want, text)
		}
		prev = text
		if again, st := snap(t, b); !st.Reused || again != text {
			t.Errorf("%s: the read after was not kept (reused %v, not kept because %q)", c.name, st.Reused, st.Whole)
		}
	}
}

// TestKeptCrossFrames: a page with a cross-site frame (in another process,
// with a same-origin frame inside it) is kept; a change in the frame's
// document, a value set by script there or the focus moving into it makes
// the next read whole and shows, and the read after it is kept again.
func TestKeptCrossFrames(t *testing.T) {
	b := newBrowser(t)
	load(t, b, "/cross.html")
	frameJS := crossFrameJS(t, b)
	keptThrough(t, b, func(s string) { frameJS(s + "; 1") }, []keptChange{
		{"a text in the frame", `document.querySelector('p').firstChild.data = 'Cross renamed'`, `"Cross renamed"`},
		{"a button added in the frame", `document.body.append(Object.assign(document.createElement('button'), {textContent: 'Added across'}))`, `button "Added across"`},
		{"a value set by script in the frame", `document.getElementById('cross-input').value = 'typed across'`, `value="typed across"`},
		{"focus in the frame", `document.querySelector('button').focus()`, `button "Cross button" e`},
		{"a text in the frame's own frame", `document.querySelector('iframe').contentDocument.body.append('Grandchild added')`, `"Grandchild added"`},
	})
}

// crossFrameJS returns a function that evaluates JavaScript in the current
// tab's out-of-process frame, over a session of the test's own.
func crossFrameJS(t *testing.T, b *Browser) func(string) {
	t.Helper()
	infos, err := chromedp.Targets(b.browserCtx)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Type != "iframe" {
			continue
		}
		fctx, cancel := chromedp.NewContext(b.browserCtx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
		t.Cleanup(cancel)
		if err := chromedp.Do(fctx); err != nil { // attach for the context's lifetime
			t.Fatal(err)
		}
		return func(expr string) {
			t.Helper()
			ctx, cancel := context.WithTimeout(fctx, 10*time.Second)
			defer cancel()
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr)); err != nil {
				t.Fatalf("evaluate %q in the frame: %v", expr, err)
			}
		}
	}
	t.Fatal("no frame target")
	return nil
}
