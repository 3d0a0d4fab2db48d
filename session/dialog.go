package session

import (
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/tree"
)

// A DialogNamer is a source that can say what a page's own dialog (a
// JavaScript alert, confirm or prompt) asks while it is open, as a node
// standing for it. Accepting that dialog is the page's action, done by the
// agent: a page's confirm("Delete all data?") accepted deletes. The gate
// judges the accept on this node, as --confirm judges a click on a button.
type DialogNamer interface {
	// OpenDialog is the open dialog of the current page, or nil.
	OpenDialog() *tree.Node
}

// dialogReached is what accepting a page's own dialog reaches, for the
// gate: a node standing for the dialog and a page holding only it, or
// nils for any other action or no open dialog.
func (s *Session) dialogReached(a action.Action, before *tree.Snapshot) (*tree.Node, *tree.Snapshot) {
	dn, ok := s.src.(DialogNamer)
	if a.Kind != action.Dialog || a.Nav != "accept" || !ok {
		return nil, nil
	}
	n := dn.OpenDialog()
	if n == nil {
		return nil, nil
	}
	// Selectors match targetable nodes under a root: give the stand-in an
	// identity and a page of its own.
	d := *n
	if d.Ref == "" && d.Key == "" {
		d.Key = "page-dialog"
	}
	page := &tree.Snapshot{Root: &tree.Node{Role: "document", Children: []*tree.Node{&d}}}
	if before != nil {
		page.Header = before.Header
	}
	return &d, page
}
