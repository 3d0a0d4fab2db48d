package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/canopy-dev/canopy"
	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
	"github.com/canopy-dev/canopy/session"
)

// allowHelp is the --allow flag's help.
const allowHelp = "permission tier: observe, act or sensitive (default: act on a browser canopy launched, observe with --cdp)"

// policyFlags are the session's rules (docs/tiers.md) as flags: --allow,
// --files, --apps, --domains, --secrets, --confirm, --audit.
type policyFlags struct {
	allow   string
	files   string
	apps    []string
	domains []string
	audit   string
	secrets string
	confirm string
	stuck   string
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
	fl.StringSliceVar(&f.apps, "apps", nil, "programs open_app may start at the act tier besides installed desktop applications, by name, path or glob ('zenity,gtk*-widget-factory'); a leading ! denies an application at every tier: open_app refuses it and actions in its windows are refused ('!gnome-terminal,!xterm'); repeatable, or comma-separated; a pattern that does not parse stops the start")
	fl.StringSliceVar(&f.domains, "domains", nil, domainsHelp)
	fl.StringVar(&f.secrets, "secrets", "", `credentials by name, a JSON file of mode 0600: {"name": "value", "bound": {"value": "…", "origins": ["https://site"]}}`)
	fl.StringVar(&f.confirm, "confirm", "", `actions on nodes this selector matches need the user's yes, asked through MCP elicitation (e.g. 'name~:/delete|pay|send/')`)
	fl.StringVar(&f.audit, "audit", "", "append one JSON line per action to this file (created 0600): time, action, target, URL or app, decision, outcome")
	fl.StringVar(&f.stuck, "stuck", "3,4,5", "stuck detection: the same action changing nothing (or two undoing each other) gets a hint at the 1st count, a warning at the 2nd, and is refused at the 3rd; HINT,WARN,REFUSE, one count (the refusal), or off")
}

// config is the session the flags ask for (docs/tiers.md): the tier (--allow;
// unset, canopy.Open picks act on a browser canopy launches and observe
// on one it attaches to), the rules and the audit file. Rules that
// cannot be applied (a secrets file others can read) stop canopy.Open
// before anything starts.
func (f policyFlags) config() (canopy.Config, error) {
	var cfg canopy.Config
	if f.allow != "" {
		t, err := action.ParseTier(f.allow)
		if err != nil {
			return cfg, err
		}
		cfg.Allow = t
	}
	cfg.Rules = []policy.Option{policy.Files(f.files), policy.Apps(f.apps...)}
	if len(f.domains) > 0 {
		cfg.Rules = append(cfg.Rules, policy.Domains(f.domains...))
	}
	if f.secrets != "" {
		cfg.Rules = append(cfg.Rules, policy.Secrets(f.secrets))
	}
	if f.confirm != "" {
		cfg.Rules = append(cfg.Rules, policy.Confirm(f.confirm))
	}
	cfg.AuditFile = f.audit
	if f.stuck != "" {
		st, err := session.ParseStuck(f.stuck)
		if err != nil {
			return cfg, err
		}
		cfg.Session.Stuck = st
	}
	cfg.Session.Surface = "cli"
	return cfg, nil
}

// sessionConfig is the session a command's flags ask for: the rules and
// tier of p, the browser of b (its logger writing to stderr), on the
// desktop when desktop is set.
func sessionConfig(b browserFlags, p policyFlags, desktop bool, stderr io.Writer) (canopy.Config, error) {
	cfg, err := p.config()
	if err != nil {
		return cfg, err
	}
	cfg.Browser = b.options(stderr)
	cfg.Session.Logger = cfg.Browser.Logger
	cfg.Desktop = desktop
	return cfg, nil
}
