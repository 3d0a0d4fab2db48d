//go:build linux

package desktop

import (
	"fmt"

	"github.com/canopy-dev/canopy/tree"
)

// shownWindow is what the desktop remembers of a window a snapshot held:
// where its controls were, for the refusal of their refs once it is gone,
// and the keys of those that had refs.
type shownWindow struct {
	where string
	keys  []string
}

// retireGone compares the windows of a new snapshot with the last one's:
// the refs of controls in a window that is no longer there are retired, so
// an agent's old ref is refused with where it was (`e12 was in dialog
// "Save File" of mousepad, which is gone: take a new snapshot`) instead of
// failing as an unknown ref. A window hidden rather than closed counts as
// gone too: its controls get new refs when it shows again.
func (d *Desktop) retireGone(root *tree.Node) {
	now := map[string]shownWindow{}
	for _, app := range root.Children {
		for _, w := range app.Children {
			if w.Key == "" {
				continue
			}
			var keys []string
			tree.Walk(w, func(n *tree.Node) bool {
				if n.Ref != "" && n.Key != "" {
					keys = append(keys, n.Key)
				}
				return true
			})
			now[w.Key] = shownWindow{where: windowWhere(w, app.Name), keys: keys}
		}
	}
	d.mu.Lock()
	before := d.shown
	d.shown = now
	d.mu.Unlock()
	for k, w := range before {
		if _, ok := now[k]; !ok {
			d.refs.RetireKeys(w.keys, w.where)
		}
	}
}

// windowWhere says where a window's controls were, for a refusal.
func windowWhere(w *tree.Node, app string) string {
	if w.Name == "" {
		return fmt.Sprintf("in a %s of %s, which is gone", w.Role, app)
	}
	return fmt.Sprintf("in %s %q of %s, which is gone", w.Role, w.Name, app)
}
