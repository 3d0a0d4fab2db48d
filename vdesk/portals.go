//go:build linux

package vdesk

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The desktop portals (xdg-desktop-portal and its backends, such as
// xdg-desktop-portal-gtk) are D-Bus services that draw dialogs for other
// programs: with them on the session bus, Chromium's Save dialog is the
// portal's window, in another process. Debian installs them with many
// desktop packages (zenity's WebKit dependency recommends them), so a
// machine may or may not have them. A bus that leaves them out lists its
// own service directory in its configuration: links to every installed
// service but the portals.

// isPortal reports whether a D-Bus name is a desktop portal's: the
// frontend (org.freedesktop.portal.*) or a backend
// (org.freedesktop.impl.portal.*).
func isPortal(name string) bool {
	return strings.HasPrefix(name, "org.freedesktop.portal.") || strings.HasPrefix(name, "org.freedesktop.impl.portal.")
}

// PortalsInstalled reports whether the machine has the desktop portal
// (org.freedesktop.portal.Desktop) among its session services, so that a
// desktop brought up without NoPortals offers it.
func PortalsInstalled() bool {
	for _, s := range sessionServices(os.Environ()) {
		if s.name == "org.freedesktop.portal.Desktop" {
			return true
		}
	}
	return false
}

// service is one D-Bus service file: the bus name it activates and where
// the file is.
type service struct{ name, path string }

// sessionServiceDirs are the directories dbus-daemon searches for session
// services (<standard_session_servicedirs/>), highest precedence first, for
// a process with environment env.
func sessionServiceDirs(env []string) []string {
	get := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	var dirs []string
	if d := get("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "dbus-1", "services"))
	}
	data := get("XDG_DATA_HOME")
	if home := get("HOME"); data == "" && home != "" {
		data = filepath.Join(home, ".local", "share")
	}
	if data != "" {
		dirs = append(dirs, filepath.Join(data, "dbus-1", "services"))
	}
	dataDirs := get("XDG_DATA_DIRS")
	if dataDirs == "" {
		dataDirs = "/usr/local/share:/usr/share"
	}
	for _, d := range filepath.SplitList(dataDirs) {
		if d != "" {
			dirs = append(dirs, filepath.Join(d, "dbus-1", "services"))
		}
	}
	return append(dirs, "/usr/share/dbus-1/services")
}

// sessionServices lists the session services installed for a process with
// environment env, one per bus name: the first directory that has a name
// wins, as in dbus-daemon.
func sessionServices(env []string) []service {
	seen := map[string]bool{}
	var out []service
	for _, dir := range sessionServiceDirs(env) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.service"))
		for _, f := range files {
			name := serviceName(f)
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, service{name: name, path: f})
		}
	}
	return out
}

// serviceName reads the bus name (Name=) of a D-Bus service file, or ""
// when it has none or cannot be read.
func serviceName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inService := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "["):
			inService = line == "[D-BUS Service]"
		case inService:
			if v, ok := strings.CutPrefix(line, "Name="); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return ""
}

// busConfig is a session bus configuration like the system's session.conf,
// but with one service directory of canopy's own instead of the standard
// ones. %s is that directory, XML-escaped.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- Written by canopy's virtual desktop: a session bus without the desktop portals. -->
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>%s</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="service_start_timeout">120000</limit>
</busconfig>
`

// writeNoPortalsConfig writes, inside dir, a service directory that links
// every installed session service but the portals, and a bus configuration
// that lists only it, and returns the configuration's path. env is the
// desktop's environment (its XDG directories are searched as the bus
// would).
func writeNoPortalsConfig(dir string, env []string) (string, error) {
	services := filepath.Join(dir, "dbus-services")
	if err := os.Mkdir(services, 0o700); err != nil {
		return "", fmt.Errorf("create the bus's service directory: %w", err)
	}
	for _, s := range sessionServices(env) {
		if isPortal(s.name) {
			continue
		}
		if err := os.Symlink(s.path, filepath.Join(services, s.name+".service")); err != nil {
			return "", fmt.Errorf("link the bus service %s: %w", s.name, err)
		}
	}
	var esc strings.Builder
	if err := xml.EscapeText(&esc, []byte(services)); err != nil {
		return "", fmt.Errorf("write the bus configuration: %w", err)
	}
	path := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(path, fmt.Appendf(nil, busConfig, esc.String()), 0o600); err != nil {
		return "", fmt.Errorf("write the bus configuration: %w", err)
	}
	return path, nil
}
