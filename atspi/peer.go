//go:build linux

package atspi

import (
	"context"
	"strings"
	"sync"

	"github.com/godbus/dbus/v5"
)

// Peer-to-peer connections. ATK's bridge (GTK 3, Chromium, LibreOffice)
// answers Application.GetApplicationBusAddress with the address of a private
// D-Bus server of the application: calls sent there skip the bus daemon,
// which otherwise relays every message twice. The bulk reads (the cache, a
// tree walk, Fill) go peer to peer when the application offers it; single
// calls, actions among them, stay on the bus, so that an action's reply
// still comes after the events the application sent before it (events only
// come over the bus). Object references read over a peer connection name
// the application by its unique name on the bus, as over the bus.

// peers are a connection's peer-to-peer connections, by bus name.
type peers struct {
	mu     sync.Mutex
	m      map[string]*peer
	closed bool // the connection was closed: no more peers
}

// peer is the peer-to-peer connection to one application. ready is closed
// once the connection was tried; conn is nil when there is none (the
// application gives no address, or it could not be dialled, or it broke).
type peer struct {
	ready chan struct{}
	mu    sync.Mutex
	conn  *dbus.Conn
}

// route is where to send calls for one bus name.
type route struct {
	conn *dbus.Conn
	dest string
	peer *peer // nil when the calls go over the bus
}

// routes are the routes of one batch of calls, by bus name.
type routes map[string]route

// object returns r's object on the route of its bus name, opening a peer
// connection to the application when none was tried yet.
func (c *Conn) object(ctx context.Context, rs routes, r Ref) dbus.BusObject {
	rt, ok := rs[r.Bus]
	if !ok {
		rt = c.route(ctx, r.Bus)
		rs[r.Bus] = rt
	}
	return rt.conn.Object(rt.dest, r.Path)
}

// broken reports whether a peer connection of the batch broke, dropping
// it: the batch is then to be sent again, over the bus.
func (c *Conn) broken(rs routes) bool {
	out := false
	for _, rt := range rs {
		if rt.peer != nil && !rt.conn.Connected() {
			rt.peer.drop(rt.conn)
			out = true
		}
	}
	return out
}

// route returns where to send calls for bus: the application's peer
// connection when it has one, the bus otherwise. The first call for an
// application asks it for its address and dials it; the wait is capped by
// ctx (the calls' own cap).
func (c *Conn) route(ctx context.Context, bus string) route {
	onBus := route{conn: c.bus, dest: bus}
	// Only applications have peer connections: unique names, not the
	// registry or the bus daemon.
	if !strings.HasPrefix(bus, ":") {
		return onBus
	}
	c.peers.mu.Lock()
	if c.peers.closed {
		c.peers.mu.Unlock()
		return onBus
	}
	if c.peers.m == nil {
		c.peers.m = map[string]*peer{}
	}
	p := c.peers.m[bus]
	if p == nil {
		p = &peer{ready: make(chan struct{})}
		c.peers.m[bus] = p
		// The dial outlives the caller's context: the connection is the
		// session's, and others wait on it.
		go c.openPeer(context.WithoutCancel(ctx), bus, p)
	}
	c.peers.mu.Unlock()
	select {
	case <-p.ready:
	case <-ctx.Done():
		return onBus
	}
	p.mu.Lock()
	conn := p.conn
	p.mu.Unlock()
	if conn == nil {
		return onBus
	}
	if !conn.Connected() {
		p.drop(conn)
		return onBus
	}
	// godbus always sends a destination header, and an empty one upsets
	// the application's side (calls fail, the connection drops): the
	// application's bus name goes there, which nothing routes by on a peer
	// connection.
	return route{conn: conn, dest: bus, peer: p}
}

// openPeer asks the application for its peer-to-peer address and dials it,
// both within the connection's timeout; p.conn stays nil on any failure.
func (c *Conn) openPeer(ctx context.Context, bus string, p *peer) {
	defer close(p.ready)
	var addr string
	err := c.call(ctx, Ref{Bus: bus, Path: rootPath}, ifApplication+".GetApplicationBusAddress", []any{&addr})
	if err != nil || addr == "" {
		c.log.Debug("atspi: no peer-to-peer address, using the bus", "app", bus, "err", err)
		return
	}
	// A peer is no bus: no Hello.
	conn, err := dial(ctx, addr, c.timeout, false)
	if err != nil {
		c.log.Debug("atspi: cannot dial the app, using the bus", "app", bus, "addr", addr, "err", err)
		return
	}
	c.peers.mu.Lock()
	defer c.peers.mu.Unlock()
	if c.peers.closed {
		conn.Close()
		return
	}
	p.mu.Lock()
	p.conn = conn
	p.mu.Unlock()
}

// drop closes conn and forgets it, so the application's calls go over the
// bus from now on.
func (p *peer) drop(conn *dbus.Conn) {
	p.mu.Lock()
	if p.conn == conn {
		p.conn = nil
	}
	p.mu.Unlock()
	conn.Close()
}

// closeAll closes every peer connection; later routes use the bus.
func (ps *peers) closeAll() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	all := ps.m
	ps.m = nil
	for _, p := range all {
		p.mu.Lock()
		conn := p.conn
		p.conn = nil
		p.mu.Unlock()
		if conn != nil {
			conn.Close()
		}
	}
}
