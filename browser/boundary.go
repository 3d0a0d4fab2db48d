package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/session"
)

// printPDF makes the current page a PDF, for the executor to save
// (package save): at a.Path, or under the page's title in the downloads
// folder, never over a file that is there already.
//
// Page.printToPDF works headless and headful alike, and does not open the
// print preview: nothing on screen changes.
func (b *Browser) printPDF(ctx context.Context, a action.Action) (session.Output, error) {
	tab := chromedpTarget(b.tabCtx())
	defer b.curTab().watchOrNil().ownPrint()()
	res, err := cdp.Call(ctx, tab, page.PrintToPDF, page.PrintToPDFParams{PrintBackground: new(true)})
	if err != nil {
		return session.Output{}, fmt.Errorf("print the page: %w", err)
	}
	name := ""
	if a.Path == "" {
		title := ""
		if info := b.tabInfo(ctx); info != nil {
			title = info.Title // from the browser: the page may be busy
		}
		name = fileName(title, "page") + ".pdf"
	}
	return session.Output{File: &session.File{Name: name, Data: res.Data}}, nil
}

// fileName makes a title into a file name: no path separators or control
// characters, at most 80 runes; fallback when nothing is left.
func fileName(title, fallback string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, title)
	clean = strings.Join(strings.Fields(clean), " ")
	if rs := []rune(clean); len(rs) > 80 {
		clean = string(rs[:80])
	}
	clean = strings.Trim(clean, ". ")
	if clean == "" {
		return fallback
	}
	return clean
}

// permissions grants, denies or resets permissions for an origin: the
// page's own unless a.Origin names one. Reset applies to every origin
// (the browser resets them all at once).
func (b *Browser) permissions(ctx context.Context, a action.Action) (session.Output, error) {
	c := chromedp.FromContext(b.browserCtx)
	if c == nil || c.Browser == nil {
		return session.Output{}, errors.New("the browser is not running")
	}
	origin, err := b.permissionOrigin(a.Origin)
	if err != nil {
		return session.Output{}, err
	}
	var lines []string
	if a.Reset {
		if _, err := cdp.Call(ctx, c.Browser, cdpbrowser.ResetPermissions, cdpbrowser.ResetPermissionsParams{BrowserContextID: b.browserContext}); err != nil {
			return session.Output{}, fmt.Errorf("reset permissions: %w", err)
		}
		lines = append(lines, "reset every site's permissions to asking")
	}
	for _, set := range []struct {
		names   []string
		setting cdpbrowser.PermissionSetting
		verb    string
	}{{a.Grant, cdpbrowser.PermissionSettingGranted, "granted"}, {a.Deny, cdpbrowser.PermissionSettingDenied, "denied"}} {
		if len(set.names) == 0 {
			continue
		}
		for _, name := range set.names {
			if err := b.setPermission(ctx, c.Browser, name, set.setting, origin); err != nil {
				return session.Output{}, err
			}
		}
		lines = append(lines, fmt.Sprintf("%s %s to %s", set.verb, strings.Join(set.names, ", "), trimScheme(origin)))
	}
	return session.Output{Text: strings.Join(lines, "\n") + "\n"}, nil
}

// setPermission sets each of the browser's permissions behind name.
func (b *Browser) setPermission(ctx context.Context, br *chromedp.Browser, name string, setting cdpbrowser.PermissionSetting, origin string) error {
	types, ok := action.PermissionTypes[name]
	if !ok {
		return action.CheckPermissions([]string{name})
	}
	for _, t := range types {
		if err := b.setDescriptor(ctx, br, t, setting, origin); err != nil {
			if origin == "" {
				origin = "every site"
			}
			return fmt.Errorf("set %s for %s: %w", name, trimScheme(origin), err)
		}
	}
	return nil
}

// setDescriptor sets one of the browser's permission descriptors
// ("clipboard-read") for origin ("" is every origin) in canopy's browser
// context.
func (b *Browser) setDescriptor(ctx context.Context, br *chromedp.Browser, descriptor string, setting cdpbrowser.PermissionSetting, origin string) error {
	_, err := cdp.Call(ctx, br, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: descriptor}, Setting: setting,
		Origin: origin, BrowserContextID: b.browserContext,
	})
	return err
}

// permissionOrigin is the origin a permissions action applies to: the one
// given (a URL or a bare host:port, taken as http), else the page's.
func (b *Browser) permissionOrigin(given string) (string, error) {
	raw := given
	if raw == "" {
		raw = b.curTabURL()
	} else if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if given == "" {
			return "", fmt.Errorf("the page (%s) has no web origin: name one with origin, e.g. https://example.com", raw)
		}
		return "", fmt.Errorf("origin %q is not a web origin such as https://example.com", given)
	}
	return u.Scheme + "://" + u.Host, nil
}

// grantAhead grants the named permissions to every origin (Options.Grant).
func (b *Browser) grantAhead(ctx context.Context, names []string) error {
	if err := action.CheckPermissions(names); err != nil {
		return fmt.Errorf("--grant: %w", err)
	}
	c := chromedp.FromContext(b.browserCtx)
	for _, n := range names {
		if err := b.setPermission(ctx, c.Browser, n, cdpbrowser.PermissionSettingGranted, ""); err != nil {
			return fmt.Errorf("--grant: %w", err)
		}
	}
	return nil
}
