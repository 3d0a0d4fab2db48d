package workspace

import (
	"slices"
	"testing"

	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/settle"
	"github.com/canopy-dev/canopy/tree"
)

// TestPreviewPieces: the preview's Block is activity in the workspace
// (other Blocks still end the settle), its controls are told by role and
// state, and its outcome line is replaced only when no preview showed.
func TestPreviewPieces(t *testing.T) {
	if e := previewEvent(settle.Event{Kind: settle.Block, Key: browser.PreviewKey}); e.Kind != settle.Mutation {
		t.Errorf("the preview's Block became %+v, want a Mutation", e)
	}
	if e := previewEvent(settle.Event{Kind: settle.Block}); e.Kind != settle.Block {
		t.Errorf("a dialog's Block became %+v", e)
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
