package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/doctor"
)

// newDoctorCmd is `canopy doctor`: what canopy finds on this machine, what
// is missing, and how to fix it.
func newDoctorCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		chromium string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the display, buses, accessibility and browser canopy needs, and say how to fix what is missing",
		Long: `Check what canopy needs on this machine: the X display (and XTEST), the D-Bus
session bus, the AT-SPI accessibility bus and its registry, the applications
registered there, the browser binary, the programs canopy desktop up needs,
and NO_AT_BRIDGE. Each line is ok, warn, FAIL or skip; a failing line says how
to fix it. Every check has a timeout, so a bus that never answers fails
instead of hanging.

Exits with 0 when nothing failed (warnings are fine), else non-zero.`,
		Example: `  canopy doctor
  eval "$(canopy desktop up)" && canopy doctor
  canopy doctor --json | jq '.checks[] | select(.ok | not)'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r := doctor.Run(cmd.Context(), doctor.Options{Chromium: chromium})
			if asJSON {
				b, err := json.MarshalIndent(r, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s\n", b)
			} else {
				io.WriteString(stdout, r.Format())
			}
			return r.Err()
		},
	}
	cmd.Flags().StringVar(&chromium, "chromium", "", "browser binary to check (default: $CANOPY_CHROMIUM, chromium, chromium-browser, google-chrome)")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print the report as JSON: {"ok", "checks": [{"name", "ok", "status", "detail", "fix"}], "apps"}`)
	return cmd
}
