//go:build linux

package atspi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Rect is a box in screen pixels.
type Rect struct {
	X, Y, W, H int32
}

// Item is one accessible object as read: what the Cache interface gives,
// plus the children, box and value canopy reads on top.
type Item struct {
	Ref, App, Parent Ref
	// Index is the position among the parent's children; ChildCount the
	// number of children the object reports.
	Index, ChildCount int
	Children          []Ref
	Interfaces        []string
	Name, Description string
	Role              Role
	States            States
	// Extents is the box in screen pixels; HasExtents says it was read
	// (the object has a Component and is showing).
	Extents    Rect
	HasExtents bool
	// Text is a text box's contents; Value a range's current value, as
	// read by [Conn.Fill].
	Text     string
	Value    float64
	HasValue bool
	// LabelledBy are the objects that label this one (the labelled-by
	// relation), as read by [Conn.Fill].
	LabelledBy []Ref
	// Attributes are the object's toolkit attributes (GetAttributes), as
	// read by [Conn.Fill]: Chromium names its views' classes here
	// ("class": "StatusView"), which no other property says.
	Attributes map[string]string
}

// Has reports whether the object offers the interface, given by its short
// name ("Action", "EditableText") or full D-Bus name.
func (it *Item) Has(iface string) bool {
	if !strings.Contains(iface, ".") {
		iface = "org.a11y.atspi." + iface
	}
	return slices.Contains(it.Interfaces, iface)
}

// cacheItem is one element of Cache.GetItems: a((so)(so)(so)iiassusau).
type cacheItem struct {
	Self, App, Parent Ref
	Index, Count      int32
	Ifaces            []string
	Name              string
	Role              uint32
	Desc              string
	States            []uint32
}

// Apps returns the applications registered with the desktop root.
func (c *Conn) Apps(ctx context.Context) ([]Ref, error) {
	return c.Children(ctx, Root)
}

// Children returns an object's children (Accessible.GetChildren).
func (c *Conn) Children(ctx context.Context, r Ref) ([]Ref, error) {
	var kids []Ref
	if err := c.call(ctx, r, ifAccessible+".GetChildren", []any{&kids}); err != nil {
		return nil, err
	}
	return kids, nil
}

// Parent returns an object's parent (the Parent property).
func (c *Conn) Parent(ctx context.Context, r Ref) (Ref, error) {
	var p Ref
	err := c.property(ctx, r, ifAccessible, "Parent", &p)
	return p, err
}

// Tree is an application's objects as read by [Conn.ReadApp].
type Tree struct {
	Root  Ref
	Items map[Ref]*Item
	// Cached says the items came from the Cache interface (plus what it
	// missed); otherwise the tree was walked.
	Cached bool
	// Unread counts objects left out because the read reached its limit.
	Unread int
}

// Item returns the item of r, or nil.
func (t *Tree) Item(r Ref) *Item { return t.Items[r] }

// ReadOptions tune ReadApp.
type ReadOptions struct {
	// Descend says whether to read an item's children when walking (the
	// cache gives everything regardless). nil descends everywhere.
	Descend func(*Item) bool
	// Limit caps the number of objects walked beyond the cache (default
	// 20,000), so a huge web page cannot stall a read.
	Limit int
}

// ReadApp reads the whole tree under root, an application's root or any
// object in it. It uses the application's Cache when there is one (one call
// for every object) and walks, one tree level at a time with every call of
// a level in flight at once, whatever the cache leaves out.
func (c *Conn) ReadApp(ctx context.Context, root Ref, opt ReadOptions) (*Tree, error) {
	if opt.Limit <= 0 {
		opt.Limit = 20000
	}
	t := &Tree{Root: root, Items: map[Ref]*Item{}}
	if root.Path == rootPath {
		if err := c.readCache(ctx, root.Bus, t); err != nil {
			c.log.Debug("atspi: no cache, walking", "app", root.Bus, "err", err)
		}
	}
	if t.Items[root] == nil {
		it, err := c.ReadItem(ctx, root)
		if err != nil {
			return nil, err
		}
		t.Items[root] = it
	}
	if err := c.complete(ctx, t, opt); err != nil {
		return t, err
	}
	return t, nil
}

