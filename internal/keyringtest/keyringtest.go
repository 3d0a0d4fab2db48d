// Package keyringtest runs a real desktop keyring for tests: a private
// D-Bus session bus (its own dbus-daemon, XDG_RUNTIME_DIR and HOME) with
// gnome-keyring-daemon on it, its login keyring created and unlocked, and
// helpers that store and lock items through the Secret Service API, as
// secret-tool and a desktop's keyring app do.
//
//	k := keyringtest.Start(t)
//	k.Store(t, "canopy github", "value", map[string]string{"canopy": "github"})
//	policy.New(action.Act, policy.Keyring(k.Address()))
//
// The bus offers no activatable services, so nothing but the daemon the
// test started answers on it, and Bus alone is a bus without a keyring.
// Without gnome-keyring-daemon or dbus-daemon installed the test is
// skipped with a notice, except under CI=true, where that is a failure.
package keyringtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// readyTimeout caps the wait for the bus and for the keyring to be up.
const readyTimeout = 15 * time.Second

// The Secret Service's names.
const (
	service                       = "org.freedesktop.secrets"
	servicePath   dbus.ObjectPath = "/org/freedesktop/secrets"
	secretIface                   = "org.freedesktop.Secret"
	loginPassword                 = "canopy-test-login"
)

// Keyring is a gnome-keyring-daemon on a private session bus.
type Keyring struct {
	addr       string
	conn       *dbus.Conn
	collection dbus.ObjectPath // the default collection (the login keyring)
}

// Address is the bus's D-Bus address, for policy.Keyring or
// $DBUS_SESSION_BUS_ADDRESS.
func (k *Keyring) Address() string { return k.addr }

// need skips the test, or fails it under CI=true, unless the programs are
// installed.
func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			msg := fmt.Sprintf("%s is not installed (apt-get install --no-install-recommends dbus gnome-keyring): keyring tests need it", p)
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// env is the environment of the test's bus and daemon: a private HOME
// and XDG_RUNTIME_DIR in dir, nothing of the caller's session.
func env(dir string) []string {
	home := filepath.Join(dir, "home")
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"HOME=" + home,
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
}

// busConfig is a session bus that activates nothing: only the services
// the test starts answer on it.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// Bus starts a private session bus with no Secret Service on it (no
// services at all) and returns its address and its directory; both go
// when the test ends.
func Bus(t *testing.T) (addr, dir string) {
	t.Helper()
	need(t, "dbus-daemon")
	// Short: a unix socket path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "kr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"run", "home/.config", "home/.local/share", "home/.cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, busConfig, filepath.Join(dir, "bus")), 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("dbus-daemon", "--config-file="+cfg, "--nofork", "--nosyslog", "--print-address=1")
	cmd.Env = env(dir)
	errs := &output{}
	cmd.Stdout, cmd.Stderr = w, errs
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	p := run(t, cmd)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr = <-line:
	case <-p.done:
	case <-time.After(readyTimeout):
	}
	if addr == "" {
		t.Fatalf("dbus-daemon printed no address within %s: %s", readyTimeout, errs.String())
	}
	return addr, dir
}

// output collects what a process writes, safe to read while it runs.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(b)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.TrimSpace(o.buf.String())
}

// proc is a process the test started.
type proc struct {
	done chan struct{} // closed once it exited and was reaped
	err  error         // its exit status, set before done closes
}

// run reaps cmd (started) when it exits, and ends it by its pid, if it
// still runs, when the test ends.
func run(t *testing.T, cmd *exec.Cmd) *proc {
	p := &proc{done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// Start brings up gnome-keyring-daemon (the secrets component) on a
// private bus, with its login keyring created, unlocked and the default
// collection. It returns once the daemon owns org.freedesktop.secrets on
// the bus; everything stops when the test ends.
func Start(t *testing.T) *Keyring {
	t.Helper()
	need(t, "dbus-daemon", "gnome-keyring-daemon")
	addr, dir := Bus(t)
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	// Watch for the name before the daemon starts, so its arrival cannot
	// be missed.
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, service)); err != nil {
		t.Fatal(err)
	}
	sigs := make(chan *dbus.Signal, 8)
	conn.Signal(sigs)
	defer conn.RemoveSignal(sigs)

	// --unlock reads the login password from stdin and creates the login
	// keyring with it (unlocked) when there is none.
	cmd := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	cmd.Env = append(env(dir), "DBUS_SESSION_BUS_ADDRESS="+addr)
	cmd.Stdin = strings.NewReader(loginPassword)
	logs := &output{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start gnome-keyring-daemon: %v", err)
	}
	p := run(t, cmd)

	var owned bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, service).Store(&owned); err != nil {
		t.Fatal(err)
	}
	for !owned {
		select {
		case s := <-sigs:
			if len(s.Body) == 3 && s.Body[0] == service && s.Body[2] != "" {
				owned = true
			}
		case <-p.done:
			t.Fatalf("gnome-keyring-daemon exited before it took %s (%v): %s", service, p.err, logs.String())
		case <-ctx.Done():
			t.Fatalf("gnome-keyring-daemon did not take %s within %s: %s", service, readyTimeout, logs.String())
		}
	}
	k := &Keyring{addr: addr, conn: conn}
	svc := conn.Object(service, servicePath)
	if err := svc.CallWithContext(ctx, secretIface+".Service.ReadAlias", 0, "default").Store(&k.collection); err != nil {
		t.Fatalf("read the default collection: %v", err)
	}
	if k.collection == "/" {
		t.Fatalf("gnome-keyring-daemon has no default collection: %s", logs.String())
	}
	return k
}

// Store creates (or replaces) an item in the default collection with the
// label, the attributes and the value, as `secret-tool store` does.
func (k *Keyring) Store(t *testing.T, label, value string, attrs map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	svc := k.conn.Object(service, servicePath)
	var out dbus.Variant
	var sess dbus.ObjectPath
	if err := svc.CallWithContext(ctx, secretIface+".Service.OpenSession", 0, "plain", dbus.MakeVariant("")).Store(&out, &sess); err != nil {
		t.Fatalf("open a session: %v", err)
	}
	defer k.conn.Object(service, sess).CallWithContext(ctx, secretIface+".Session.Close", 0)
	props := map[string]dbus.Variant{
		secretIface + ".Item.Label":      dbus.MakeVariant(label),
		secretIface + ".Item.Attributes": dbus.MakeVariant(attrs),
	}
	secret := struct {
		Session     dbus.ObjectPath
		Parameters  []byte
		Value       []byte
		ContentType string
	}{sess, []byte{}, []byte(value), "text/plain"}
	var item, prompt dbus.ObjectPath
	err := k.conn.Object(service, k.collection).CallWithContext(ctx, secretIface+".Collection.CreateItem", 0, props, secret, true).Store(&item, &prompt)
	if err != nil {
		t.Fatalf("store %q: %v", label, err)
	}
	if prompt != "/" {
		t.Fatalf("store %q: the keyring wants a prompt (%s): is it locked?", label, prompt)
	}
}

// Lock locks the default collection, as a screen lock or the keyring app
// does: its items are then listed as locked and their secrets refused.
func (k *Keyring) Lock(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	err := k.conn.Object(service, servicePath).CallWithContext(ctx, secretIface+".Service.Lock", 0, []dbus.ObjectPath{k.collection}).Store(&locked, &prompt)
	if err != nil {
		t.Fatalf("lock the keyring: %v", err)
	}
	if prompt != "/" || len(locked) != 1 {
		t.Fatalf("lock the keyring: locked %v, prompt %s", locked, prompt)
	}
}
