//go:build linux

package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/canopy-dev/canopy/internal/sysproc"
)

// TestShReplTerminal drives `canopy sh` the way a person does, through a
// pseudo-terminal that is canopy's controlling terminal: Tab completes
// paths, the up arrow recalls the last command, a command may take more
// lines, Ctrl-C stops a waiting action and the session (its browser
// included) goes on, Ctrl-C at the prompt drops the line, Ctrl-D leaves
// with exit code 0 and the history is kept in the user's cache folder.
func TestShReplTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a real Chromium")
	}
	s := serve(t)
	cache := filepath.Join(t.TempDir(), "cache")
	term, sh := startOnTerminal(t, []string{"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + cache},
		"sh", "--open", s.URL("/login.html"))

	term.expectWithin("canopy$ ", time.Minute) // the browser starts and loads the page first

	// Tab completes the one folder that starts with fo, as a folder.
	term.send("cd fo\t")
	term.expect("cd form:Login/")
	term.send("\r")
	term.expect("canopy:/tab1/form:Login$ ")
	term.send("ls\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, "textbox:Email\n") {
		t.Errorf("ls in form:Login printed:\n%s", out)
	}

	// Two names start with text: Tab completes what they share, a second
	// Tab lists them, and Tab completes the one the next letter leaves.
	term.send("cat text\t")
	term.expect("cat textbox:")
	term.send("\t")
	term.expect("\ntextbox:Email textbox:Password")
	term.send("E\t")
	term.expect("cat textbox:Email")
	term.send("\r")
	term.expect("\nname: Email\n")
	term.expect("canopy:/tab1/form:Login$ ")
	// A completed name escapes its space.
	term.send("cat checkbox:Rem\t")
	term.expect(`cat checkbox:Remember\ me`)
	term.send("\r")
	term.expect("\nname: Remember me\n")
	term.expect("canopy:/tab1/form:Login$ ")

	// The up arrow brings the last command back; Enter runs it again.
	term.send("ls\r")
	term.expect("canopy:/tab1/form:Login$ ")
	term.send("\x1b[A")
	term.expect("ls")
	term.send("\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, "textbox:Email\n") {
		t.Errorf("ls from the history printed:\n%s", out)
	}

	// A loop left open asks for more lines.
	term.send("for x in a b\r")
	term.expect("\n> ")
	term.send("do echo $x; done\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, "\na\nb\n") {
		t.Errorf("the loop printed:\n%s", out)
	}

	// Ctrl-C stops an action that waits (for up to 10s) well before it
	// gives up, and the shell, its session and its browser go on.
	const wait = `wait text "never on this page"`
	term.send(wait + "\r")
	term.expect(wait)
	term.awaitSignals() // the line is read: Ctrl-C is a signal again
	sent := time.Now()
	term.send("\x03")
	out := term.expectWithin("^C stopped; the session goes on\n", 5*time.Second)
	if took := time.Since(sent); strings.Contains(out, "waited") || took > 5*time.Second {
		t.Errorf("Ctrl-C stopped the wait after %s:\n%s", took, out)
	}
	term.expect("canopy:/tab1/form:Login$ ")
	term.send("pwd\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, "\n/tab1/form:Login\n") {
		t.Errorf("pwd after Ctrl-C printed:\n%s", out)
	}
	term.send("check 'checkbox:Remember me'\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, `~ checkbox "Remember me" `) ||
		!strings.Contains(out, "not checked → checked\n") {
		t.Errorf("check after Ctrl-C printed:\n%s", out)
	}

	// Ctrl-C at the prompt drops the line typed so far.
	term.send("echo dropped")
	term.expect("echo dropped")
	term.send("\x03")
	if out := term.expect("canopy:/tab1/form:Login$ "); strings.Contains(out, "stopped") {
		t.Errorf("Ctrl-C at the prompt printed:\n%s", out)
	}
	term.send("echo kept\r")
	if out := term.expect("canopy:/tab1/form:Login$ "); !strings.Contains(out, "\nkept\n") || strings.Contains(out, "dropped") {
		t.Errorf("after Ctrl-C at the prompt, echo kept printed:\n%s", out)
	}

	// Ctrl-D leaves.
	term.send("\x04")
	if code := sh.wait(t, 30*time.Second); code != 0 {
		t.Errorf("canopy sh exited with %d after Ctrl-D; the terminal showed:\n%s", code, term.all())
	}
	b, err := os.ReadFile(filepath.Join(cache, "canopy", "sh_history"))
	if err != nil {
		t.Fatalf("the history: %v", err)
	}
	want := []string{"cd form:Login/", "ls", "cat textbox:Email", `cat checkbox:Remember\ me`, "ls",
		"for x in a b; do echo $x; done", wait, "pwd", "check 'checkbox:Remember me'", "echo kept"}
	if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("the history holds %q, want %q", got, want)
	}
}

// child is canopy running as a child process of the test.
type child struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has exited
	err    error         // what Wait returned, once exited is closed
}

