// Package policy decides whether an action may run, and hands out the
// [Permit] that a source demands before it touches a page or an app.
//
// The permit is how "checked at every leaf action" is enforced by the
// compiler rather than by convention: a source's acting methods take a
// *Permit, and only [Policy.Permit] can make one that is valid. A batch
// step, a shell loop or a script that wants to reach a source must ask the
// policy first, for that very action; the permit names the action it was
// given for and the source checks that it matches.
//
// This is the hook the security issue fills in (domain and app allowlists,
// credentials, the audit log); today it enforces the permission tier.
package policy

import (
	"context"
	"errors"
	"fmt"

	"github.com/canopy-dev/canopy/action"
)

// ErrDenied marks an action the policy refused.
var ErrDenied = errors.New("not permitted")

// Policy holds the rules of one session.
type Policy struct {
	tier action.Tier
}

// New returns a policy that allows actions up to tier.
func New(tier action.Tier) *Policy { return &Policy{tier: tier} }

// Tier returns the session's permission tier.
func (p *Policy) Tier() action.Tier { return p.tier }

// Permit checks a and returns the permit a source needs to perform it.
// target describes the node acted on, for the error message and, later, the
// audit log.
func (p *Policy) Permit(ctx context.Context, a action.Action, target string) (*Permit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	need := a.Tier()
	if need > p.tier {
		what := string(a.Kind)
		if target != "" {
			what += " " + target
		}
		return nil, fmt.Errorf("%s needs the %s tier; this session allows %s (--allow %s): %w", what, need, p.tier, need, ErrDenied)
	}
	return &Permit{kind: a.Kind, tier: need, policy: p}, nil
}

// Permit is the proof that the policy allowed one action. The zero value and
// nil are invalid.
type Permit struct {
	kind   action.Kind
	tier   action.Tier
	policy *Policy
}

// Allows reports an error unless the permit was issued for an action of
// kind; sources call it first thing in every method that acts.
func (p *Permit) Allows(kind action.Kind) error {
	if p == nil || p.policy == nil {
		return fmt.Errorf("%s: no permit (actions must go through the executor): %w", kind, ErrDenied)
	}
	if p.kind != kind {
		return fmt.Errorf("%s: the permit was issued for %s: %w", kind, p.kind, ErrDenied)
	}
	return nil
}
