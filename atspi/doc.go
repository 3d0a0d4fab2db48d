//go:build linux

// Package atspi is canopy's own client of AT-SPI2, the Linux desktop's
// accessibility protocol, spoken over D-Bus (github.com/godbus/dbus/v5). No
// Go library for it exists; this one covers what canopy needs: finding the
// accessibility bus, reading whole application trees fast, listening to
// events, and acting through the Action, EditableText, Text, Value,
// Selection and Component interfaces.
//
// # How the protocol is laid out
//
// The session bus offers org.a11y.Bus, whose GetAddress names a second,
// private bus: the accessibility bus. Every accessible application has a
// connection there; an object is named by that connection's bus name and an
// object path, a [Ref]. The registry (org.a11y.atspi.Registry) owns the
// desktop root, whose children are the applications' roots.
//
// # Gotchas this package handles, so callers need not
//
//   - godbus would auto-launch a session bus when none is set; [Connect]
//     fails instead, saying how to get one (`canopy desktop up`).
//   - ATK applications (GTK 3, Chromium, LibreOffice) create their Cache
//     object only after some client registered an event listener with the
//     registry: [Conn.Listen] before [Conn.ReadApp], or the read falls back
//     to walking the tree.
//   - GTK 3's cache leaves out the children of containers that manage their
//     descendants (table cells), and Chromium's leaves out web content:
//     [Conn.ReadApp] walks whatever the cache misses.
//   - GTK 4 and ATK name the same role differently ("button" and "push
//     button"); the numbers agree, so [Role] is the number.
//   - Every call has a timeout: an application that hangs cannot hang the
//     caller.
//
// Events: Chromium's GTK 3 Save dialog is not under the desktop root at all;
// it is found only through the Window:Create event it sends, which is why a
// listener should be up before anything opens (see [Listener]).
package atspi
