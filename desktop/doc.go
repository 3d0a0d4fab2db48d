// Package desktop is canopy's source for the Linux desktop: the AT-SPI2
// accessibility tree of every application (package atspi), shown in the one
// tree model, matched by the one selector grammar and diffed by the one
// differ, like a browser page. The desktop root lists applications,
// applications list their windows, windows hold their controls.
//
// A [Desktop] keeps one event listener for its whole life. The events
// settle actions (wait until the app goes quiet), and they find windows the
// desktop root does not list: Chromium's GTK 3 Save dialog hangs under a
// second application object and is announced only by Window:Create.
//
// Actions use AT-SPI interfaces where the object offers them (Action,
// EditableText, Value, Selection, Component.GrabFocus) and XTEST keyboard
// and pointer input where it does not (package xinput): Chromium's web
// inputs, for one, expose no EditableText.
//
// The desktop is Linux's: the files that call it build only there
// (//go:build linux). On other systems [Open] fails with [ErrUnsupported],
// and the rest of canopy — browser sessions, every surface — builds and
// runs as on Linux.
package desktop
