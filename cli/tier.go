package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/audit"
	"github.com/canopy-dev/canopy/policy"
)

// allowHelp is the --allow flag's help.
const allowHelp = "permission tier: observe, act or sensitive (default: act on a browser canopy launched, observe with --cdp)"

// policyFlags are the session's rules (SPEC §6) as flags: --allow,
// --files, --apps, --domains, --secrets, --confirm, --audit.
type policyFlags struct {
	allow   string
	files   string
	apps    []string
	domains []string
	audit   string
	secrets string
	confirm string
}

// domainsHelp is the --domains flag's help.
const domainsHelp = "hosts the browser may load, in every tab and frame (repeatable, or comma-separated): " +
	"example.com, *.example.com (with subdomains), https://example.com, 127.0.0.1:8080; !pattern refuses. " +
	"With any allowed host, everything else is refused; with only !patterns, everything else is allowed"

// registerPolicy adds the flags to cmd.
func (f *policyFlags) registerPolicy(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.allow, "allow", "", allowHelp)
	fl.StringVar(&f.files, "files", "", "the folder uploads may come from at the act tier (default: the session's downloads folder)")
	fl.StringSliceVar(&f.apps, "apps", nil, "programs open_app may start at the act tier besides installed desktop applications (repeatable, or comma-separated)")
	fl.StringSliceVar(&f.domains, "domains", nil, domainsHelp)
	fl.StringVar(&f.secrets, "secrets", "", `credentials by name, a JSON file of mode 0600: {"name": "value", "bound": {"value": "…", "origins": ["https://site"]}}`)
	fl.StringVar(&f.confirm, "confirm", "", `actions on nodes this selector matches need the user's yes, asked through MCP elicitation (e.g. 'name~:/delete|pay|send/')`)
	fl.StringVar(&f.audit, "audit", "", "append one JSON line per action to this file (created 0600): time, action, target, URL or app, decision, outcome")
}

// openAudit opens the --audit log, or returns nil without one. The caller
// closes it.
func (f policyFlags) openAudit() (*audit.Log, error) {
	if f.audit == "" {
		return nil, nil
	}
	return audit.Open(f.audit)
}

// rules are the policy options the flags give, checked: a secrets file
// that cannot be read (or that others can), or a --domains or --confirm
// pattern that does not parse, stops the command before anything starts.
func (f policyFlags) rules() ([]policy.Option, error) {
	opts := []policy.Option{policy.Files(f.files), policy.Apps(f.apps...)}
	if len(f.domains) > 0 {
		opts = append(opts, policy.Domains(f.domains...))
	}
	if f.secrets != "" {
		opts = append(opts, policy.Secrets(f.secrets))
	}
	if f.confirm != "" {
		opts = append(opts, policy.Confirm(f.confirm))
	}
	if _, err := policy.Open(action.Observe, opts...); err != nil {
		return nil, err
	}
	return opts, nil
}

// tier is the session's permission tier (SPEC §6): allow when given, else
// act on a browser canopy launched and observe on one it attached to.
func tier(launched bool, allow string) (action.Tier, error) {
	if allow != "" {
		return action.ParseTier(allow)
	}
	if launched {
		return action.Act, nil
	}
	return action.Observe, nil
}

// permitLoad asks the policy whether the page a command opens with may be
// loaded, as a navigate step would be: a command's URL argument passes
// the same gate as every action (javascript:, file: … need sensitive).
func permitLoad(ctx context.Context, t action.Tier, url string) error {
	_, err := policy.New(t).Permit(ctx, policy.Request{Action: action.Action{Kind: action.Navigate, URL: url}})
	return err
}
