//go:build linux

package desktop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/xinput"
)

// An application --apps denies may have no accessibility objects (xterm,
// an Xaw or Motif program): the policy cannot find it in the tree, yet
// keys typed while it holds the focus, or a click at a point over it,
// reach it. The X server knows every window's owner: WM_CLASS, which every
// toolkit sets, and the process (_NET_WM_PID). Input that goes by the X
// server — keys to the focused window, a click at a point — is judged on
// the window that receives it, at every tier.

// checkWindowOwner refuses a's input when the X window it would reach
// belongs to an application --apps denies: the focused window for keys
// with no target, the window at the point for an action at a point.
func (d *Desktop) checkWindowOwner(ctx context.Context, p *policy.Permit, a action.Action, hasTarget bool) error {
	var (
		w    xinput.Window
		ok   bool
		err  error
		what string
	)
	disp, derr := d.display()
	if derr != nil {
		return nil // no X input either: nothing reaches a window
	}
	switch {
	case a.At != "":
		fx, fy, perr := a.Point()
		if perr != nil {
			return nil // the action says so itself
		}
		w, err = disp.WindowAt(ctx, int(fx), int(fy))
		ok, what = err == nil, fmt.Sprintf("%s at %s", a.Kind, a.At)
		err = nil
	case (a.Kind == action.Press || a.Kind == action.Type) && !hasTarget:
		w, ok, err = disp.Focused(ctx)
		what = fmt.Sprintf("%s (the keys go to the focused window)", a.Kind)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: cannot tell which window receives it: %w", a.Kind, err)
	}
	if !ok {
		return nil
	}
	names := ownerNames(w)
	if pat := p.DeniedApp(names...); pat != "" {
		return fmt.Errorf("%s is refused: it reaches a window of %s, an application --apps denies (!%s), at every tier: %w", what, names[0], pat, policy.ErrDenied)
	}
	return nil
}

// ownerNames are the names a window's owner goes by: its WM_CLASS instance
// and class, and its process's name and program file.
func ownerNames(w xinput.Window) []string {
	names := append([]string(nil), w.Class...)
	if w.PID > 0 {
		proc := filepath.Join("/proc", strconv.Itoa(w.PID))
		if comm, err := os.ReadFile(filepath.Join(proc, "comm")); err == nil {
			names = append(names, strings.TrimSpace(string(comm)))
		}
		if exe, err := os.Readlink(filepath.Join(proc, "exe")); err == nil {
			names = append(names, filepath.Base(exe))
		}
	}
	if len(names) == 0 {
		names = append(names, w.Title)
	}
	return names
}
