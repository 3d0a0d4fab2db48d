package canopy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/session"
)

// TestStuckDeadButton: on a real page, a button that does nothing clicked
// again and again earns a hint, then a warning, then a refusal that never
// reaches the page; a button whose save the server refuses earns a hint
// that says so. Through canopy.Open, as every surface opens a session.
func TestStuckDeadButton(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sess, err := canopy.Open(ctx, canopy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	run := func(a action.Action) (string, error) {
		r, err := sess.Run(ctx, a)
		return r.Text, err
	}
	if _, err := run(action.Action{Kind: action.Navigate, URL: testSite.URL("/failures.html")}); err != nil {
		t.Fatal(err)
	}
	dead := action.Action{Kind: action.Click, Target: "id:dead"}
	var replies []string
	for i := 1; i <= 4; i++ {
		text, err := run(dead)
		if err != nil {
			t.Fatalf("click %d: %v", i, err)
		}
		replies = append(replies, text)
	}
	if replies[0] != "no change\n" || replies[1] != "no change\n" {
		t.Errorf("the first clicks: %q", replies[:2])
	}
	if !strings.HasPrefix(replies[2], "no change\nhint: click e") || !strings.Contains(replies[2], "changed nothing 3 times in a row") {
		t.Errorf("3rd click: %q", replies[2])
	}
	if !strings.Contains(replies[3], "\nwarning: ") || !strings.Contains(replies[3], "the next one is refused") {
		t.Errorf("4th click: %q", replies[3])
	}
	if _, err := run(dead); !errors.Is(err, session.ErrStuck) || !strings.HasPrefix(err.Error(), "refused: click e") {
		t.Errorf("5th click: %v", err)
	}
	// Something else resets; the save fails on the server every time.
	save := action.Action{Kind: action.Click, Target: "id:save"}
	var text string
	for i := 1; i <= 3; i++ {
		if text, err = run(save); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if !strings.HasPrefix(text, "request POST /api/save → 500\nhint: click e") ||
		!strings.Contains(text, "a request failed (request POST /api/save → 500)") {
		t.Errorf("3rd save: %q", text)
	}
}
