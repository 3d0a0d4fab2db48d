package doctor

// The report: the checks' outcomes, how they print and how they marshal.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Check is the outcome of one check.
type Check struct {
	// Name says what was checked (the Name* constants).
	Name string `json:"name"`
	// OK is false for a problem that keeps canopy from working, and for a
	// check that was skipped.
	OK bool `json:"ok"`
	// Warn marks an OK check with a caveat that Fix addresses (a variable
	// that hides GTK apps, a browser that is not registered).
	Warn bool `json:"warn,omitempty"`
	// Skipped says the check did not run because one it needs failed.
	Skipped bool `json:"skipped,omitempty"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says what to do; empty when there is nothing to do.
	Fix string `json:"fix,omitempty"`
}

// Status is the check's state as printed: "ok", "warn", "FAIL" or "skip".
func (c Check) Status() string {
	switch {
	case c.Skipped:
		return "skip"
	case !c.OK:
		return "FAIL"
	case c.Warn:
		return "warn"
	}
	return "ok"
}

// MarshalJSON adds the status to the fields.
func (c Check) MarshalJSON() ([]byte, error) {
	type plain Check
	return json.Marshal(struct {
		plain
		Status string `json:"status"`
	}{plain(c), c.Status()})
}

// App is one application registered with the accessibility registry.
type App struct {
	Name string `json:"name"`
	// Bus is the application's unique name on the accessibility bus.
	Bus string `json:"bus"`
	// PID is 0 when the bus did not say.
	PID int `json:"pid,omitempty"`
	// Toolkit and Version are the toolkit's ("GTK", "3.24.38"), when the
	// app says.
	Toolkit string `json:"toolkit,omitempty"`
	Version string `json:"version,omitempty"`
	// Error says what the app did not answer, if anything.
	Error string `json:"error,omitempty"`
}

// String is the app as the report lists it: "zenity (pid 12, GTK 3.24.38)".
func (a App) String() string {
	name := a.Name
	if name == "" {
		name = "(unnamed " + a.Bus + ")"
	}
	var extra []string
	if a.PID > 0 {
		extra = append(extra, "pid "+strconv.Itoa(a.PID))
	}
	// Chromium's toolkit is "Chromium 1.0", which says nothing.
	if tk := strings.TrimSpace(a.Toolkit + " " + a.Version); tk != "" && !strings.EqualFold(a.Toolkit, a.Name) {
		extra = append(extra, tk)
	}
	if a.Error != "" {
		extra = append(extra, a.Error)
	}
	if len(extra) == 0 {
		return name
	}
	return name + " (" + strings.Join(extra, ", ") + ")"
}

// Report is the outcome of Run: the checks in a fixed order, and the
// registered applications.
type Report struct {
	Checks []Check
	Apps   []App
}

// OK reports whether no check failed (warnings are fine).
func (r Report) OK() bool { return len(r.Problems()) == 0 }

// Problems returns the failed checks, skipped ones included.
func (r Report) Problems() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.OK {
			out = append(out, c)
		}
	}
	return out
}

// Check returns the check named name.
func (r Report) Check(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Err is nil when the report is OK, else an error wrapping ErrProblems that
// names the failed checks.
func (r Report) Err() error {
	if r.OK() {
		return nil
	}
	var names []string
	for _, c := range r.Problems() {
		if !c.Skipped {
			names = append(names, c.Name)
		}
	}
	return fmt.Errorf("%w: %s", ErrProblems, strings.Join(names, ", "))
}

// Format renders the report as text, one line per check:
//
//	ok   display        :1 (Xvfb 1280x1024, XTEST 2.2)
//	FAIL browser        no chromium … — fix: apt-get install chromium …
func (r Report) Format() string {
	w := 0
	for _, c := range r.Checks {
		w = max(w, len(c.Name))
	}
	var b strings.Builder
	for _, c := range r.Checks {
		line := fmt.Sprintf("%-4s %-*s %s", c.Status(), w+1, c.Name, c.Detail)
		if c.Fix != "" {
			line += " — fix: " + c.Fix
		}
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// MarshalJSON writes {"ok": …, "checks": […], "apps": […]}.
func (r Report) MarshalJSON() ([]byte, error) {
	checks, apps := r.Checks, r.Apps
	if checks == nil {
		checks = []Check{}
	}
	if apps == nil {
		apps = []App{}
	}
	return json.Marshal(struct {
		OK     bool    `json:"ok"`
		Checks []Check `json:"checks"`
		Apps   []App   `json:"apps"`
	}{r.OK(), checks, apps})
}
