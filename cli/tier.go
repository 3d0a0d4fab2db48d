package cli

import (
	"context"

	"github.com/canopy-dev/canopy/action"
	"github.com/canopy-dev/canopy/policy"
)

// tierFlagHelp is the --allow flag's help.
const tierFlagHelp = "permission tier: observe, act or sensitive (default: act on a browser canopy launched, observe with --cdp)"

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
	_, err := policy.New(t).Permit(ctx, action.Action{Kind: action.Navigate, URL: url}, "")
	return err
}
