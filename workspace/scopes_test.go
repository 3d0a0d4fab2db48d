//go:build linux

package workspace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
)

// TestTabScopes: in the one tree of page and desktop, tab: and url: scope
// inside the browser's page as they do in a browser session, and the
// browser's application shows its window only (not the pop-ups Chromium
// keeps "showing" while they are unmapped).
func TestTabScopes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	w, s := openWorkspace(ctx, t)
	if _, err := s.Run(ctx, action.Action{Kind: action.Navigate, URL: testSite.URL("/far-button.html")}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(ctx, action.Action{Kind: action.Snapshot, Target: "app:Chromium"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Text, "not in the accessibility tree") {
		t.Errorf("a window of the browser's is said to be missing:\n%s", r.Text)
	}
	if n := strings.Count(r.Text, "\n  window"); n != 1 || !strings.Contains(r.Text, `window "Far button - Chromium"`) {
		t.Errorf("Chromium shows %d windows, want its one window:\n%s", n, r.Text)
	}
	for sel, want := range map[string]string{
		`tab:1 >> role:button name:"Far button"`: `button "Far button"`,
		`tab:"Far button" >> role:button`:        `button "Far button"`,
		`url~:far-button >> role:button`:         `button "Far button"`,
		`tab:2 >> role:button`:                   "",
		`tab:1 >> role:button name:Reload`:       "", // the browser's toolbar is not in the tab
	} {
		r, err := s.Run(ctx, action.Action{Kind: action.Find, Target: sel})
		if err != nil {
			t.Errorf("find %s: %v", sel, err)
			continue
		}
		if want == "" {
			want = "no element matches"
		}
		if !strings.Contains(r.Text, want) {
			t.Errorf("find %s:\n%s\nwant %q", sel, r.Text, want)
		}
	}
	if _, err := s.Run(ctx, action.Action{Kind: action.Click, Target: `url~:far-button >> role:button name:"Far button"`}); err != nil {
		t.Fatalf("click by url: scope: %v", err)
	}
	var clicked string
	screenEval(ctx, t, w, `document.body.dataset.clicked || ""`, &clicked)
	if clicked == "" {
		t.Error("the click scoped by url: did not reach the page's button")
	}
}
