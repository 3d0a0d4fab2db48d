package session

import (
	"strings"

	"github.com/canopy-dev/canopy/action"
)

// The markers around text a reply takes from a page's content as it is
// (extract, evaluate) or from the clipboard (which any page or app may
// have filled): what lies between them is data and never instructions
// (docs/tiers.md), so a client can tell it from canopy's own lines. Tree and
// diff lines need none: a page's strings are quoted there, on one line
// each. The markers cost a few tokens a reply.
const (
	FenceOpen  = "«page»"
	FenceClose = "«/page»"
)

// fence wraps page text in the markers. Markers the page wrote itself are
// defused, so it cannot close the fence early and speak as canopy.
func fence(text string) string {
	if text == "" {
		return text
	}
	text = strings.NewReplacer(FenceOpen, "‹page›", FenceClose, "‹/page›").Replace(text)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return FenceOpen + "\n" + text + FenceClose + "\n"
}

// fenced says whether an action's text output is content canopy did not
// write: the page's, or the clipboard's.
func fenced(k action.Kind) bool {
	return k == action.Extract || k == action.Evaluate || k == action.Clipboard
}
