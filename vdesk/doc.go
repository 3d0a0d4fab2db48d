// Package vdesk runs a virtual desktop for headless machines: an Xvfb X
// server and a private D-Bus session bus, with a private XDG_RUNTIME_DIR and
// HOME so that nothing leaks between runs or into the user's own session.
// Desktop applications and the AT-SPI2 accessibility bus (activated on the
// session bus by the first org.a11y.Bus call) run inside it.
//
// The processes Up starts outlive the process that called Up (they run in
// their own session), so `canopy desktop up` can return and a later
// `canopy desktop down` — another process — stops them, guided by the state
// file Dir/desktop.json.
//
// Gotchas a successor should know:
//   - Xvfb's display number is read from -displayfd, never guessed: waiting
//     for /tmp/.X11-unix/XN races with a stale socket of an earlier server.
//   - at-spi-bus-launcher, its own dbus-daemon, at-spi2-registryd and
//     dconf-service are started by the bus, not by us, and some of them
//     outlive the bus. Down finds them (and the user's apps) by the private
//     XDG_RUNTIME_DIR in /proc/PID/environ and stops them by pid.
//   - A process that is killed but not reaped stays a zombie whose /proc
//     entry remains; zombies count as gone (PID 1 of a container may never
//     reap orphans).
//   - GTK4 under Xvfb needs GSK_RENDERER=cairo, and NO_AT_BRIDGE=1 hides
//     GTK3 apps from AT-SPI; Env sets the first, Unset lists the second.
//
// Xvfb, D-Bus and /proc are Linux's: the package builds only there
// (//go:build linux) but for the few names the CLI uses on every system.
// Elsewhere Up and Load fail with [ErrUnsupported].
package vdesk
