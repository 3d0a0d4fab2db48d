//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/canopy-dev/canopy/atspi"
	"github.com/canopy-dev/canopy/tree"
	"github.com/canopy-dev/canopy/xinput"
)

// app is one application as read for a snapshot.
type app struct {
	root  atspi.Ref
	tree  *atspi.Tree
	extra []*atspi.Tree // windows found by events outside the root
	// showing says the app sets the showing state (GTK 4.8 never does:
	// visible stands in for it).
	showing bool
	// mapped are the titles of viewable X windows, for apps that do not
	// say showing: GTK 4.8 keeps a closed dialog "visible".
	mapped map[string]bool
	// xwins are the X windows, for apps that need them: those that do not
	// say showing, and those whose boxes are window-relative.
	xwins []xinput.Window
	// screen are the X windows, for every app (nil when the display
	// cannot be asked).
	screen []xinput.Window
	info   appInfo
	err    error
}

// Snapshot reads every application's windows and controls as one tree:
// desktop → applications → windows → controls. Hidden objects are left
// out. full is accepted for the Source interface; a desktop is always read
// whole.
//
// An application that sent no event since it was last read is not read
// again: its subtree from then is reused (see [Desktop.track]). An action
// on one app then costs one app's read, however many others are open.
func (d *Desktop) Snapshot(ctx context.Context, full bool) (*tree.Snapshot, error) {
	refs, err := d.conn.Apps(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the desktop's applications: %w", err)
	}
	reuse := map[atspi.Ref]*readApp{}
	var stale []atspi.Ref
	d.mu.Lock()
	needWindows := false
	for _, c := range d.cache {
		needWindows = needWindows || c.windows != ""
	}
	d.mu.Unlock()
	var wins []xinput.Window
	key := ""
	if needWindows {
		wins = d.xWindows(ctx)
		key = windowsKey(wins)
	}
	d.mu.Lock()
	for _, r := range refs {
		if c := d.cache[r]; c != nil && !d.dirty[r.Bus] && (c.windows == "" || c.windows == key) {
			reuse[r] = c
			continue
		}
		// Cleared before reading: an event during the read marks it again.
		d.dirty[r.Bus] = false
		stale = append(stale, r)
	}
	d.mu.Unlock()
	if wins == nil {
		wins = d.xWindows(ctx)
	}
	apps, err := d.readApps(ctx, stale, wins)
	if err != nil {
		return nil, err
	}
	fresh := map[atspi.Ref]*readApp{}
	for _, a := range apps {
		if a.err != nil {
			d.log.Debug("desktop: app not readable", "app", a.root, "err", a.err)
			continue
		}
		items := map[string]*atspi.Item{}
		if n := d.appNode(a, items); n != nil {
			ra := &readApp{node: n, items: items, keep: a.showing || a.xwins != nil}
			if a.xwins != nil {
				// Shown or placed by the X server's word: reused only
				// while the same windows are mapped in the same places.
				ra.windows = windowsKey(a.xwins)
			}
			fresh[a.root] = ra
		}
	}
	root := &tree.Node{Role: "desktop", Name: os.Getenv("DISPLAY")}
	items := map[string]*atspi.Item{}
	cache := map[atspi.Ref]*readApp{}
	var all []listedApp // every application, with windows shown or not
	for _, r := range refs {
		c := reuse[r]
		if c == nil {
			c = fresh[r]
		}
		if c == nil {
			continue
		}
		all = append(all, listedApp{r, c.node})
		if c.keep {
			cache[r] = c
		}
		if len(c.node.Children) == 0 {
			// An application shows nothing to act on until it shows a
			// window: a service such as the portal that draws dialogs
			// for others, an app still starting.
			continue
		}
		root.Children = append(root.Children, c.node)
		maps.Copy(items, c.items)
	}
	// Clean is idempotent, so reused subtrees pass through unchanged.
	tree.Clean(root)
	d.refs.Assign(root)
	d.retireGone(root) // gone.go
	d.mu.Lock()
	d.items = items
	d.cache = cache
	d.mu.Unlock()
	h := tree.Header{Kind: "desktop", Title: os.Getenv("DISPLAY"), Notes: d.unlisted(all, wins)}
	return &tree.Snapshot{Header: h, Root: root}, nil
}

// listedApp is an application the desktop root lists, and its node.
type listedApp struct {
	root atspi.Ref
	node *tree.Node
}

// readApp is an application as last shown: its subtree and objects. keep
// says it may be reused while the app sends no events; windows, for an app
// whose windows only the X server can show or place, are the mapped
// windows it was read with (windowsKey).
type readApp struct {
	node    *tree.Node
	items   map[string]*atspi.Item
	keep    bool
	windows string
}

