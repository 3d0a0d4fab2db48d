//go:build linux

package desktop

import "github.com/canopy-dev/canopy/atspi"

// Chromium draws its bubbles as windows nested in the browser window, and
// two of them say nothing in their role and name that tells an agent what
// they are: the link status bubble (an unnamed frame holding the URL of the
// link under the pointer or the focus, which comes and goes with every
// click on a link) and the download bubble (a "dialog" named "Recent
// download history" in the browser's language, which opens by itself when
// a download ends and needs no answer). Chromium names the class of each
// of its views in the object's attributes ("class": "StatusView"), in
// every language: that is what tells them apart.

// popupKind is what a nested window is.
type popupKind int

const (
	otherPopup     popupKind = iota
	linkStatus               // the link status bubble: left out
	downloadBubble           // the download bubble: a status, named so
)

// downloadBubbleName is the name the download bubble is shown with.
const downloadBubbleName = "Download bubble"

// popupClasses maps the views classes that mark a bubble's content to its
// kind.
var popupClasses = map[string]popupKind{
	"StatusView":                 linkStatus,
	"DownloadBubbleContentsView": downloadBubble,
}

// popupDepth is how deep below a bubble's window its marking view may sit
// (the download bubble's is four levels down: NonClientView,
// BubbleFrameView, DialogClientView).
const popupDepth = 5

// popupOf says what a window nested in another window is, from the views
// classes of its content (read into the items' attributes).
func popupOf(t *atspi.Tree, win *atspi.Item) popupKind {
	var find func(it *atspi.Item, depth int) popupKind
	find = func(it *atspi.Item, depth int) popupKind {
		if k, ok := popupClasses[it.Attributes["class"]]; ok {
			return k
		}
		if depth == popupDepth {
			return otherPopup
		}
		for _, r := range it.Children {
			if c := t.Items[r]; c != nil {
				if k := find(c, depth+1); k != otherPopup {
					return k
				}
			}
		}
		return otherPopup
	}
	return find(win, 0)
}