// startOnTerminal runs canopy with args, as the test binary re-run by
// TestMain, in a session of its own whose controlling terminal is a new
// pseudo-terminal (TERM=xterm), with env added to the test's environment.
// Whatever happens, the test ends with canopy and what it started (the
// browser) stopped.
func startOnTerminal(t *testing.T, env []string, args ...string) (*terminal, *child) {
	t.Helper()
	master, tty := openPTY(t)
	term := newTerminal(t, master)
	a, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{"TERM=xterm", mainEnv + "=1", argsEnv + "=" + string(a)}, env...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // canopy holds the terminal now; reading ends when it exits
	c := &child{cmd: cmd, exited: make(chan struct{})}
	go func() { c.err = cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			// The test failed on the way: stop the browser, which runs in a
			// process group of its own, and canopy.
			for _, pid := range descendants(cmd.Process.Pid) {
				_ = sysproc.Signal(pid, syscall.SIGKILL)
			}
			_ = cmd.Process.Kill()
			<-c.exited
		}
	})
	return term, c
}

// wait waits for canopy to exit and returns its exit code.
func (c *child) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(within):
		t.Fatalf("canopy did not exit within %s", within)
	}
	var exit *exec.ExitError
	if errors.As(c.err, &exit) {
		return exit.ExitCode()
	}
	if c.err != nil {
		t.Fatal(c.err)
	}
	return 0
}

// descendants lists the processes pid started, and what they started.
func descendants(pid int) []int {
	parents := sysproc.Parents()
	var out []int
	for grew := true; grew; {
		grew = false
		for p, pp := range parents {
			if (pp == pid || slices.Contains(out, pp)) && !slices.Contains(out, p) {
				out = append(out, p)
				grew = true
			}
		}
	}
	return out
}

// openPTY opens a pseudo-terminal of 40 rows and 120 columns: its master
// side, which the test reads and writes, and the terminal, /dev/pts/N,
// for the program under test.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n int
	err = control(master, func(fd int) error {
		if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlock
			return err
		}
		var err error
		if n, err = unix.IoctlGetInt(fd, unix.TIOCGPTN); err != nil {
			return err
		}
		// liner falls back to a plain prompt on a terminal without columns.
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 120})
	})
	if err != nil {
		master.Close()
		t.Fatalf("set up the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	return master, tty
}

// control runs f on f's file descriptor.
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// terminal is the test's end of a pseudo-terminal: it types keys and
// reads what the program shows, all of it kept (carriage returns
// dropped, so that lines end in "\n" alone).
type terminal struct {
	t      *testing.T
	master *os.File

	mu   sync.Mutex
	out  []byte
	from int // where the next expect looks from: past the last match

	more chan struct{} // a token after each read
	done chan struct{} // closed when reading has stopped
}

// newTerminal reads master until the program's side closes, and closes
// it when the test ends.
func newTerminal(t *testing.T, master *os.File) *terminal {
	term := &terminal{t: t, master: master, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			term.mu.Lock()
			for _, b := range buf[:n] {
				if b != '\r' {
					term.out = append(term.out, b)
				}
			}
			term.mu.Unlock()
			select {
			case term.more <- struct{}{}:
			default:
			}
			if err != nil { // EIO once the program's side is closed
				return
			}
		}
	}()
	t.Cleanup(func() { master.Close(); <-term.done })
	return term
}

// send types keys.
func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := term.master.WriteString(keys); err != nil {
		term.t.Fatalf("type %q: %v", keys, err)
	}
}

// expect waits up to 30s for want, as expectWithin does.
func (term *terminal) expect(want string) string {
	term.t.Helper()
	return term.expectWithin(want, 30*time.Second)
}

// expectWithin waits until want shows after the last match and returns
// what showed up to and including it; the test fails if it does not
// within the time given.
func (term *terminal) expectWithin(want string, within time.Duration) string {
	term.t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	ended := false
	for {
		term.mu.Lock()
		seen := string(term.out[term.from:])
		if i := strings.Index(seen, want); i >= 0 {
			term.from += i + len(want)
			term.mu.Unlock()
			return seen[:i+len(want)]
		}
		term.mu.Unlock()
		if ended {
			term.t.Fatalf("the program closed the terminal before %q showed; after the last match it showed:\n%s", want, seen)
		}
		select {
		case <-term.more:
		case <-term.done:
			ended = true // one last look
		case <-deadline.C:
			term.t.Fatalf("%q did not show within %s; after the last match the terminal showed:\n%s", want, within, seen)
		}
	}
}

// all is everything the terminal showed.
func (term *terminal) all() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return string(term.out)
}

// awaitSignals waits until the terminal turns Ctrl-C into SIGINT (ISIG),
// which the line editor turns off while it reads a line and back on once
// it has handed the line over. It polls the terminal's mode: nothing
// shows when that happens.
func (term *terminal) awaitSignals() {
	term.t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		var mode *unix.Termios
		err := control(term.master, func(fd int) error {
			var err error
			mode, err = unix.IoctlGetTermios(fd, unix.TCGETS) // the terminal's, read through the master
			return err
		})
		if err != nil {
			term.t.Fatalf("read the terminal's mode: %v", err)
		}
		if mode.Lflag&unix.ISIG != 0 {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			term.t.Fatal("the line editor did not hand the line over within 30s")
		}
	}
}
