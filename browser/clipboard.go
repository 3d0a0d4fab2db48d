package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/session"
)

// The browser alone (no desktop) has a clipboard of its own: a headless
// Chromium keeps one in memory, which the page's Ctrl+C and Ctrl+V use,
// and which nothing but a page reaches, through navigator.clipboard. So
// canopy reaches it through the current page, from a world of its own
// (the page cannot wrap navigator.clipboard to see or change the text):
//
//   - The page must be a secure context (https, or served from this
//     machine): navigator.clipboard exists only there.
//   - The document must have focus, which a headless page lacks until it
//     gets keyboard input: focus is emulated for the call.
//   - Reading needs the clipboard-read permission for the page's origin:
//     it is granted for the call and set back to what it was after.
//
// On the desktop the clipboard is the X one (package desktop), which a
// headful Chromium's pages share.

// clipboardWorld names the isolated world the clipboard is reached from.
const clipboardWorld = "canopy-clipboard"

// clipboardText writes a.Text to the browser's clipboard, or, with no
// text, reads it.
func (b *Browser) clipboardText(ctx context.Context, a action.Action) (session.Output, error) {
	tab := chromedpTarget(b.tabCtx())
	world, err := isolatedWorld(ctx, tab, clipboardWorld)
	if err != nil {
		return session.Output{}, fmt.Errorf("clipboard: %w", err)
	}
	var secure bool
	if err := evalIn(ctx, tab, world, `isSecureContext`, &secure); err != nil {
		return session.Output{}, fmt.Errorf("clipboard: %w", err)
	}
	if !secure {
		return session.Output{}, fmt.Errorf("clipboard: the page (%s) is not https or local, and a headless browser's clipboard can only be reached from such a page; open one first, or run with the desktop (canopy mcp --desktop), whose clipboard is always reachable", b.curTabURL())
	}
	if _, err := cdp.Call(ctx, tab, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		return session.Output{}, fmt.Errorf("clipboard: focus the page: %w", err)
	}
	defer cdp.Call(context.WithoutCancel(ctx), tab, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: false})
	if a.Text != "" {
		arg, _ := json.Marshal(a.Text)
		if err := evalIn(ctx, tab, world, `navigator.clipboard.writeText(`+string(arg)+`)`, nil); err != nil {
			return session.Output{}, fmt.Errorf("write the clipboard: %w", err)
		}
		return session.Output{Outcomes: []string{session.ClipboardWritten(a.Text)}}, nil
	}
	restore, err := b.allowClipboardRead(ctx, tab, world)
	if err != nil {
		return session.Output{}, fmt.Errorf("read the clipboard: %w", err)
	}
	defer restore()
	var text string
	if err := evalIn(ctx, tab, world, `navigator.clipboard.readText()`, &text); err != nil {
		return session.Output{}, fmt.Errorf("read the clipboard: %w", err)
	}
	if text == "" {
		return session.Output{Outcomes: []string{"the clipboard holds no text"}}, nil
	}
	return session.Output{Text: text}, nil
}

// allowClipboardRead grants the page's origin clipboard-read for the
// call; restore sets it back to what the page had (asking, or denied).
func (b *Browser) allowClipboardRead(ctx context.Context, tab cdp.Session, world runtime.ExecutionContextID) (restore func(), err error) {
	var state string
	if err := evalIn(ctx, tab, world, `navigator.permissions.query({name: 'clipboard-read'}).then(s => s.state)`, &state); err != nil {
		return nil, err
	}
	if state == "granted" {
		return func() {}, nil
	}
	origin, err := b.permissionOrigin("")
	if err != nil {
		return nil, err
	}
	c := chromedp.FromContext(b.browserCtx)
	if c == nil || c.Browser == nil {
		return nil, errors.New("the browser is not running")
	}
	set := func(ctx context.Context, s cdpbrowser.PermissionSetting) error {
		return b.setDescriptor(ctx, c.Browser, "clipboard-read", s, origin)
	}
	if err := set(ctx, cdpbrowser.PermissionSettingGranted); err != nil {
		return nil, err
	}
	before := cdpbrowser.PermissionSettingPrompt
	if state == "denied" {
		before = cdpbrowser.PermissionSettingDenied
	}
	return func() { _ = set(context.WithoutCancel(ctx), before) }, nil
}

// isolatedWorld makes a world of canopy's own in the tab's main frame: it
// shares the page's DOM but none of its scripts.
func isolatedWorld(ctx context.Context, tab cdp.Session, name string) (runtime.ExecutionContextID, error) {
	ft, err := cdp.Call(ctx, tab, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return 0, err
	}
	w, err := cdp.Call(ctx, tab, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: ft.FrameTree.Frame.ID, WorldName: name})
	if err != nil {
		return 0, err
	}
	return w.ExecutionContextID, nil
}

// evalIn evaluates expr in a world, as if the user had just acted (some
// APIs need that), awaits a promise, and decodes the value into out
// (nil: ignore it).
func evalIn(ctx context.Context, tab cdp.Session, world runtime.ExecutionContextID, expr string, out any) error {
	res, err := cdp.Call(ctx, tab, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: world, ReturnByValue: new(true), AwaitPromise: new(true), UserGesture: new(true),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New(exceptionText(res.ExceptionDetails))
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}
