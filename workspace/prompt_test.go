//go:build linux

package workspace_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/browser"
	"github.com/canopy-dev/canopy/internal/chromiumui"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/workspace"
)

// TestPermissionPrompt: a click that makes the page ask for its location
// has the browser's prompt in its own reply, with an outcome line naming
// the site; clicking the prompt's answer grants it, and the page reads its
// position. The browser's UI language is pinned so the answer can be
// named.
func TestPermissionPrompt(t *testing.T) {
	chromiumui.Relies(t, chromiumui.PermissionChip, chromiumui.PermissionBubble)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, err := workspace.Open(ctx, browser.Options{Args: []string{"--lang=en-US"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	s := session.New(w, policy.New(action.Act), session.Options{})
	do := func(step string) string {
		t.Helper()
		as, err := action.ParseSteps(step)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(ctx, as[0])
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		return r.Text
	}
	do(`navigate "` + testSite.URL("/geo.html") + `"`)
	lat, lon := 48.8584, 2.2945
	if _, err := cdp.Call(ctx, chromedp.FromContext(w.Browser().TabContext()).Target, emulation.SetGeolocationOverride,
		emulation.SetGeolocationOverrideParams{Latitude: &lat, Longitude: &lon, Accuracy: new(1.0)}); err != nil {
		t.Fatal(err)
	}

	r := do(`click role:button name:"Locate me"`)
	host := strings.TrimPrefix(testSite.URL(""), "http://")
	if first, _, _ := strings.Cut(r, "\n"); !strings.HasPrefix(first, "permission prompt: "+host+" ") {
		t.Errorf("the click's reply does not start with the prompt's outcome line:\n%s", r)
	}
	if !regexp.MustCompile(`(?m)^\+ alert ".*` + regexp.QuoteMeta(host) + `.*" e\d+\n(\+ .*\n)*\+   button "Allow this time" e\d+`).MatchString(r) {
		t.Errorf("the click's reply does not hold the prompt and its answers:\n%s", r)
	}

	r = do(`click role:alert >> role:button name:"Allow this time"`)
	if !strings.Contains(r, `"nowhere yet" → "at 48.8584,2.2945"`) || !regexp.MustCompile(`(?m)^- alert `).MatchString(r) {
		t.Errorf("answering the prompt: the page has no position, or the prompt stayed:\n%s", r)
	}
	if strings.Contains(r, "permission prompt:") {
		t.Errorf("the answer was taken for a new prompt:\n%s", r)
	}
}
