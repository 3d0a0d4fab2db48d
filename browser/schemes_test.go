package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/internal/mimeapps"
)

// schemesPage links to external schemes: mailto: (Chromium hands it over
// without asking), an app's own scheme with a handler, one without, and
// a script that goes to one (which a link watch cannot stop).
const schemesPage = `<!doctype html><title>Schemes</title>
<a href="mailto:someone@example.com">Mail us</a>
<a href="myapp://thing/1">Open in My App</a>
<a href="nohandler:x">Unhandled</a>
<form action="myapp://form"><button>Send to My App</button></form>
<button onclick="document.getElementById('out').textContent = 'count ' + (++window.n)">Count</button>
<button onclick="location.href = 'myapp://scripted'">Scripted</button>
<p id="out">none</p>
<script>window.n = 0</script>`

// fakeDesktop gives the test (and the browser it launches) a desktop of
// its own: XDG folders where Fake Mail handles mailto: and My App
// handles myapp:, nothing else installed. Fake Mail writes the URL it was
// opened with into the returned file.
func fakeDesktop(t *testing.T) (opened string) {
	t.Helper()
	root := t.TempDir()
	apps := filepath.Join(root, "data", "applications")
	if err := os.MkdirAll(apps, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	opened = filepath.Join(root, "opened")
	script := filepath.Join(root, "fakemail")
	files := map[string]string{
		script:                                         "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + ".tmp && mv " + opened + ".tmp " + opened + "\n",
		filepath.Join(apps, "fakemail.desktop"):        "[Desktop Entry]\nType=Application\nName=Fake Mail\nExec=" + script + " %u\nMimeType=x-scheme-handler/mailto;\n",
		filepath.Join(apps, "myapp.desktop"):           "[Desktop Entry]\nType=Application\nName=My App\nExec=true %u\nMimeType=x-scheme-handler/myapp;\n",
		filepath.Join(apps, "othermail.desktop"):       "[Desktop Entry]\nType=Application\nName=Other Mail\nExec=true %u\nMimeType=x-scheme-handler/mailto;\n",
		filepath.Join(root, "config", "mimeapps.list"): "[Default Applications]\nx-scheme-handler/mailto=fakemail.desktop\n",
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("XDG_DATA_DIRS", filepath.Join(root, "none"))
	t.Setenv("XDG_CONFIG_DIRS", filepath.Join(root, "none"))
	t.Setenv("XDG_CURRENT_DESKTOP", "")
	// xdg-open opens apps only with a display to show them on: a name is
	// enough for it (headless Chromium never connects). Without a handler
	// it falls back to $BROWSER.
	t.Setenv("DISPLAY", ":987")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("BROWSER", "true")
	if app, ok := mimeapps.SchemeHandler("mailto"); !ok || app.Name != "Fake Mail" {
		t.Fatalf("the fake desktop's mailto: handler is %+v, %v", app, ok)
	}
	return opened
}

// serveSchemes serves schemesPage on 127.0.0.1 and returns its URL.
func serveSchemes(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, schemesPage)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestExternalSchemes: links to external schemes in headless Chromium end
// the action at once with an outcome line naming the app the desktop
// hands them to. mailto: is handed over (and the handler runs); a scheme
// Chromium would ask about is stopped before it asks, since its hidden
// question would hold the tab; the tab goes on taking input. A script that
// goes to such a scheme does get the tab held: input is refused with the
// reason, and navigate opens the page in a new tab.
func TestExternalSchemes(t *testing.T) {
	opened := fakeDesktop(t)
	page := serveSchemes(t)
	b := newBrowser(t)
	e := &actEnv{t: t, b: b, s: newActSession(b, action.Act)}
	e.must(`navigate "` + page + `"`)

	start := time.Now()
	r := e.must(`click role:link name:"Mail us"`)
	want := "mailto: link handed to the desktop: mailto:someone@example.com opens with Fake Mail (fakemail.desktop)\n"
	if !strings.HasPrefix(r.Text, want) {
		t.Errorf("mailto: click:\n%s\nwant it to start with %q", r.Text, want)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the mailto: click took %s", took)
	}
	if _, err := exec.LookPath("xdg-open"); err == nil {
		// Chromium hands the URL to xdg-open, which runs the handler.
		if got := waitFileText(t, opened, 10*time.Second); got != "mailto:someone@example.com" {
			t.Errorf("Fake Mail was opened with %q", got)
		}
	} else {
		t.Log("no xdg-open here (package xdg-utils): the handler's run is not checked")
	}

	r = e.must(`click role:link name:"Open in My App"`)
	t.Logf("%s:\n%s", `click role:link name:"Open in My App"`, r.Text)
	wantContains(t, "myapp: click", r.Text, "myapp: link not opened: headless Chromium would ask first, with no one to answer; on the desktop myapp://thing/1 opens with My App (myapp.desktop)")
	r = e.must(`click role:link name:Unhandled`)
	t.Logf("%s:\n%s", `click role:link name:Unhandled`, r.Text)
	wantContains(t, "unhandled click", r.Text, "nohandler: link not opened: no app on this desktop handles nohandler:")
	r = e.must(`click role:button name:"Send to My App"`)
	t.Logf("%s:\n%s", `click role:button name:"Send to My App"`, r.Text)
	wantContains(t, "form to myapp:", r.Text, "myapp: link not opened: headless Chromium would ask first")
	if !strings.Contains(r.Text, "myapp://form") {
		t.Errorf("form reply does not name the form's URL:\n%s", r.Text)
	}
	r = e.must(`click role:button name:Count`)
	t.Logf("%s:\n%s", `click role:button name:Count`, r.Text)
	wantContains(t, "a click after the stopped links", r.Text, `"count 1"`)

	// navigate: the same answers.
	r = e.must(`navigate "myapp://from-navigate"`)
	t.Logf("%s:\n%s", `navigate "myapp://from-navigate"`, r.Text)
	wantContains(t, "navigate myapp:", r.Text, "myapp: link not opened: headless Chromium would ask first, with no one to answer; on the desktop myapp://from-navigate opens with My App (myapp.desktop)")
	r = e.must(`navigate "mailto:other@example.com"`)
	t.Logf("%s:\n%s", `navigate "mailto:other@example.com"`, r.Text)
	wantContains(t, "navigate mailto:", r.Text, "mailto: link handed to the desktop: mailto:other@example.com opens with Fake Mail (fakemail.desktop)")
	if got := js[string](t, b, `location.href`); got != page {
		t.Errorf("after navigate to external schemes the tab shows %s", got)
	}

	// No handler for mailto: on this desktop.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	r = e.must(`click role:link name:"Mail us"`)
	t.Logf("%s:\n%s", `click role:link name:"Mail us"`, r.Text)
	wantContains(t, "mailto: click without a handler", r.Text, "mailto: link not opened: no app on this desktop handles mailto:")

	// A script goes to myapp: headless Chromium's hidden question holds
	// the tab.
	r = e.must(`click role:button name:Scripted`)
	t.Logf("%s:\n%s", `click role:button name:Scripted`, r.Text)
	wantContains(t, "scripted myapp:", r.Text, "myapp: link not opened: headless Chromium asks first in a dialog no one can see, which holds the tab")
	msg := e.fails(`click role:button name:Count`)
	wantContains(t, "input to the held tab", msg, "holds this tab", "myapp:", "navigate or reload")
	r = e.must(`reload`)
	t.Logf("%s:\n%s", `reload`, r.Text)
	wantContains(t, "reload of the held tab", r.Text, "closed the tab whose page was held by headless Chromium's hidden question about a myapp: link")
	r = e.must(`click role:button name:Count`)
	t.Logf("%s:\n%s", `click role:button name:Count`, r.Text)
	wantContains(t, "a click in the new tab", r.Text, `"count 1"`)
}

// waitFileText waits, up to limit, for a file to appear and returns its text.
func waitFileText(t *testing.T, path string, limit time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			return string(data)
		}
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not appear within %s", path, limit)
		case <-tick.C:
		}
	}
}

