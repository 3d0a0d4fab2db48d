//go:build !linux

package doctor

// The desktop's checks on systems other than Linux: canopy has no desktop
// here yet, which the report notes without failing; the browser works.

import (
	"context"
	"time"

	"github.com/canopy-dev/canopy/desktop"
)

// checkDesktops reports that the desktop is Linux only, as a warning: a
// browser session needs nothing more.
func checkDesktops(ctx context.Context, timeout time.Duration) desktopReport {
	return desktopReport{after: []Check{{
		Name:   NameDesktop,
		OK:     true,
		Warn:   true,
		Detail: desktop.ErrUnsupported.Error() + ": canopy drives the browser here, not the desktop's windows",
		Fix:    "run canopy without --desktop",
	}}}
}
