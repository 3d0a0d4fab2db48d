//go:build linux

package desktop

import (
	"fmt"
	"strings"

	"github.com/canopy-dev/canopy/keys"
	"github.com/canopy-dev/canopy/policy"
)

// Pasting is reading: the clipboard may hold what the user copied before
// the session (a password from a password manager), and a paste puts it
// into the page or app the agent drives and into the reply. Below the
// sensitive tier, a paste shortcut pastes only text the agent chose:
// what canopy wrote (the clipboard action), or what an application copied
// on the agent's own copy keys. It is told by the clipboard's owner: the
// owner before the agent's last copy is not the agent's.

// copyMark is what the desktop knows of the agent's last copy: the window
// that owned the clipboard before it (set: there was one).
type copyMark struct {
	set    bool
	before uint32
}

// notePress remembers, before keys are pressed, who owns the clipboard
// when they copy: an owner other than that one afterwards got the
// clipboard from the agent's copy.
func (d *Desktop) notePress(chords []keys.Chord) {
	if !keys.Copies(chords) {
		return
	}
	c, err := d.clipboard()
	if err != nil {
		return
	}
	owner, _, err := c.Owner()
	if err != nil {
		return
	}
	d.mu.Lock()
	d.copied = copyMark{set: true, before: owner}
	d.mu.Unlock()
}

// checkPaste refuses, below the sensitive tier, keys that paste text the
// agent did not choose: another program owns the clipboard, and it did not
// take it on the agent's copy. An empty clipboard pastes nothing and
// passes.
func (d *Desktop) checkPaste(p *policy.Permit, spec string, chords []keys.Chord) error {
	if !keys.Pastes(chords) || p.PastesAnything() {
		return nil
	}
	why := "the clipboard cannot be asked who filled it"
	if c, err := d.clipboard(); err == nil {
		owner, ours, err := c.Owner()
		d.mu.Lock()
		copied := d.copied
		d.mu.Unlock()
		switch {
		case err != nil:
		case owner == 0, ours, copied.set && owner != copied.before:
			return nil
		default:
			why = "another program's text is on the clipboard, not canopy's or the agent's own copy"
		}
	}
	return fmt.Errorf("press %s needs the sensitive tier: %s, and pasting it reads it (write the text with the clipboard action, or --allow sensitive): %w",
		strings.TrimSpace(spec), why, policy.ErrDenied)
}