// readApps reads the given applications, and the windows events announced
// that no application root lists, all at once. wins are the X windows if
// already listed.
func (d *Desktop) readApps(ctx context.Context, refs []atspi.Ref, wins []xinput.Window) ([]*app, error) {
	apps := make([]*app, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		apps[i] = &app{root: r}
		wg.Add(1)
		go func(a *app) {
			defer wg.Done()
			a.tree, a.err = d.conn.ReadApp(ctx, a.root, atspi.ReadOptions{Descend: d.descend})
			if a.err == nil {
				d.readWebDialogs(ctx, a.tree)
			}
			a.info = d.appInfo(ctx, a.root.Bus)
		}(apps[i])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.addStrayWindows(ctx, apps)
	if wins == nil && len(refs) > 0 {
		wins = d.xWindows(ctx)
	}
	for _, a := range apps {
		if a.tree == nil {
			continue
		}
		a.screen = wins
		if a.showing = usesShowing(a.tree); !a.showing || a.info.relative {
			a.xwins = wins
			if !a.showing {
				a.mapped = titlesOf(wins)
			}
		}
	}
	return apps, nil
}

// addStrayWindows reads the windows that events announced but no
// application's tree holds, and files each under the application on the
// same connection.
func (d *Desktop) addStrayWindows(ctx context.Context, apps []*app) {
	d.mu.Lock()
	var wins []atspi.Ref
	for w := range d.windows {
		wins = append(wins, w)
	}
	d.mu.Unlock()
	for _, w := range wins {
		var owner *app
		held := false
		for _, a := range apps {
			if a.tree == nil {
				continue
			}
			if a.tree.Items[w] != nil {
				held = true
				break
			}
			for _, x := range a.extra {
				held = held || x.Items[w] != nil
			}
			if a.root.Bus == w.Bus {
				owner = a
			}
		}
		if held || owner == nil {
			continue
		}
		t, err := d.conn.ReadApp(ctx, w, atspi.ReadOptions{Descend: d.descend})
		if err != nil {
			if errors.Is(err, atspi.ErrDefunct) {
				d.mu.Lock()
				delete(d.windows, w)
				d.mu.Unlock()
			}
			continue
		}
		if it := t.Items[w]; it == nil || it.States.Has(atspi.StateDefunct) {
			continue
		}
		// A window inside this one (a file chooser widget in its dialog)
		// was filed first: this one holds it now.
		owner.extra = slices.DeleteFunc(owner.extra, func(x *atspi.Tree) bool { return t.Items[x.Root] != nil })
		owner.extra = append(owner.extra, t)
	}
}

// descend says whether a walk should read an object's children: not under
// objects that are neither showing nor visible, nor in web documents when
// pages come from the browser source.
func (d *Desktop) descend(it *atspi.Item) bool {
	if d.skipWeb && it.Role == atspi.RoleDocumentWeb {
		return false // a dialog's is read after (readWebDialogs)
	}
	return descendShown(it)
}

// descendShown says whether a walk should read an object's children: not
// under objects that are neither showing nor visible.
func descendShown(it *atspi.Item) bool {
	if it.Role == atspi.RoleMenu && !it.States.Has(atspi.StateShowing) {
		// A closed menu: LibreOffice's hold ~800 objects that a cache
		// started after canopy's listener leaves out, all "visible".
		return false
	}
	return it.States.Has(atspi.StateShowing) || it.States.Has(atspi.StateVisible) || it.Role == atspi.RoleApplication
}

// usesShowing reports whether the app sets the showing state below its
// windows. GTK 4.8 sets it on top-level windows only, and otherwise only
// visible.
func usesShowing(t *atspi.Tree) bool {
	for _, it := range t.Items {
		if it.Ref == t.Root || it.Parent == t.Root || it.Role == atspi.RoleApplication {
			continue
		}
		if it.States.Has(atspi.StateShowing) {
			return true
		}
	}
	return false
}

// windowShown says whether a top-level window is on screen. An app that
// never says showing (GTK 4.8) is asked of the X server, by title.
func (a *app) windowShown(it *atspi.Item) bool {
	if !a.shown(it) {
		return false
	}
	if a.showing || a.mapped == nil || it.Name == "" {
		return true
	}
	return a.mapped[cleanName(it.Name)]
}

// onScreen says whether a top-level window with a box in screen
// coordinates is shown by one of its application's mapped X windows: one
// that holds the whole box and is not much larger than it (a toolkit's
// shadows and borders make it somewhat larger). Chromium keeps its omnibox
// pop-ups "showing" while their X windows are unmapped; they lie inside
// the browser window, which is far larger. An app whose process owns no X
// window here (or is unknown) is taken at its word.
func (a *app) onScreen(win *atspi.Item) bool {
	e := win.Extents
	if a.info.pid == 0 || a.info.relative || !win.HasExtents || e.W <= 0 || e.H <= 0 {
		return true
	}
	const slack = 2 // pixels of rounding
	x0, y0, x1, y1 := int(e.X), int(e.Y), int(e.X+e.W), int(e.Y+e.H)
	area := int(e.W) * int(e.H)
	owns := false
	for _, w := range a.screen {
		if w.PID != a.info.pid {
			continue
		}
		owns = true
		holds := x0 >= w.X-slack && y0 >= w.Y-slack && x1 <= w.X+w.W+slack && y1 <= w.Y+w.H+slack
		if holds && 4*area >= w.W*w.H {
			return true
		}
	}
	return !owns
}

// shown says whether an object is on screen: showing, or visible in an app
// that never says showing.
func (a *app) shown(it *atspi.Item) bool {
	if it.States.Has(atspi.StateDefunct) {
		return false
	}
	if a.showing {
		return it.States.Has(atspi.StateShowing)
	}
	return it.States.Has(atspi.StateVisible)
}

// appNode builds an application's node and its windows' subtrees, and
// records every object that made it into the tree in items.
func (d *Desktop) appNode(a *app, items map[string]*atspi.Item) *tree.Node {
	rootItem := a.tree.Items[a.root]
	if rootItem == nil {
		return nil
	}
	// Pick the objects on screen first, so boxes and values are read only
	// for them, all at once.
	var keep []*atspi.Item
	// inPopup are the objects in windows nested in another window
	// (Chromium's bubbles), whose attributes say what they are.
	inPopup := map[*atspi.Item]bool{}
	var pick func(t *atspi.Tree, r atspi.Ref, depth int, popup bool)
	pick = func(t *atspi.Tree, r atspi.Ref, depth int, popup bool) {
		it := t.Items[r]
		if it == nil || !a.shown(it) {
			return
		}
		keep = append(keep, it)
		popup = popup || depth > 0 && isWindowRole(it.Role)
		if popup {
			inPopup[it] = true
		}
		if d.skipWeb && it.Role == atspi.RoleDocumentWeb && !popup {
			return // the tab's page: a browser source reads it
		}
		for _, k := range it.Children {
			pick(t, k, depth+1, popup)
		}
	}
	for _, w := range rootItem.Children {
		if it := a.tree.Items[w]; it != nil && a.windowShown(it) {
			pick(a.tree, w, 0, false)
		}
	}
	for _, t := range a.extra {
		if it := t.Items[t.Root]; it != nil && a.windowShown(it) {
			pick(t, t.Root, 0, false)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.conn.Timeout())
	defer cancel()
	_ = d.conn.Fill(ctx, keep, atspi.FillOptions{Extents: true, Text: wantsText, Value: wantsValue, Labels: wantsLabel,
		Attributes: func(it *atspi.Item) bool { return inPopup[it] }})

	appN := &tree.Node{Role: "application", Name: appName(rootItem.Name, a.info.pid), Key: a.root.String()}
	items[appN.Key] = rootItem
	// popup says r is in a window nested in another window.
	var build func(t *atspi.Tree, r atspi.Ref, top, popup bool) *tree.Node
	build = func(t *atspi.Tree, r atspi.Ref, top, popup bool) *tree.Node {
		it := t.Items[r]
		if it == nil || !a.shown(it) || items[r.String()] != nil {
			return nil // hidden, or already shown (a window found twice)
		}
		n := node(it)
		n.Chooser = it.Role == atspi.RoleFileChooser
		switch {
		case top && (it.Role == atspi.RoleFileChooser || !isWindowRole(it.Role)):
			// A file chooser window, not the widget in one; and a top-level
			// object that does not say it is a window (GTK 4.8 calls its
			// Save dialog "widget" when it opens a second time).
			n.Role = "window"
			if it.Role == atspi.RoleFileChooser || it.States.Has(atspi.StateModal) {
				n.Role = "dialog"
			}
		case !top && isWindowRole(it.Role):
			switch popupOf(t, it) {
			case linkStatus:
				return nil
			case downloadBubble:
				n.Role, n.Name = "status", downloadBubbleName
			}
		}
		if n.Name == "" {
			n.Name = labelName(a, it)
		}
		items[n.Key] = it
		popup = popup || !top && isWindowRole(it.Role)
		if d.skipWeb && it.Role == atspi.RoleDocumentWeb && !popup {
			return n // the tab's page: a browser source grafts it here
		}
		for _, k := range it.Children {
			if c := build(t, k, false, popup); c != nil {
				n.Children = append(n.Children, c)
			}
		}
		n.Children = labelControls(n.Children)
		return n
	}
	top := func(t *atspi.Tree, w atspi.Ref) {
		it := t.Items[w]
		if it == nil || !a.windowShown(it) {
			return
		}
		if !a.onScreen(it) {
			return
		}
		n := build(t, w, true, false)
		if n == nil {
			return
		}
		if !a.showing && it.HasExtents && it.Extents.W > 0 {
			pruneUnsized(n, items)
		}
		if dx, dy, ok := origin(a.info, it, a.xwins); ok {
			shift(n, dx, dy)
		}
		appN.Children = append(appN.Children, n)
	}
	for _, w := range rootItem.Children {
		top(a.tree, w)
	}
	for _, t := range a.extra {
		top(t, t.Root)
	}
	return appN
}

// node turns one object into a tree node.
func node(it *atspi.Item) *tree.Node {
	name := cleanName(it.Name)
	if isTypeName(name) {
		name = ""
	}
	n := &tree.Node{
		Role:        roleOf(it),
		Name:        name,
		Description: strings.TrimSpace(it.Description),
		States:      statesOf(it),
		Key:         it.Ref.String(),
	}
	if it.HasExtents && it.Extents.X != math.MinInt32 && it.Extents.W > 0 && it.Extents.H > 0 {
		n.Bounds = &tree.Rect{X: float64(it.Extents.X), Y: float64(it.Extents.Y), W: float64(it.Extents.W), H: float64(it.Extents.H)}
	}
	switch n.Role {
	case "textbox", "combobox", "spinbutton", "slider":
		// GTK 4 names a control by its label's text: "Name:" is Name.
		n.Name = strings.TrimSpace(strings.TrimSuffix(n.Name, ":"))
	case "tab":
		n.Name = tabName(n.Name)
	}
	switch {
	case n.States.Has(tree.Protected):
	case wantsText(it):
		n.Value = it.Text
	case it.HasValue:
		n.Value = formatValue(it.Value)
	}
	if n.Role == tree.RoleText && n.Name != "" {
		// Labels are separate widgets, but Clean merges neighbouring text
		// the way a page's inline runs merge: a trailing space keeps two
		// labels two words.
		n.Name += " "
	}
	return n
}

// pruneUnsized drops the subtrees below n in which nothing has a size, and
// their objects from items, and reports whether anything in n has one.
// GTK 4.8 never says showing and calls the pages of a stack it does not
// show "visible": only their size, none, tells them apart.
func pruneUnsized(n *tree.Node, items map[string]*atspi.Item) bool {
	sized := n.Bounds != nil
	kept := n.Children[:0]
	for _, c := range n.Children {
		if pruneUnsized(c, items) {
			kept = append(kept, c)
			sized = true
			continue
		}
		tree.Walk(c, func(x *tree.Node) bool {
			delete(items, x.Key)
			return true
		})
	}
	clear(n.Children[len(kept):])
	n.Children = kept
	return sized
}

// wantsLabel says whether to read what labels an object: unnamed controls.
func wantsLabel(it *atspi.Item) bool {
	if it.Name != "" {
		return false
	}
	switch roleOf(it) {
	case "textbox", "combobox", "spinbutton", "slider", "checkbox", "radio", "listbox", "table", "tree":
		return true
	}
	return false
}

// labelName is the name of the label that labels an unnamed control (the
// labelled-by relation), trailing colon dropped: GTK's file chooser labels
// its Name entry this way.
func labelName(a *app, it *atspi.Item) string {
	for _, r := range it.LabelledBy {
		var l *atspi.Item
		if l = a.tree.Items[r]; l == nil {
			for _, t := range a.extra {
				if l = t.Items[r]; l != nil {
					break
				}
			}
		}
		if l != nil {
			if name := strings.TrimSuffix(cleanName(l.Name), ":"); name != "" {
				return name
			}
		}
	}
	return ""
}

// labelControls names an unnamed text box, combo box, spin button or
// slider after the label just before it ("Item name:" → textbox "Item
// name"), as GTK dialogs lay them out without a label relation, and drops
// that label.
func labelControls(kids []*tree.Node) []*tree.Node {
	out := kids[:0]
	for i, c := range kids {
		if i > 0 && c.Name == "" && len(out) > 0 {
			prev := out[len(out)-1]
			switch c.Role {
			case "textbox", "combobox", "spinbutton", "slider":
				if prev.Role == tree.RoleText && prev.Key != "" {
					if name := strings.TrimSuffix(tree.CollapseSpace(prev.Name), ":"); name != "" {
						c.Name = name
						out[len(out)-1] = c
						continue
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}
