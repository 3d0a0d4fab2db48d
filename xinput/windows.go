package xinput

import (
	"context"

	"github.com/jezek/xgb/xproto"
)

// Window is a viewable top-level window: its title and box on the screen.
type Window struct {
	Title      string
	X, Y, W, H int
}

// Windows lists the viewable top-level windows (children of the root),
// bottom to top. An accessibility tree cannot always tell a hidden window
// from a shown one (GTK 4.8 keeps a closed dialog "visible" and never says
// "showing"); the X server can. Titles are _NET_WM_NAME, else WM_NAME.
func (d *Display) Windows(ctx context.Context) ([]Window, error) {
	if err := d.lock(); err != nil {
		return nil, err
	}
	defer d.mu.Unlock()
	return await(ctx, d.windows)
}

func (d *Display) windows() ([]Window, error) {
	tree, err := xproto.QueryTree(d.conn, d.root).Reply()
	if err != nil {
		return nil, err
	}
	netName, err := d.atom("_NET_WM_NAME")
	if err != nil {
		return nil, err
	}
	n := len(tree.Children)
	attrs := make([]xproto.GetWindowAttributesCookie, n)
	geoms := make([]xproto.GetGeometryCookie, n)
	names := make([]xproto.GetPropertyCookie, n)
	legacy := make([]xproto.GetPropertyCookie, n)
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(d.conn, w)
		geoms[i] = xproto.GetGeometry(d.conn, xproto.Drawable(w))
		names[i] = xproto.GetProperty(d.conn, false, w, netName, xproto.GetPropertyTypeAny, 0, 1024)
		legacy[i] = xproto.GetProperty(d.conn, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, 1024)
	}
	var out []Window
	for i := range n { // read every reply, in order
		a, aerr := attrs[i].Reply()
		g, gerr := geoms[i].Reply()
		nm, _ := names[i].Reply()
		lg, _ := legacy[i].Reply()
		if aerr != nil || gerr != nil || a.MapState != xproto.MapStateViewable {
			continue
		}
		w := Window{X: int(g.X), Y: int(g.Y), W: int(g.Width), H: int(g.Height)}
		if nm != nil && len(nm.Value) > 0 {
			w.Title = string(nm.Value)
		} else if lg != nil {
			w.Title = string(lg.Value)
		}
		out = append(out, w)
	}
	return out, nil
}

// atom interns name.
func (d *Display) atom(name string) (xproto.Atom, error) {
	r, err := xproto.InternAtom(d.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, err
	}
	return r.Atom, nil
}
