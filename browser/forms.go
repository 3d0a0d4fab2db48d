package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tree"
)

// selectNativeJS picks an option of a <select> by its label, text or value
// (case-insensitive, spaces collapsed) and fires input and change, as a
// user's choice does. It returns "" or why it could not.
const selectNativeJS = `function(want) {
  if (this.localName !== 'select') return 'not-native';
  const norm = s => (s || '').replace(/\s+/g, ' ').trim().toLowerCase();
  const w = norm(want);
  const opts = Array.from(this.options);
  const o = opts.find(o => norm(o.label) === w || norm(o.text) === w) || opts.find(o => norm(o.value) === w);
  if (!o) return 'it has no option ' + JSON.stringify(want) + '; options: ' + opts.map(o => JSON.stringify(o.label || o.text)).join(', ');
  if (o.disabled) return 'the option ' + JSON.stringify(want) + ' is disabled';
  if (this.disabled) return 'it is disabled';
  o.selected = true;
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}`

// selectOption chooses an option: a native <select> directly, an ARIA
// listbox or combobox by clicking it open and clicking the option.
func (b *Browser) selectOption(ctx context.Context, tab cdp.Session, h *handle, option string) error {
	if err := needNode(h, action.Select); err != nil {
		return err
	}
	if _, _, err := b.point(ctx, h, false); err != nil {
		return err
	}
	var why string
	if err := h.call(ctx, selectNativeJS, &why, option); err != nil {
		return err
	}
	switch why {
	case "":
		return nil
	case "not-native":
	default:
		return &session.ActionError{Reason: why}
	}
	// An ARIA widget: the option may already be in the tree (a listbox),
	// or appear once the combobox is opened.
	opt := findOption(h.node, option)
	if opt == nil {
		x, y, err := b.point(ctx, h, true)
		if err != nil {
			return err
		}
		if err := click(ctx, tab, x, y, input.MouseButtonLeft, 1); err != nil {
			return err
		}
		snap, _, err := b.Snapshot(ctx, SnapshotOptions{})
		if err != nil {
			return err
		}
		opt = findOption(snap.Root, option)
	}
	if opt == nil {
		return &session.ActionError{Reason: fmt.Sprintf("no option %q appeared", option)}
	}
	oh, err := b.handleOf(ctx, opt)
	if err != nil {
		return err
	}
	x, y, err := b.point(ctx, oh, true)
	if err != nil {
		return err
	}
	return click(ctx, tab, x, y, input.MouseButtonLeft, 1)
}

// findOption finds an option node under root by its name.
func findOption(root *tree.Node, name string) *tree.Node {
	want := strings.ToLower(tree.CollapseSpace(name))
	return tree.Find(root, func(n *tree.Node) bool {
		return (n.Role == "option" || n.Role == "menuitem" || n.Role == "menuitemradio") && strings.ToLower(tree.CollapseSpace(n.Name)) == want
	})
}

// setValueJS sets the value of an input, textarea, select or editable
// element through the native setter (so frameworks that track the value
// notice) and fires input and change.
const setValueJS = `function(v) {
  const el = this;
  if (el.isContentEditable) { el.textContent = v; el.dispatchEvent(new Event('input', {bubbles: true})); return ''; }
  const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype :
    el.localName === 'select' ? HTMLSelectElement.prototype :
    el.localName === 'input' ? HTMLInputElement.prototype : null;
  if (!proto) return 'it is a ' + el.localName + ', which has no value';
  if (el.disabled) return 'it is disabled';
  if (el.readOnly) return 'it is read-only';
  Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);
  if (el.localName !== 'select' && el.type !== 'file' && String(el.value) !== String(v)) return 'it did not take the value ' + JSON.stringify(v) + ' (it holds ' + JSON.stringify(el.value) + ')';
  el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}`

// setValue sets a control's value directly: sliders, date and colour
// pickers, and fields where typing is not the point.
func setValue(ctx context.Context, h *handle, v string) error {
	if err := needNode(h, action.SetValue); err != nil {
		return err
	}
	var why string
	if err := h.call(ctx, setValueJS, &why, v); err != nil {
		return err
	}
	if why != "" {
		return &session.ActionError{Reason: why}
	}
	return nil
}

// upload puts files into a file input.
func upload(ctx context.Context, h *handle, paths []string) error {
	if err := needNode(h, action.Upload); err != nil {
		return err
	}
	var abs []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("upload %s: %w", p, err)
		}
		st, err := os.Stat(a)
		if err != nil {
			return fmt.Errorf("upload: no file %s", a)
		}
		if st.IsDir() {
			return fmt.Errorf("upload: %s is a folder, not a file", a)
		}
		abs = append(abs, a)
	}
	var kind string
	if err := h.call(ctx, `function() { return this.localName === 'input' ? (this.type || '') : this.localName; }`, &kind); err != nil {
		return err
	}
	if kind != "file" {
		return &session.ActionError{Reason: fmt.Sprintf("it is not a file input (it is %s)", kind)}
	}
	_, err := cdp.Call(ctx, h.t, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: abs, BackendNodeID: h.id})
	return staleOr(err)
}

// drag drags the node onto another with the mouse; a native HTML5 drag is
// intercepted and completed with drag events (chromedp's DragAndDropXY).
func (b *Browser) drag(ctx context.Context, tab cdp.Session, h *handle, to *tree.Node) error {
	if err := needNode(h, action.Drag); err != nil {
		return err
	}
	if to == nil {
		return fmt.Errorf("drag needs a drop target")
	}
	th, err := b.handleOf(ctx, to)
	if err != nil {
		return err
	}
	// Measuring the source first scrolls it into view.
	if _, _, err := b.point(ctx, h, true); err != nil {
		return err
	}
	tx, ty, err := b.point(ctx, th, false)
	if err != nil {
		return fmt.Errorf("the drop target %s: %w", tree.Line(to), err)
	}
	// The drop target may have scrolled the source away: measure it again.
	fx, fy, err := b.point(ctx, h, true)
	if err != nil {
		return err
	}
	t, ok := tab.(*chromedp.Target)
	if !ok {
		return fmt.Errorf("drag needs the tab's session")
	}
	_, err = chromedp.DragAndDropXY(fx, fy, tx, ty)(ctx, t)
	return err
}
