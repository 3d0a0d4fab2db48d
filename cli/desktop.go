package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/vdesk"
)

// newDesktopCmd is `canopy desktop up|down|env`: a virtual desktop (Xvfb
// and a session bus) for headless machines.
func newDesktopCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "desktop",
		Short: "Run a virtual desktop (Xvfb + D-Bus session bus) for headless machines",
		Long: `Run a virtual desktop for machines without a display: an Xvfb X server and a
private D-Bus session bus, with a private XDG_RUNTIME_DIR and HOME so that
nothing leaks between runs. Desktop apps started with its environment, and
canopy's desktop tools, then work as on a real desktop, AT-SPI included.

Needs Xvfb and dbus-daemon (apt-get install xvfb dbus), and at-spi2-core
for accessibility.`,
		Example: `  eval "$(canopy desktop up)"
  mousepad &
  canopy desktop down`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newDesktopUpCmd(stdout, stderr), newDesktopDownCmd(stdout, stderr), newDesktopEnvCmd(stdout, stderr))
	return cmd
}

func newDesktopUpCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		size      string
		dir       string
		noPortals bool
		verbose   bool
	)
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Start a virtual desktop and print its environment as shell exports",
		Long: `Start a virtual desktop and print the shell commands that put a shell on it,
for eval. The desktop keeps running after this command returns, until
canopy desktop down.

The session bus offers every D-Bus service the machine has installed. With
the desktop portals (xdg-desktop-portal-gtk) among them, programs ask the
portal for file dialogs, as on GNOME or KDE: Chromium's Save dialog is then
the portal's window. --no-portals leaves them off the bus, and Chromium
draws its own GTK dialog.`,
		Example: `  eval "$(canopy desktop up)"
  eval "$(canopy desktop up --size 1920x1080 --dir /tmp/desk)"
  eval "$(canopy desktop up --no-portals)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w, h, err := parseSize(size)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			d, err := vdesk.Up(ctx, vdesk.Options{Width: w, Height: h, Dir: dir, NoPortals: noPortals, Logger: desktopLogger(stderr, verbose)})
			if err != nil {
				return err
			}
			writeExports(stdout, d)
			fmt.Fprintf(stderr, "# canopy: virtual desktop on %s in %s; stop it with: canopy desktop down --dir %s\n",
				d.Display(), d.Dir(), shellQuote(d.Dir()))
			return nil
		},
	}
	cmd.Flags().StringVar(&size, "size", fmt.Sprintf("%dx%d", vdesk.DefaultWidth, vdesk.DefaultHeight), "screen size, WIDTHxHEIGHT (depth 24)")
	cmd.Flags().StringVar(&dir, "dir", "", "state directory, new or empty (default: a new temporary one); down removes it")
	cmd.Flags().BoolVar(&noPortals, "no-portals", false, "leave the desktop portals (xdg-desktop-portal) off the session bus")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "log start-up details to stderr")
	return cmd
}

func newDesktopDownCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		dir     string
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "down",
		Short: "Stop a virtual desktop, the apps on it, and remove its directory",
		Long: `Stop the virtual desktop in --dir or $CANOPY_DESKTOP: its X server and bus,
everything the bus started (the accessibility bus, dconf), and every app
started with its environment. Then remove its directory. Stopping a desktop
that is down already is not an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := desktopDir(dir)
			if err != nil {
				return err
			}
			d, err := vdesk.Load(dir)
			if errors.Is(err, vdesk.ErrNoDesktop) {
				fmt.Fprintf(stderr, "# canopy: no desktop in %s (down already?); nothing to stop\n", dir)
				return nil
			}
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			if verbose {
				fmt.Fprintf(stderr, "# canopy: stopping the desktop on %s in %s\n", d.Display(), d.Dir())
			}
			if err := d.Down(ctx); err != nil {
				return err
			}
			if os.Getenv(vdesk.DirVar) == d.Dir() {
				fmt.Fprintf(stderr, "# canopy: desktop stopped; this shell still has its variables (DISPLAY, HOME …): open a new shell\n")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the desktop's state directory (default: $CANOPY_DESKTOP)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "say what is stopped")
	return cmd
}

func newDesktopEnvCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:     "env",
		Short:   "Print a running virtual desktop's environment as shell exports",
		Example: `  eval "$(canopy desktop env --dir /tmp/desk)"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := desktopDir(dir)
			if err != nil {
				return err
			}
			d, err := vdesk.Load(dir)
			if err != nil {
				return err
			}
			if !d.Alive() {
				return fmt.Errorf("the desktop in %s no longer runs (its Xvfb or dbus-daemon exited); clean up with canopy desktop down --dir %s: %w",
					d.Dir(), shellQuote(d.Dir()), vdesk.ErrEnvironment)
			}
			writeExports(stdout, d)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the desktop's state directory (default: $CANOPY_DESKTOP)")
	return cmd
}

// desktopDir returns the --dir flag's value or else $CANOPY_DESKTOP.
func desktopDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if dir := os.Getenv(vdesk.DirVar); dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("%w known: give --dir DIR, or set $%s (eval \"$(canopy desktop up)\" does)", vdesk.ErrNoDesktop, vdesk.DirVar)
}

// parseSize parses "WIDTHxHEIGHT".
func parseSize(s string) (w, h int, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(ws)
		if err == nil {
			h, err = strconv.Atoi(hs)
		}
	}
	if !ok || err != nil || w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("--size %q: give WIDTHxHEIGHT in pixels, such as 1280x1024", s)
	}
	return w, h, nil
}

// writeExports prints the desktop's environment as POSIX shell commands.
func writeExports(w io.Writer, d *vdesk.Desktop) {
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(w, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(w, "unset %s\n", strings.Join(d.Unset(), " "))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// desktopLogger logs to stderr: debug details when verbose, else warnings.
func desktopLogger(stderr io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}