// readCache loads every object the application's Cache holds.
func (c *Conn) readCache(ctx context.Context, bus string, t *Tree) error {
	var items []cacheItem
	err := c.batch(ctx, func(ctx context.Context, rs routes) error {
		const method = ifCache + ".GetItems"
		call := c.object(ctx, rs, Ref{Bus: bus, Path: cachePath}).CallWithContext(ctx, method, 0)
		if call.Err != nil {
			return callErr(ctx, method, call.Err)
		}
		if err := call.Store(&items); err != nil {
			return fmt.Errorf("%s: unexpected reply: %w", shortMethod(method), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, ci := range items {
		t.Items[ci.Self] = &Item{
			Ref: ci.Self, App: ci.App, Parent: ci.Parent,
			Index: int(ci.Index), ChildCount: int(ci.Count),
			Interfaces: ci.Ifaces, Name: ci.Name, Description: ci.Desc,
			Role: Role(ci.Role), States: statesOf(ci.States),
		}
	}
	for _, it := range t.Items {
		if p := t.Items[it.Parent]; p != nil && it.Index >= 0 {
			p.Children = append(p.Children, it.Ref)
		}
	}
	for _, it := range t.Items {
		slices.SortFunc(it.Children, func(a, b Ref) int { return t.Items[a].Index - t.Items[b].Index })
	}
	t.Cached = len(items) > 0
	return nil
}

// complete walks, level by level from the root, every object whose children
// are not all known yet, reading the unknown ones.
func (c *Conn) complete(ctx context.Context, t *Tree, opt ReadOptions) error {
	level := []*Item{t.Items[t.Root]}
	walked := 0
	for len(level) > 0 {
		// Objects whose children the cache does not fully hold.
		var short []*Item
		for _, it := range level {
			// GTK 3's cache leaves out the children of containers that
			// manage their descendants, and counts them as -1.
			missing := len(it.Children) < it.ChildCount || it.ChildCount < 0 ||
				t.Cached && it.States.Has(StateManagesDescendants)
			if (opt.Descend == nil || opt.Descend(it)) && missing {
				short = append(short, it)
			}
		}
		if err := c.fetchChildren(ctx, short); err != nil {
			return err
		}
		var unknown []Ref
		var next []*Item
		for _, it := range level {
			if opt.Descend != nil && !opt.Descend(it) {
				continue
			}
			for _, k := range it.Children {
				if kid := t.Items[k]; kid != nil {
					next = append(next, kid)
				} else {
					unknown = append(unknown, k)
				}
			}
		}
		if walked+len(unknown) > opt.Limit {
			t.Unread += walked + len(unknown) - opt.Limit
			unknown = unknown[:max(0, opt.Limit-walked)]
		}
		walked += len(unknown)
		read, err := c.readItems(ctx, unknown)
		if err != nil {
			return err
		}
		for _, it := range read {
			t.Items[it.Ref] = it
			next = append(next, it)
		}
		level = next
	}
	// Drop children that were never read (over the limit, or gone).
	for _, it := range t.Items {
		it.Children = slices.DeleteFunc(it.Children, func(r Ref) bool { return t.Items[r] == nil })
	}
	return nil
}

// fetchChildren replaces the children lists of items with GetChildren's,
// all calls in flight at once.
func (c *Conn) fetchChildren(ctx context.Context, items []*Item) error {
	if len(items) == 0 {
		return nil
	}
	return c.batch(ctx, func(ctx context.Context, rs routes) error {
		calls := make([]*dbus.Call, len(items))
		for i, it := range items {
			calls[i] = c.object(ctx, rs, it.Ref).GoWithContext(ctx, ifAccessible+".GetChildren", 0, nil)
		}
		for i, call := range calls {
			<-call.Done
			var kids []Ref
			if call.Err != nil || call.Store(&kids) != nil {
				continue // a defunct object keeps what the cache said
			}
			items[i].Children = kids
		}
		return ctx.Err()
	})
}

// ReadItem reads one object: role, name, description, states, interfaces,
// children.
func (c *Conn) ReadItem(ctx context.Context, r Ref) (*Item, error) {
	its, err := c.readItems(ctx, []Ref{r})
	if err != nil {
		return nil, err
	}
	if len(its) == 0 {
		return nil, fmt.Errorf("reading %s: %w", r, ErrDefunct)
	}
	return its[0], nil
}

// readItems reads objects with five calls each, every call in flight at
// once. Objects that vanished are left out.
func (c *Conn) readItems(ctx context.Context, refs []Ref) ([]*Item, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	var out []*Item
	err := c.batch(ctx, func(ctx context.Context, rs routes) error {
		var err error
		out, err = c.readItemsVia(ctx, rs, refs)
		return err
	})
	return out, err
}

// readItemsVia is readItems on the routes rs, within ctx.
func (c *Conn) readItemsVia(ctx context.Context, rs routes, refs []Ref) ([]*Item, error) {
	type pending struct{ role, state, ifaces, props, kids *dbus.Call }
	ps := make([]pending, len(refs))
	for i, r := range refs {
		o := c.object(ctx, rs, r)
		ps[i] = pending{
			role:   o.GoWithContext(ctx, ifAccessible+".GetRole", 0, nil),
			state:  o.GoWithContext(ctx, ifAccessible+".GetState", 0, nil),
			ifaces: o.GoWithContext(ctx, ifAccessible+".GetInterfaces", 0, nil),
			props:  o.GoWithContext(ctx, ifProperties+".GetAll", 0, nil, ifAccessible),
			kids:   o.GoWithContext(ctx, ifAccessible+".GetChildren", 0, nil),
		}
	}
	out := make([]*Item, 0, len(refs))
	var firstErr error
	for i, p := range ps {
		for _, call := range []*dbus.Call{p.role, p.state, p.ifaces, p.props, p.kids} {
			<-call.Done
		}
		it := &Item{Ref: refs[i], Index: -1}
		var role uint32
		var words []uint32
		var props map[string]dbus.Variant
		if err := p.role.Store(&role); err != nil {
			if firstErr == nil && ctx.Err() != nil {
				firstErr = callErr(ctx, "Accessible.GetRole", err)
			}
			continue
		}
		it.Role = Role(role)
		if p.state.Store(&words) == nil {
			it.States = statesOf(words)
		}
		_ = p.ifaces.Store(&it.Interfaces)
		_ = p.kids.Store(&it.Children)
		if p.props.Store(&props) == nil {
			it.Name, _ = props["Name"].Value().(string)
			it.Description, _ = props["Description"].Value().(string)
			if n, ok := props["ChildCount"].Value().(int32); ok {
				it.ChildCount = int(n)
			}
			if v, ok := props["Parent"]; ok {
				_ = dbus.Store([]any{v.Value()}, &it.Parent)
			}
		}
		if it.ChildCount < len(it.Children) {
			it.ChildCount = len(it.Children)
		}
		out = append(out, it)
	}
	if len(out) == 0 && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// FillOptions say what Fill reads.
type FillOptions struct {
	Extents bool // Component.GetExtents in screen coordinates
	Text    func(*Item) bool
	Value   func(*Item) bool
	// Labels reads the labelled-by relation of the items it accepts.
	Labels func(*Item) bool
	// Attributes reads the attributes of the items it accepts.
	Attributes func(*Item) bool
}

// relationLabelledBy is ATSPI_RELATION_LABELLED_BY.
const relationLabelledBy = 2

// Fill reads boxes, text and values of items, every call in flight at once.
// Items that do not answer keep their zero values.
func (c *Conn) Fill(ctx context.Context, items []*Item, opt FillOptions) error {
	return c.batch(ctx, func(ctx context.Context, rs routes) error {
		return c.fillVia(ctx, rs, items, opt)
	})
}

// fillVia is Fill on the routes rs, within ctx.
func (c *Conn) fillVia(ctx context.Context, rs routes, items []*Item, opt FillOptions) error {
	type pending struct {
		it                                 *Item
		extents, text, vals, labels, attrs *dbus.Call
	}
	var ps []pending
	for _, it := range items {
		o := c.object(ctx, rs, it.Ref)
		p := pending{it: it}
		if opt.Extents && it.Has(ifComponent) {
			p.extents = o.GoWithContext(ctx, ifComponent+".GetExtents", 0, nil, uint32(0))
		}
		if opt.Text != nil && (it.Has(ifText) || it.Has(ifEditableText)) && opt.Text(it) {
			p.text = o.GoWithContext(ctx, ifText+".GetText", 0, nil, int32(0), int32(-1))
		}
		if opt.Value != nil && it.Has(ifValue) && opt.Value(it) {
			p.vals = o.GoWithContext(ctx, ifProperties+".Get", 0, nil, ifValue, "CurrentValue")
		}
		if opt.Labels != nil && opt.Labels(it) {
			p.labels = o.GoWithContext(ctx, ifAccessible+".GetRelationSet", 0, nil)
		}
		if opt.Attributes != nil && opt.Attributes(it) {
			p.attrs = o.GoWithContext(ctx, ifAccessible+".GetAttributes", 0, nil)
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		if p.extents != nil {
			<-p.extents.Done
			var r Rect
			if p.extents.Store(&r) == nil {
				p.it.Extents, p.it.HasExtents = r, true
			}
		}
		if p.text != nil {
			<-p.text.Done
			_ = p.text.Store(&p.it.Text)
		}
		if p.labels != nil {
			<-p.labels.Done
			var rels []struct {
				Type    uint32
				Targets []Ref
			}
			if p.labels.Store(&rels) == nil {
				var by []Ref
				for _, r := range rels {
					if r.Type == relationLabelledBy {
						by = append(by, r.Targets...)
					}
				}
				p.it.LabelledBy = by
			}
		}
		if p.attrs != nil {
			<-p.attrs.Done
			var m map[string]string
			if p.attrs.Store(&m) == nil {
				p.it.Attributes = m
			}
		}
		if p.vals != nil {
			<-p.vals.Done
			var v dbus.Variant
			if p.vals.Store(&v) == nil {
				if f, ok := v.Value().(float64); ok {
					p.it.Value, p.it.HasValue = f, true
				}
			}
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("reading boxes and values: %w", ErrTimeout)
	}
	return nil
}

// batch runs send, a batch of calls, within the connection's timeout on
// routes of its own. When a peer-to-peer connection broke meanwhile, it
// runs send again, over the bus, within a fresh timeout.
func (c *Conn) batch(ctx context.Context, send func(context.Context, routes) error) error {
	run := func() (bool, error) {
		ctx, cancel := context.WithTimeout(ctx, c.timeout)
		defer cancel()
		rs := routes{}
		err := send(ctx, rs)
		return c.broken(rs), err
	}
	broken, err := run()
	if broken {
		c.log.Debug("atspi: a peer-to-peer connection broke, using the bus")
		_, err = run()
	}
	return err
}