// TestSchemeLine: the outcome line of each way an external URL ends.
func TestSchemeLine(t *testing.T) {
	if !xdgDesktop {
		t.Skip("the lines name XDG desktop entries")
	}
	saved := schemeHandler
	t.Cleanup(func() { schemeHandler = saved })
	schemeHandler = func(scheme string) (mimeapps.App, bool) {
		switch scheme {
		case "mailto":
			return mimeapps.App{ID: "thunderbird.desktop", Name: "Thunderbird"}, true
		case "myapp", "vbscript":
			return mimeapps.App{ID: "myapp.desktop", Name: "My App"}, true
		}
		return mimeapps.App{}, false
	}
	headful := schemeSetting{}
	headless := schemeSetting{headless: true}
	stopped := schemeSetting{headless: true, end: schemeStopped}
	for _, tc := range []struct {
		url  string
		set  schemeSetting
		want string
	}{
		{"mailto:a@b.c", headful, "mailto: link handed to the desktop: mailto:a@b.c opens with Thunderbird (thunderbird.desktop)"},
		{"mailto:a@b.c", headless, "mailto: link handed to the desktop: mailto:a@b.c opens with Thunderbird (thunderbird.desktop)"},
		{"mailto:a@b.c", schemeSetting{headless: true, noDisplay: true}, "mailto: link not opened: the browser handed it to the desktop, which has no display to open an app on; with one, mailto:a@b.c opens with Thunderbird (thunderbird.desktop)"},
		{"news:comp.lang.go", headful, "news: link not opened: no app on this desktop handles news:"},
		{"MyApp://x", headful, "myapp: link: the browser asks whether to hand it to the desktop, where MyApp://x opens with My App (myapp.desktop)"},
		{"myapp://x", stopped, "myapp: link not opened: headless Chromium would ask first, with no one to answer; on the desktop myapp://x opens with My App (myapp.desktop)"},
		{"myapp://x", headless, "myapp: link not opened: headless Chromium asks first in a dialog no one can see, which holds the tab (navigate or reload opens the page again in a new tab)"},
		{"tel:+49301234", headless, "tel: link not opened: headless Chromium asks first in a dialog no one can see, which holds the tab (navigate or reload opens the page again in a new tab)"},
		{"tel:+49301234", headful, "tel: link: the browser asks whether to hand it to the desktop, but no app on this desktop handles tel:"},
		{"tel:+49301234", stopped, "tel: link not opened: no app on this desktop handles tel:"},
		{"vbscript:x", headful, "vbscript: link not opened: the browser never hands vbscript: links to other apps"},
		{"mailto:" + strings.Repeat("a", 200), headful, "mailto: link handed to the desktop: mailto:" + strings.Repeat("a", 112) + "… opens with Thunderbird (thunderbird.desktop)"},
	} {
		if got := schemeLine(tc.url, tc.set); got != tc.want {
			t.Errorf("schemeLine(%q, %+v) =\n%s\nwant\n%s", tc.url, tc.set, got, tc.want)
		}
	}
	if !displayless([]string{"DISPLAY="}) || displayless([]string{"DISPLAY=:5"}) {
		t.Error("displayless does not follow the browser's environment")
	}
}
