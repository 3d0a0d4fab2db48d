package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
	"github.com/canopy-dev/canopy/tokens"
)

// newSession loads path in a fresh browser and returns the executor over it.
func newSession(t *testing.T, path string) (*Browser, *session.Session) {
	t.Helper()
	b := newBrowser(t)
	load(t, b, path)
	return b, session.New(b.Source(), policy.New(action.Act), session.Options{})
}

// run parses one step and runs it, failing the test on error.
func run(t *testing.T, s *session.Session, step string) session.Reply {
	t.Helper()
	r, err := runErr(t, s, step)
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	return r
}

func runErr(t *testing.T, s *session.Session, step string) (session.Reply, error) {
	t.Helper()
	steps, err := action.ParseSteps(step)
	if err != nil {
		t.Fatalf("parse %q: %v", step, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.Run(ctx, steps[0])
}

// TestFlowLoginDashboard is the scripted flow of the issue: sign in, land on
// the dashboard, open a confirm dialog, confirm, go back — each diff
// asserted against a golden file and the page state read back over CDP.
func TestFlowLoginDashboard(t *testing.T) {
	b, s := newSession(t, "/app-login.html")
	var transcript, replies strings.Builder
	step := func(st string) session.Reply {
		r := run(t, s, st)
		fmt.Fprintf(&transcript, "> %s\n%s\n", st, stable(r.Text))
		replies.WriteString(r.Text)
		return r
	}
	r := step(`type role:textbox name:Email "ada@acme.test"`)
	if !strings.Contains(r.Text, `~ textbox "Email" e`) || !strings.Contains(r.Text, `value "" → "ada@acme.test"`) {
		t.Errorf("typing the email: %q", r.Text)
	}
	step(`type role:textbox name:Password "hunter22"`)
	if got := eval[string](t, b, `document.getElementById('password').value`); got != "hunter22" {
		t.Errorf("password field holds %q", got)
	}
	r = step(`click role:button name:"Sign in"`)
	if !r.Replaced || !strings.HasPrefix(r.Text, "navigated /app-login.html → /dashboard.html") {
		t.Errorf("signing in: replaced=%v %q", r.Replaced, r.Text)
	}
	if strings.Contains(replies.String(), "hunter22") {
		t.Errorf("the password leaked into a reply:\n%s", replies.String())
	}
	r = step(`click role:listitem text:Borealis >> role:button name:Delete`)
	if !strings.HasPrefix(r.Text, `opened dialog "Confirm delete"`) || strings.Contains(r.Text, "\n- ") {
		t.Errorf("opening the dialog should add it and remove nothing: %q", r.Text)
	}
	if open := eval[bool](t, b, `document.getElementById('confirm').open`); !open {
		t.Error("the dialog is not open")
	}
	r = step(`click role:dialog >> role:button name:Delete`)
	if !strings.HasPrefix(r.Text, `closed dialog "Confirm delete"`) || !strings.Contains(r.Text, `"Deleted Borealis"`) {
		t.Errorf("confirming: %q", r.Text)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#projects li').length`); n != 2 {
		t.Errorf("%d projects left, want 2", n)
	}
	r = step(`navigate back`)
	if !strings.HasPrefix(r.Text, "navigated /dashboard.html") || !strings.Contains(r.Text, `form "Login"`) {
		t.Errorf("going back: %q", r.Text)
	}
	golden(t, "flow-login-dashboard", transcript.String())
}

// TestFlowGrid runs a 20-step editing session on the 1,000-row grid and
// checks that the replies cost a small part of re-reading the page after
// every step.
func TestFlowGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("20 steps on a 1,000-row page")
	}
	b, s := newSession(t, "/grid.html")
	snap, err := s.Run(context.Background(), action.Action{Kind: action.Snapshot})
	if err != nil {
		t.Fatal(err)
	}
	counter, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	perSnapshot := counter.Count(snap.Text)
	steps := []string{
		`click role:button name:"Edit User 0042"`,
		`type role:row name~:"42 |" >> role:textbox name:Name "Alice Smith" clear`,
		`click role:button name:Save`,
		`click role:button name:"Delete User 0007"`,
		`dialog dismiss`,
		`click role:button name:"Delete User 0007"`,
		`dialog accept`,
		`click role:button name:"Edit User 0100"`,
		`type role:textbox name:Name "Bob Jones" clear`,
		`click role:button name:Save`,
		`click role:button name:"Edit User 0500"`,
		`type role:textbox name:Name "Carol" clear submit`,
		`click role:button name:Save`,
		`scroll role:button name:"Edit User 0999"`,
		`click role:button name:"Edit User 0999"`,
		`type role:textbox name:Name "Dan" clear`,
		`click role:button name:Save`,
		`click role:button name:"Delete Alice Smith"`,
		`dialog accept`,
		`find role:button name~:"Edit Bob"`,
	}
	total := 0
	var transcript strings.Builder
	for _, st := range steps {
		r := run(t, s, st)
		n := counter.Count(r.Text)
		total += n
		fmt.Fprintf(&transcript, "> %s\n%s\n", st, stable(r.Text))
	}
	golden(t, "flow-grid", transcript.String())
	t.Logf("20 steps: %d observation tokens; re-reading the default snapshot each step: %d (%.1f%%)",
		total, perSnapshot*len(steps), 100*float64(total)/float64(perSnapshot*len(steps)))
	if total*10 > perSnapshot*len(steps) {
		t.Errorf("20 steps cost %d tokens, more than 10%% of %d snapshots of %d tokens", total, len(steps), perSnapshot)
	}
	names := eval[string](t, b, `[...document.querySelectorAll('#rows .name')].map(c => c.textContent).filter(n => !n.startsWith('User')).join(', ')`)
	if names != "Bob Jones, Carol, Dan" {
		t.Errorf("edited names on the page: %q", names)
	}
	if n := eval[int](t, b, `document.querySelectorAll('#rows tr').length`); n != 998 {
		t.Errorf("%d rows, want 998 after two deletes", n)
	}
}

// TestCoveredButton checks the hit test: a button under a cookie banner
// fails naming the banner, and works once the banner is gone.
func TestCoveredButton(t *testing.T) {
	b, s := newSession(t, "/overlay.html")
	_, err := runErr(t, s, `click role:button name:"Buy now"`)
	var ae *session.ActionError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "covered by") || !strings.Contains(err.Error(), "Accept cookies") {
		t.Fatalf("clicking a covered button: %v", err)
	}
	if got := eval[string](t, b, `document.getElementById('status').textContent`); got != "" {
		t.Errorf("the covered click went through: status %q", got)
	}
	run(t, s, `click role:button name:"Accept cookies"`)
	r := run(t, s, `click role:button name:"Buy now"`)
	if !strings.Contains(r.Text, `"Bought"`) {
		t.Errorf("after the banner: %q", r.Text)
	}
}

// TestNoChange checks that an action with no effect answers one line.
func TestNoChange(t *testing.T) {
	_, s := newSession(t, "/overlay.html")
	run(t, s, `click role:button name:"Accept cookies"`)
	run(t, s, `click role:button name:"Buy now"`)
	if r := run(t, s, `click role:button name:"Buy now"`); r.Text != "no change\n" {
		t.Errorf("a second identical click: %q", r.Text)
	}
}
