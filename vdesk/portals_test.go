//go:build linux

package vdesk

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeService writes a D-Bus service file for name into dir.
func writeService(t *testing.T, dir, file, name string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "[D-BUS Service]\nName=" + name + "\nExec=/bin/false\n"
	if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSessionServices: the search order and precedence of dbus-daemon's
// standard session service directories, names read from the files.
func TestSessionServices(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeService(t, filepath.Join(home, ".local/share/dbus-1/services"), "org.example.Mine.service", "org.example.Mine")
	writeService(t, filepath.Join(a, "dbus-1/services"), "org.example.Mine.service", "org.example.Shadowed")
	writeService(t, filepath.Join(a, "dbus-1/services"), "other-file-name.service", "org.example.A")
	writeService(t, filepath.Join(b, "dbus-1/services"), "org.example.A.service", "org.example.A")
	writeService(t, filepath.Join(b, "dbus-1/services"), "org.freedesktop.portal.Desktop.service", "org.freedesktop.portal.Desktop")
	writeService(t, filepath.Join(b, "dbus-1/services"), "noname.service", "")

	env := []string{"HOME=" + home, "XDG_DATA_DIRS=" + a + ":" + b}
	dirs := sessionServiceDirs(env)
	want := []string{
		filepath.Join(home, ".local/share/dbus-1/services"),
		filepath.Join(a, "dbus-1/services"),
		filepath.Join(b, "dbus-1/services"),
		"/usr/share/dbus-1/services",
	}
	if !slices.Equal(dirs, want) {
		t.Errorf("service dirs %q, want %q", dirs, want)
	}
	got := map[string]string{}
	for _, s := range sessionServices(env) {
		if filepath.Dir(s.path) == "/usr/share/dbus-1/services" {
			continue // the machine's own
		}
		got[s.name] = s.path
	}
	wantPaths := map[string]string{
		"org.example.Mine":               filepath.Join(home, ".local/share/dbus-1/services/org.example.Mine.service"),
		"org.example.Shadowed":           filepath.Join(a, "dbus-1/services/org.example.Mine.service"),
		"org.example.A":                  filepath.Join(a, "dbus-1/services/other-file-name.service"),
		"org.freedesktop.portal.Desktop": filepath.Join(b, "dbus-1/services/org.freedesktop.portal.Desktop.service"),
	}
	for name, path := range wantPaths {
		if got[name] != path {
			t.Errorf("service %s at %q, want %q", name, got[name], path)
		}
	}
	if len(got) != len(wantPaths) {
		t.Errorf("services %v, want exactly %v", got, wantPaths)
	}

	dir := t.TempDir()
	if _, err := writeNoPortalsConfig(dir, env); err != nil {
		t.Fatal(err)
	}
	links, _ := filepath.Glob(filepath.Join(dir, "dbus-services", "*.service"))
	for _, l := range links {
		if isPortal(serviceName(l)) {
			t.Errorf("the portal-less service directory links %s", l)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dbus-services", "org.example.A.service")); err != nil {
		t.Errorf("the portal-less service directory lacks org.example.A: %v", err)
	}
}

// activatable lists the names the bus at addr can start.
func activatable(t *testing.T, addr string) []string {
	t.Helper()
	return listNames(t, addr, "org.freedesktop.DBus.ListActivatableNames")
}

// TestNoPortals: a desktop brought up with NoPortals offers every session
// service but the portals (the accessibility bus above all); one brought up
// by default offers the portals the machine has.
func TestNoPortals(t *testing.T) {
	plain := up(t, Options{NoPortals: true})
	names := activatable(t, plain.BusAddress())
	for _, n := range names {
		if isPortal(n) {
			t.Errorf("the bus without portals can start %s", n)
		}
	}
	if a11yInstalled() {
		if !slices.Contains(names, "org.a11y.Bus") {
			t.Errorf("the bus without portals cannot start org.a11y.Bus: %v", names)
		}
		startA11y(t, plain)
	}

	if !PortalsInstalled() {
		if os.Getenv("CI") == "true" {
			t.Fatal("xdg-desktop-portal is not installed (CI installs it: apt-get install xdg-desktop-portal-gtk)")
		}
		t.Skip("xdg-desktop-portal is not installed: not checking the default bus offers it")
	}
	def := up(t, Options{})
	if names := activatable(t, def.BusAddress()); !slices.Contains(names, "org.freedesktop.portal.Desktop") {
		t.Errorf("the default bus cannot start the portal: %v", names)
	}
}
