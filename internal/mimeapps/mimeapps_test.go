package mimeapps

import (
	"os"
	"path/filepath"
	"testing"
)

// write makes a file with its folders.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// desktopEntry is a desktop file for an application named name that
// handles mimes.
func desktopEntry(name, mimes string, extra ...string) string {
	s := "[Desktop Entry]\nType=Application\nName=" + name + "\nName[de]=Übersetzt\nExec=" + name + " %u\n"
	if mimes != "" {
		s += "MimeType=" + mimes + "\n"
	}
	for _, e := range extra {
		s += e + "\n"
	}
	return s + "\n[Desktop Action new]\nName=Not this one\n"
}

// testDirs lays out a user and a system tree under one temporary folder.
func testDirs(t *testing.T) (Dirs, string) {
	root := t.TempDir()
	return Dirs{
		ConfigHome: filepath.Join(root, "home/.config"),
		ConfigDirs: []string{filepath.Join(root, "etc/xdg")},
		DataHome:   filepath.Join(root, "home/.local/share"),
		DataDirs:   []string{filepath.Join(root, "usr/local/share"), filepath.Join(root, "usr/share")},
	}, root
}

func TestDefault(t *testing.T) {
	d, root := testDirs(t)
	sys := filepath.Join(root, "usr/share/applications")
	user := filepath.Join(root, "home/.local/share/applications")
	write(t, filepath.Join(sys, "thunderbird.desktop"), desktopEntry("Thunderbird", "x-scheme-handler/mailto;message/rfc822;"))
	write(t, filepath.Join(sys, "evolution.desktop"), desktopEntry("Evolution", "x-scheme-handler/mailto;"))
	write(t, filepath.Join(sys, "aaa-mail.desktop"), desktopEntry("AAA Mail", "x-scheme-handler/mailto;"))
	write(t, filepath.Join(sys, "kde/kmail.desktop"), desktopEntry("KMail", "x-scheme-handler/mailto;"))
	write(t, filepath.Join(sys, "gone.desktop"), desktopEntry("Gone", "x-scheme-handler/tel;"))
	write(t, filepath.Join(user, "gone.desktop"), desktopEntry("Gone", "x-scheme-handler/tel;", "Hidden=true"))
	write(t, filepath.Join(sys, "link.desktop"), "[Desktop Entry]\nType=Link\nName=Link\nMimeType=x-scheme-handler/sms;\n")
	write(t, filepath.Join(user, "myapp.desktop"), desktopEntry("My App", "x-scheme-handler/MyApp;"))

	check := func(what, mime, wantID, wantName string) {
		t.Helper()
		app, ok := d.Default(mime)
		if wantID == "" {
			if ok {
				t.Errorf("%s: %s handled by %+v, want none", what, mime, app)
			}
			return
		}
		if !ok || app.ID != wantID || app.Name != wantName {
			t.Errorf("%s: %s → %+v, %v; want %s %q", what, mime, app, ok, wantID, wantName)
		}
	}
	// No mimeapps.list: the first entry listing it (user folder first,
	// then by file name).
	check("by MimeType", "x-scheme-handler/mailto", "aaa-mail.desktop", "AAA Mail")
	check("case", "X-Scheme-Handler/myapp", "myapp.desktop", "My App")
	check("hidden by the user", "x-scheme-handler/tel", "", "")
	check("not an application", "x-scheme-handler/sms", "", "")
	check("nobody", "x-scheme-handler/unknown", "", "")

	// The system's data folder says Evolution; the system config folder
	// removes AAA Mail and adds KMail (a subfolder's ID).
	write(t, filepath.Join(sys, "mimeapps.list"), "[Default Applications]\nx-scheme-handler/mailto=evolution.desktop\n")
	check("system default", "x-scheme-handler/mailto", "evolution.desktop", "Evolution")
	// The user's choice wins; a default that is not installed is passed
	// over for the next one on its line.
	write(t, filepath.Join(root, "home/.config/mimeapps.list"),
		"# mine\n[Added Associations]\nx-scheme-handler/mailto=evolution.desktop;\n\n[Default Applications]\nx-scheme-handler/mailto=missing.desktop;thunderbird.desktop;\n")
	check("user default", "x-scheme-handler/mailto", "thunderbird.desktop", "Thunderbird")
	// A desktop's own list comes first.
	d.Desktops = []string{"xfce"}
	write(t, filepath.Join(root, "home/.config/xfce-mimeapps.list"), "[Default Applications]\nx-scheme-handler/mailto=kde-kmail.desktop\n")
	check("desktop's list", "x-scheme-handler/mailto", "kde-kmail.desktop", "KMail")

	// Removed associations: no default anywhere, the removed entry is
	// skipped among the MimeType= entries.
	write(t, filepath.Join(root, "etc/xdg/mimeapps.list"), "[Removed Associations]\nx-scheme-handler/news=aaa-news.desktop;\n[Added Associations]\nx-scheme-handler/irc=kde-kmail.desktop;\n")
	write(t, filepath.Join(sys, "aaa-news.desktop"), desktopEntry("AAA News", "x-scheme-handler/news;"))
	write(t, filepath.Join(sys, "bbb-news.desktop"), desktopEntry("BBB News", "x-scheme-handler/news;"))
	check("removed", "x-scheme-handler/news", "bbb-news.desktop", "BBB News")
	check("added", "x-scheme-handler/irc", "kde-kmail.desktop", "KMail")
}

// TestSchemeHandler reads the environment's folders.
func TestSchemeHandler(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_DATA_HOME", filepath.Join(root, "data"))
	t.Setenv("XDG_DATA_DIRS", filepath.Join(root, "none"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("XDG_CONFIG_DIRS", filepath.Join(root, "none"))
	t.Setenv("XDG_CURRENT_DESKTOP", "")
	write(t, filepath.Join(root, "data/applications/fakemail.desktop"), desktopEntry("Fake Mail", "x-scheme-handler/mailto;"))
	write(t, filepath.Join(root, "data/applications/other.desktop"), desktopEntry("Other", "x-scheme-handler/mailto;"))
	write(t, filepath.Join(root, "config/mimeapps.list"), "[Default Applications]\nx-scheme-handler/mailto=other.desktop\n")
	if app, ok := SchemeHandler("MAILTO"); !ok || app.ID != "other.desktop" || app.Name != "Other" {
		t.Errorf("mailto → %+v, %v", app, ok)
	}
	if app, ok := SchemeHandler("myapp"); ok {
		t.Errorf("myapp → %+v, want none", app)
	}
}
