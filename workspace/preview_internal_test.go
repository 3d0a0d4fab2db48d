package workspace

import (
	"slices"
	"testing"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// TestPreviewPieces: the preview's Block is work in flight in the
// workspace until the desktop shows the preview (other Blocks still end
// the settle), its controls are told by role and state, and its outcome
// line is replaced only when no preview showed.
func TestPreviewPieces(t *testing.T) {
	if !isPreview(settle.Event{Kind: settle.Block, Key: browser.PreviewKey}) || isPreview(settle.Event{Kind: settle.Block}) {
		t.Error("isPreview does not tell the preview's Block from a dialog's")
	}
	for _, shown := range []bool{true, false} {
		m := &merged{events: make(chan settle.Event, 4), preview: &previewState{}, awaitPreview: func() bool { return shown }}
		if e := m.previewAsked(); e.Kind != settle.Busy || e.Key != browser.PreviewKey || e.Hold != previewWait {
			t.Errorf("the preview's Block became %+v, want work held for %s", e, previewWait)
		}
		m.previewAsked() // a second Block starts no second wait
		m.previewWG.Wait()
		if e := <-m.events; e.Kind != settle.Idle || e.Key != browser.PreviewKey || len(m.events) != 0 {
			t.Errorf("after the wait (shown=%v): %+v and %d more events, want one Idle", shown, e, len(m.events))
		}
		if missed := m.preview.take(); missed == shown {
			t.Errorf("shown=%v: missed=%v", shown, missed)
		}
	}

	doc := func(kids ...*tree.Node) *tree.Node { return &tree.Node{Role: tree.RoleDocument, Children: kids} }
	combo := &tree.Node{Role: "combobox", Name: "Destination"}
	off := &tree.Node{Role: "button", Name: "Save", States: tree.Disabled}
	on := &tree.Node{Role: "button", Name: "Cancel"}
	for _, tc := range []struct {
		doc  *tree.Node
		want bool
	}{
		{doc(&tree.Node{Role: tree.RoleText, Name: "Loading preview"}), false},
		{doc(combo, off), false},
		{doc(combo, off, on), true},
		{doc(&tree.Node{Role: "section", Children: []*tree.Node{combo}}, on), true},
		// Half drawn: a combo box still disabled, though a button is not.
		{doc(&tree.Node{Role: "combobox", Name: "Pages", States: tree.Disabled}, on), false},
		{doc(combo, &tree.Node{Role: "combobox", Name: "Pages", States: tree.Disabled}, on), false},
	} {
		if got := hasControls(tc.doc); got != tc.want {
			t.Errorf("hasControls(%s) = %v, want %v", tree.Line(tc.doc), got, tc.want)
		}
	}

	lines := []string{"opened tab 2", browser.PreviewOutcome}
	if got := previewOutcomes(slices.Clone(lines), false); !slices.Equal(got, lines) {
		t.Errorf("shown preview: %q", got)
	}
	if got := previewOutcomes(slices.Clone(lines), true); !slices.Equal(got, []string{"opened tab 2", noPreview}) {
		t.Errorf("missed preview: %q", got)
	}
}
