//go:build linux

package atspi

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"
)

// TestPeer reads a real GTK 3 dialog peer to peer and over the bus: the
// two reads agree, references name the app by its bus name, and a peer
// connection that breaks falls back to the bus.
func TestPeer(t *testing.T) {
	ctx := context.Background()
	c, err := Connect(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A second connection whose reads all go over the bus.
	overBus, err := Connect(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer overBus.Close()
	overBus.peers.closeAll()

	app, _, _ := startZenity(t, c, "Peer")

	rt := c.route(ctx, app.Bus)
	if rt.peer == nil {
		t.Fatal("GTK 3 gave no peer-to-peer connection")
	}
	if rt := overBus.route(ctx, app.Bus); rt.peer != nil || rt.conn != overBus.bus {
		t.Fatal("a closed connection's reads do not go over the bus")
	}
	if rt := c.route(ctx, registryName); rt.peer != nil {
		t.Error("the registry got a peer-to-peer connection")
	}

	read := func(c *Conn) *Tree {
		t.Helper()
		tr, err := c.ReadApp(ctx, app, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var items []*Item
		for _, it := range tr.Items {
			items = append(items, it)
		}
		if err := c.Fill(ctx, items, FillOptions{Extents: true, Labels: func(*Item) bool { return true }, Attributes: func(*Item) bool { return true }}); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	p2p, bus := read(c), read(overBus)
	same(t, p2p, bus)
	// GTK 3 says its toolkit in every object's attributes.
	if win := p2p.Items[p2p.Items[app].Children[0]]; win.Attributes["toolkit"] != "gtk" {
		t.Errorf("zenity's window has attributes %v, want toolkit:gtk among them", win.Attributes)
	}
	for r, it := range p2p.Items {
		refs := slices.Clone(it.Children)
		if r != app { // the app's parent is the desktop root, of the registry
			refs = append(refs, it.Parent)
		}
		for _, k := range refs {
			if k.Bus != app.Bus && !k.IsNull() {
				t.Errorf("%s refers to %s, not by the app's bus name %s", r, k, app.Bus)
			}
		}
	}
	// A walk without the cache reads the same objects peer to peer.
	walked := &Tree{Root: app, Items: map[Ref]*Item{}}
	if walked.Items[app], err = c.ReadItem(ctx, app); err != nil {
		t.Fatal(err)
	}
	if err := c.complete(ctx, walked, ReadOptions{Limit: 1000}); err != nil {
		t.Fatal(err)
	}
	if len(walked.Items) != len(bus.Items) {
		t.Errorf("peer-to-peer walk read %d objects, the bus read %d", len(walked.Items), len(bus.Items))
	}

	// The peer connection breaks in the middle of a batch: the batch is
	// sent again over the bus, and later reads use the bus.
	first := true
	var role uint32
	err = c.batch(ctx, func(ctx context.Context, rs routes) error {
		o := c.object(ctx, rs, app)
		if first {
			first = false
			if rs[app.Bus].peer == nil {
				t.Error("the batch does not go peer to peer")
			}
			rs[app.Bus].conn.Close()
		}
		return o.CallWithContext(ctx, ifAccessible+".GetRole", 0).Store(&role)
	})
	if err != nil || Role(role) != RoleApplication {
		t.Errorf("after the peer broke: role %v, %v", Role(role), err)
	}
	if rt := c.route(ctx, app.Bus); rt.peer != nil || rt.conn != c.bus {
		t.Error("a broken peer connection is still used")
	}
	same(t, read(c), bus)

	// A closed connection closes its peers.
	c2, err := Connect(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt = c2.route(ctx, app.Bus)
	if rt.peer == nil {
		t.Fatal("no peer-to-peer connection")
	}
	c2.Close()
	if rt.conn.Connected() {
		t.Error("Close left a peer connection open")
	}
	if _, err := c2.ReadApp(ctx, app, ReadOptions{}); err == nil {
		t.Error("a closed connection still reads")
	}
}

// TestPeerNone: an application that gives no address, or one nothing
// listens on, is read over the bus.
func TestPeerNone(t *testing.T) {
	ctx := context.Background()
	c, err := Connect(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, addr := range []string{"", "unix:path=/nonexistent/peer", "not an address"} {
		fake, err := dbus.Connect(c.Address())
		if err != nil {
			t.Fatal(err)
		}
		defer fake.Close()
		if err := fake.Export(fakeApp{addr}, rootPath, ifApplication); err != nil {
			t.Fatal(err)
		}
		if err := fake.Export(fakeApp{addr}, rootPath, ifAccessible); err != nil {
			t.Fatal(err)
		}
		app := Ref{Bus: fake.Names()[0], Path: rootPath}
		if rt := c.route(ctx, app.Bus); rt.peer != nil || rt.conn != c.bus {
			t.Errorf("address %q: not routed over the bus", addr)
		}
		it, err := c.ReadItem(ctx, app)
		if err != nil || it.Role != RoleApplication {
			t.Errorf("address %q: read %+v, %v", addr, it, err)
		}
	}
	// An application that is gone is defunct, as over the bus.
	_, err = c.ReadItem(ctx, Ref{Bus: ":1.999999", Path: rootPath})
	if !errors.Is(err, ErrDefunct) {
		t.Errorf("a gone app: %v, want ErrDefunct", err)
	}
}

// fakeApp answers like an application root with the given peer address.
type fakeApp struct{ addr string }

func (f fakeApp) GetApplicationBusAddress() (string, *dbus.Error) { return f.addr, nil }
func (f fakeApp) GetRole() (uint32, *dbus.Error)                  { return uint32(RoleApplication), nil }
func (f fakeApp) GetState() ([]uint32, *dbus.Error)               { return []uint32{0, 0}, nil }
func (f fakeApp) GetInterfaces() ([]string, *dbus.Error) {
	return []string{ifAccessible, ifApplication}, nil
}
func (f fakeApp) GetChildren() ([]Ref, *dbus.Error) { return nil, nil }

// same fails t when two reads of one app differ.
func same(t *testing.T, a, b *Tree) {
	t.Helper()
	if len(a.Items) != len(b.Items) {
		t.Errorf("%d objects against %d", len(a.Items), len(b.Items))
	}
	for r, x := range a.Items {
		y := b.Items[r]
		if y == nil {
			t.Errorf("%s read only one way", r)
			continue
		}
		// Focus may settle between the two reads.
		volatile := States(1)<<StateFocused | States(1)<<StateActive
		if x.Name != y.Name || x.Role != y.Role || x.States&^volatile != y.States&^volatile || x.Parent != y.Parent ||
			!slices.Equal(x.Children, y.Children) || !slices.Equal(x.Interfaces, y.Interfaces) ||
			x.Extents != y.Extents || x.HasExtents != y.HasExtents || !slices.Equal(x.LabelledBy, y.LabelledBy) ||
			!maps.Equal(x.Attributes, y.Attributes) {
			t.Errorf("%s differs:\n%+v\n%+v", r, x, y)
		}
	}
}
